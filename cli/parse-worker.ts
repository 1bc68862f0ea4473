/** Worker thread: parses a batch of files (YAML parsing dominates large applies). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { parsePieces } from './yaml-pieces.js';

/** The files as named to the user, and the directory they are relative to. */
const { cwd, files } = workerData as { cwd: string; files: string[] };
const results = files.map((file) => {
  try {
    return { file, pieces: parsePieces(file, readFileSync(resolve(cwd, file), 'utf8')) };
  } catch (e) {
    return { file, error: (e as Error).message };
  }
});
parentPort!.postMessage(results);
