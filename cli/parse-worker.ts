/** Worker thread: parses a batch of files (YAML parsing dominates large applies). */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { parsePieces } from './yaml-pieces.js';

const files = workerData as string[];
const results = files.map((file) => {
  try {
    return { file, pieces: parsePieces(file, readFileSync(file, 'utf8')) };
  } catch (e) {
    return { file, error: (e as Error).message };
  }
});
parentPort!.postMessage(results);
