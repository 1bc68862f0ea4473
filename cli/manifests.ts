import { readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CliError } from './errors.js';
import type { Io } from './io.js';
import { fromOperator, isOperatorResource } from './operator.js';
import { lineFinder, parsePieces, type RawPiece } from './yaml-pieces.js';
import { isObj, type Obj } from '../src/lib/is-obj.js';
import { splitPath } from './path-syntax.js';

export { splitPath };

/** Where the paths given with -f are read: standard input (`-`) and the working directory. */
export type Input = Pick<Io, 'stdin' | 'cwd'>;

/** One resource read from a file, with where it came from. */
export interface Manifest {
  /** The file as given, or found in a directory given (relative to the working directory when inside it), or `<stdin>`. */
  file: string;
  /** Position of the resource in its file (documents and array items, from 0). */
  index: number;
  /** How many resources the file holds. */
  ofFile: number;
  /** The native resource `{kind, metadata, spec}` (converted from a Perses* custom resource if needed). */
  object: Obj;
  /** Set when converted, e.g. `PersesDashboard`. */
  convertedFrom?: string;
  /** The line (1-based) of a dotted JSON path in the file, when it can be found. */
  lineOf(path: string): number | undefined;
  /** Built from TypeScript: the `file:line` of the code that made the value at a JSON path. */
  sourceOf?(path: string): string | undefined;
}

/** `file.yaml#2` (only with several resources in the file), plus `:line` when known. */
export function where(m: Manifest, path?: string): string {
  if (m.sourceOf) return m.sourceOf(path ?? '') ?? m.file;
  const line = path === undefined ? (m.ofFile > 1 ? m.lineOf('') : undefined) : m.lineOf(path);
  return `${m.file}${m.ofFile > 1 ? `#${m.index}` : ''}${line ? `:${line}` : ''}`;
}

export interface Loaded {
  manifests: Manifest[];
  /** Documents skipped on purpose (e.g. a Kubernetes Secret next to a PersesDatasource). */
  skipped: string[];
}

const EXTENSIONS = /\.(ya?ml|json|m?ts)$/i;
/** What a directory of dashboards-as-code also holds: never resources. */
const NOT_RESOURCES = /^(node_modules|package(-lock)?\.json|tsconfig(\..*)?\.json)$|\.d\.m?ts$/i;

/**
 * Every resource in the given paths: files, directories (recursively: *.yaml, *.yml, *.json,
 * *.ts, *.mts; hidden entries and node_modules skipped) and `-` for standard input. JSON objects
 * and arrays, multi-document YAML, Kubernetes `List`s, perses-operator `Perses*` custom
 * resources, and TypeScript files, run (cli/ts-build.ts) for the resources they export by
 * default (in a directory, a TypeScript file without a default export is a library: skipped). A file that cannot be
 * parsed stops everything with its name and position, and so does an input (a file, a directory,
 * stdin) holding no resource at all. Relative paths are read from `input.cwd`.
 */
export async function loadManifests(paths: readonly string[], input: Input): Promise<Loaded> {
  if (!paths.length) throw new CliError('no input: give -f FILE, -f DIRECTORY or -f - (standard input)');
  const out: Loaded = { manifests: [], skipped: [] };
  const { cwd } = input;
  const inputs: ({ file: string; text: string; arg: number } | { file: string; arg: number })[] = [];
  for (const [arg, p] of paths.entries()) {
    if (p === '-') inputs.push({ file: '<stdin>', text: await input.stdin(), arg });
    else for (const file of expand(p, cwd)) inputs.push({ file, arg });
  }
  const found = paths.map(() => 0);
  const onDisk = inputs.filter((x) => !('text' in x) && !isTs(x.file)).map((x) => x.file);
  const parsed = onDisk.length >= WORKER_THRESHOLD ? await parseInWorkers(onDisk, cwd) : new Map<string, RawPiece[] | string>();
  let generation: number | undefined;
  for (const x of inputs) {
    if (isTs(x.file)) {
      generation ??= (await import('./ts-build.js')).nextGeneration();
      found[x.arg] += await addBuilt(x.file, !statSync(resolve(cwd, paths[x.arg])).isDirectory(), { cwd, generation }, out);
      continue;
    }
    const text = 'text' in x ? () => x.text : () => readFileSync(resolve(cwd, x.file), 'utf8');
    let pieces = parsed.get(x.file);
    if (typeof pieces === 'string') throw new CliError(pieces);
    pieces ??= parsePieces(x.file, text());
    found[x.arg] += pieces.length;
    addManifests(x.file, pieces, lineFinder(text), out);
  }
  const empty = paths.findIndex((_, i) => found[i] === 0);
  if (empty >= 0) throw new CliError(noResources(paths[empty], inputs.filter((x) => x.arg === empty).length, cwd));
  return out;
}

