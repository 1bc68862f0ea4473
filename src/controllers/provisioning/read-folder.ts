import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ApiError } from '../../errors.js';
import { splitYamlDocuments } from './yaml-documents.js';

/**
 * The server's own body parsers (src/api/body-parsers.ts), given by the composition root: a file
 * is read with the limits and checks of a request body (size, nesting, keys, YAML aliases), and
 * gets whatever hardening they get.
 */
export interface ManifestParsers {
  /** A JSON text -> its value; throws ApiError. */
  json(text: string): unknown;
  /** One YAML document -> its value; throws (or rejects with) ApiError. */
  yaml(text: string): unknown;
}

/** One resource read from a file: its position (in a list or among YAML documents) and its value. */
export interface FileDocument {
  /** The file, relative to the folder read, with "/" separators. */
  file: string;
  /** Position of the resource in its file, from 0. */
  index: number;
  /** How many resources the file holds. */
  ofFile: number;
  /** The line of the YAML document holding it (YAML files with several documents). */
  line?: number;
  value: unknown;
}

/** A file (or the folder itself: file "") that could not be read or parsed. */
export interface FileProblem {
  file: string;
  line?: number;
  message: string;
}

/** What a folder held at one read. */
export interface FolderRead {
  documents: FileDocument[];
  problems: FileProblem[];
  files: number;
}

const EXTENSIONS = /\.(ya?ml|json)$/i;

interface Cached {
  stamp: string;
  documents: FileDocument[];
  problems: FileProblem[];
}

/**
 * Reads the resources of a folder, recursively (as dashctl reads a directory: *.yaml, *.yml and
 * *.json, names starting with "." skipped, in name order), one file at a time with a turn of the
 * event loop between files. A file unchanged since the last read (same inode, size, times) is not
 * parsed again. With `confine`, symbolic links leading out of the folder are not followed (a
 * Git repository must not make the server read its host's files).
 */
export class FolderReader {
  private cache = new Map<string, Cached>();

  constructor(private readonly o: { parsers: ManifestParsers; maxBytes: number; confine?: boolean }) {}

  async read(root: string, stopped: () => boolean = () => false): Promise<FolderRead> {
    const out: FolderRead = { documents: [], problems: [], files: 0 };
    const listed = await this.list(root, out.problems);
    const next = new Map<string, Cached>();
    for (const f of listed) {
      if (stopped()) break;
      await new Promise((r) => setImmediate(r));
      const got = await this.readFile(f.path, f.rel);
      next.set(f.path, got);
      out.files++;
      out.documents.push(...got.documents);
      out.problems.push(...got.problems);
    }
    this.cache = next;
    return out;
  }

  /** The files to read, in order; a folder that cannot be listed is a problem of file "". */
  private async list(root: string, problems: FileProblem[]): Promise<{ path: string; rel: string }[]> {
    const files: { path: string; rel: string }[] = [];
    let top: string;
    try {
      top = await realpath(root);
    } catch (e) {
      problems.push({ file: '', message: `the folder cannot be read (${errText(e)}); create it, or remove it from the configuration` });
      return files;
    }
    const seen = new Set<string>([top]);
    const visit = async (dir: string, rel: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        return void problems.push({ file: rel, message: `the folder cannot be read (${errText(e)})` });
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const path = join(dir, e.name);
        const name = rel ? `${rel}/${e.name}` : e.name;
        let kind: 'dir' | 'file' | undefined = e.isDirectory() ? 'dir' : e.isFile() ? 'file' : undefined;
        if (e.isSymbolicLink()) {
          try {
            const real = await realpath(path);
            if (this.o.confine && real !== top && !real.startsWith(top + sep)) {
              problems.push({ file: name, message: 'a symbolic link out of the repository; not followed' });
              continue;
            }
            const st = await stat(path);
            kind = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
          } catch (err) {
            problems.push({ file: name, message: `a symbolic link that leads nowhere (${errText(err)})` });
            continue;
          }
        }
        if (kind === 'dir') {
          // each directory once, however many links lead to it (and none back up the tree)
          const real = await realpath(path).catch(() => path);
          if (seen.has(real)) continue;
          seen.add(real);
          await visit(path, name);
        } else if (kind === 'file' && EXTENSIONS.test(e.name)) files.push({ path, rel: name });
      }
    };
    await visit(root, '');
    return files;
  }

  /** One file's resources (from the cache when unchanged). */
  private async readFile(path: string, rel: string): Promise<Cached> {
    let stamp: string;
    try {
      const st = await stat(path, { bigint: true });
      stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
      const cached = this.cache.get(path);
      if (cached?.stamp === stamp) return cached;
      if (st.size > BigInt(this.o.maxBytes)) {
        return {
          stamp,
          documents: [],
          problems: [
            { file: rel, message: `is ${st.size} bytes, more than http.body_limit (${this.o.maxBytes}); split it into smaller files` },
          ],
        };
      }
    } catch (e) {
      return { stamp: '', documents: [], problems: [{ file: rel, message: `cannot be read (${errText(e)})` }] };
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      return { stamp: '', documents: [], problems: [{ file: rel, message: `cannot be read (${errText(e)})` }] };
    }
    return { stamp, ...(await this.parse(rel, text)) };
  }

  /** A file's values: a JSON value, or each YAML document; a list stands for its items (as Perses reads it). */
  private async parse(rel: string, text: string): Promise<Omit<Cached, 'stamp'>> {
    const values: { value: unknown; line?: number }[] = [];
    const problems: FileProblem[] = [];
    if (text.trim() !== '') {
      if (/\.json$/i.test(rel)) {
        try {
          values.push({ value: this.o.parsers.json(text) });
        } catch (e) {
          problems.push({ file: rel, message: parserText(e) });
        }
      } else {
        const pieces = splitYamlDocuments(text);
        for (const piece of pieces) {
          try {
            values.push({ value: await this.o.parsers.yaml(piece.text), ...(pieces.length > 1 ? { line: piece.line } : {}) });
          } catch (e) {
            problems.push({ file: rel, line: piece.line, message: parserText(e) });
          }
        }
      }
    }
    const items = values.flatMap(({ value, line }) =>
      (Array.isArray(value) ? value : value === null ? [] : [value]).map((v) => ({ value: v, line })),
    );
    const documents = items.map((x, index) => ({
      file: rel,
      index,
      ofFile: items.length,
      ...(x.line !== undefined ? { line: x.line } : {}),
      value: x.value,
    }));
    return { documents, problems };
  }
}

/** A parser's message, about a file rather than a request body. */
function parserText(e: unknown): string {
  if (!(e instanceof ApiError)) throw e;
  return e.message.replace(/^the (?:request )?body\b/, 'the file').replace(/\(dashctl apply splits files\)/, '');
}

function errText(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}
