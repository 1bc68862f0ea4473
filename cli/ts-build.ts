import { register } from 'node:module';
import { dirname, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliError } from './errors.js';
import { callerIn, originOf, SDK_DIRS, withSources } from '../sdk/origin.js';
import { isResource, type Resource } from '../sdk/resource.js';
import { splitPath } from './path-syntax.js';

/** The resources one TypeScript file exported. */
export interface BuiltFile {
  file: string;
  /** Plain JSON data, as the server receives it. */
  resources: Record<string, unknown>[];
  /** For a JSON path of resource `index`, the `file:line` of the TypeScript that built it. */
  sourceOf(index: number, path: string): string | undefined;
}

/** Whether dashctl builds this file instead of parsing it. */
export const isTypeScript = (file: string): boolean => /\.m?ts$/i.test(file) && !/\.d\.m?ts$/i.test(file);

let registered = false;
let generations = 0;

/** The query parameter that tells one build's modules from another's (ts-hooks.ts carries it to their imports). */
export const GENERATION_PARAM = 'dashctl-build';

/**
 * A new build generation. Node keeps every module it evaluated: a second build in the same
 * process (runs made in process, as the tests make them) of a file changed since would get the
 * first one's module. The first generation imports files by their plain URL; each later one adds
 * `?dashctl-build=N` to the URLs of its TypeScript files, so they are evaluated afresh.
 */
export function nextGeneration(): number {
  return generations++;
}

/** Turns on the TypeScript hooks (once per process) and source-mapped stack traces. */
function registerHooks(): void {
  if (registered) return;
  registered = true;
  process.setSourceMapsEnabled(true);
  const sdkUrl = new URL('../sdk/index.js', import.meta.url).href;
  register(new URL('./ts-hooks.js', import.meta.url), { data: { sdkUrl } });
}

/** dashctl's own code: frames there (and in the SDK) are never the cause of a user's error. */
const OWN_DIRS = [...SDK_DIRS, ...withSources(dirname(fileURLToPath(import.meta.url)))];

/**
 * Runs `file` (relative to `run.cwd`, of build `run.generation`) and returns the resources of its
 * default export: a resource, an array of them, or a function (sync or async, given `{file, dir}`)
 * returning either. `required`: a file without a default export is an error (else it is a library
 * module, skipped with no resources). Files are named relative to `run.cwd` in errors.
 */
export async function buildFile(file: string, required: boolean, run: { cwd: string; generation: number }): Promise<BuiltFile | undefined> {
  registerHooks();
  const abs = resolvePath(run.cwd, file);
  const url = pathToFileURL(abs);
  if (run.generation > 0) url.searchParams.set(GENERATION_PARAM, String(run.generation));
  const shown = (f: string): string => {
    const rel = relative(run.cwd, f);
    return rel.startsWith('..') ? f : rel;
  };
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url.href)) as Record<string, unknown>;
  } catch (e) {
    throw new CliError(failure(file, e, shown));
  }
  if (!('default' in mod)) {
    if (!required) return undefined;
    throw new CliError(
      `${file}: no default export; end it with \`export default dashboard({...})\`, an array of resources, or a function returning them`,
    );
  }
  let value = mod.default;
  try {
    if (typeof value === 'function')
      value = await (value as (ctx: { file: string; dir: string }) => unknown)({ file: abs, dir: dirname(abs) });
  } catch (e) {
    throw new CliError(failure(file, e, shown));
  }
  const list = Array.isArray(value) ? value : [value];
  list.forEach((r, i) => {
    if (!isResource(r))
      throw new CliError(
        `${file}: the default export${Array.isArray(value) ? ` [${i}]` : ''} is ${describe(r)}, not a resource; export dashboard({...}), resource(kind, {...}), or an array of them`,
      );
  });
  const originals = list as Resource[];
  return {
    file,
    resources: originals.map((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>),
    sourceOf: (index, path) => sourceAt(originals[index], path, shown),
  };
}

/** The deepest builder-made object on `path` in `root`, as `file:line` (`shown`: relative to the working directory). */
function sourceAt(root: unknown, path: string, shown: (file: string) => string): string | undefined {
  let at = root;
  let best = originOf(root);
  for (const key of splitPath(path)) {
    if (at === null || typeof at !== 'object') break;
    at = (at as Record<string | number, unknown>)[key];
    best = originOf(at) ?? best;
  }
  return best ? `${shown(best.file)}:${best.line}` : undefined;
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a nested array';
  return typeof v === 'object' ? 'an object without a string "kind"' : `a ${typeof v}`;
}

/** An error of a file's code or syntax, named by the TypeScript file and line it comes from. */
function failure(file: string, e: unknown, shown: (file: string) => string): string {
  const err = e as Error & { errors?: { text: string; location?: { file: string; line: number; column: number } }[] };
  const syntax = err.errors?.[0];
  if (syntax?.location) return `${shown(syntax.location.file)}:${syntax.location.line}:${syntax.location.column + 1}: ${syntax.text}`;
  const at = typeof err?.stack === 'string' ? callerIn(err.stack, OWN_DIRS) : undefined;
  const message = err instanceof Error ? err.message : String(e);
  return `${at ? `${shown(at.file)}:${at.line}` : file}: ${message}`;
}