/** Why an input given with -f holding no resource at all (an empty file, only comments, `[]`) is refused. */
function noResources(p: string, files: number, cwd: string): string {
  if (p === '-') return 'no resources found in <stdin> (standard input was empty); pipe in YAML or JSON resources';
  const what = statSync(resolve(cwd, p)).isDirectory()
    ? `none of its ${files} *.yaml, *.yml or *.json files holds one`
    : 'the file is empty, or holds only comments or an empty list';
  return `no resources found in ${p} (${what}); give files with at least one resource (kind, metadata, spec)`;
}

/** Below this many files, parsing in this thread is quicker than starting workers. */
const WORKER_THRESHOLD = 100;

/** Parses files (relative to `cwd`) in worker threads (one per core, up to 4); file -> pieces, or an error message. */
async function parseInWorkers(files: string[], cwd: string): Promise<Map<string, RawPiece[] | string>> {
  const n = Math.max(1, Math.min(4, availableParallelism()));
  const size = Math.ceil(files.length / n);
  const batches = Array.from({ length: n }, (_, i) => files.slice(i * size, (i + 1) * size)).filter((b) => b.length);
  const url = new URL('./parse-worker.js', import.meta.url);
  const results = await Promise.all(
    batches.map(
      (batch) =>
        new Promise<{ file: string; pieces?: RawPiece[]; error?: string }[]>((resolve, reject) => {
          const w = new Worker(url, { workerData: { cwd, files: batch } });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  return new Map(results.flat().map((r) => [r.file, r.error ?? r.pieces!]));
}

/** The files of a path given with -f: itself, or those of a directory, named relative to `cwd` when inside it. */
function expand(p: string, cwd: string): string[] {
  let st;
  try {
    st = statSync(resolve(cwd, p));
  } catch {
    throw new CliError(`${p}: no such file or directory`);
  }
  if (!st.isDirectory()) return [p];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(resolve(cwd, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.') || NOT_RESOURCES.test(e.name)) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (EXTENSIONS.test(e.name)) files.push(full);
    }
  };
  walk(p);
  if (!files.length) throw new CliError(`${p}: no *.yaml, *.yml, *.json, *.ts or *.mts files in this directory`);
  return files.map((f) => {
    const shown = relative(cwd, resolve(cwd, f));
    return shown.startsWith('..') ? f : shown || f;
  });
}

const isTs = (file: string): boolean => /\.m?ts$/i.test(file);

/** Runs a TypeScript file (of build `generation`, see ts-build.ts) and adds what it exports; how many resources that was. */
async function addBuilt(file: string, explicit: boolean, run: { cwd: string; generation: number }, out: Loaded): Promise<number> {
  const { buildFile } = await import('./ts-build.js');
  const built = await buildFile(file, explicit, run);
  if (!built) return 0;
  built.resources.forEach((object, index) => {
    const base = {
      file,
      index,
      ofFile: built.resources.length,
      lineOf: () => undefined,
      sourceOf: (path: string) => built.sourceOf(index, path),
    };
    if (!isOperatorResource(object)) return void out.manifests.push({ ...base, object });
    const converted = fromOperator(object);
    if (!converted) return void out.skipped.push(`${file}#${index}: ${String(object.kind)} is not a kind dashctl can convert; skipped`);
    out.manifests.push({ ...base, object: converted.object, convertedFrom: String(object.kind) });
  });
  return built.resources.length;
}

function addManifests(file: string, pieces: RawPiece[], lines: ReturnType<typeof lineFinder>, out: Loaded): void {
  const many = pieces.length > 1;
  pieces.forEach((piece, index) => {
    const base = { file, index, ofFile: pieces.length };
    const at = `${file}${many ? `#${index}` : ''}`;
    if (!isObj(piece.value)) throw new CliError(`${at}: a resource must be an object with kind, metadata and spec`);
    const lookup = (prefixFor: (path: string) => (string | number)[]) => (path: string) =>
      lines(piece.doc, [...piece.prefix, ...prefixFor(path)]);
    if (isOperatorResource(piece.value)) {
      const converted = fromOperator(piece.value);
      if (!converted) return void out.skipped.push(`${at}: ${String(piece.value.kind)} is not a kind dashctl can convert; skipped`);
      out.manifests.push({
        ...base,
        object: converted.object,
        convertedFrom: String(piece.value.kind),
        lineOf: lookup((p) => converted.sourcePath(splitPath(p))),
      });
      return;
    }
    if (typeof piece.value.apiVersion === 'string')
      return void out.skipped.push(`${at}: ${piece.value.apiVersion} ${String(piece.value.kind)} is not a Perses resource; skipped`);
    out.manifests.push({ ...base, object: piece.value, lineOf: lookup(splitPath) });
  });
}
