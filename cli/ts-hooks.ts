/**
 * Node module hooks (`module.register`) with which dashctl runs TypeScript: `.ts` and `.mts`
 * files are transpiled by esbuild (types stripped, an inline source map so stack traces name the
 * TypeScript line), imports written the TypeScript way (`./panels.js` for `panels.ts`, or no
 * extension) find their file, and `dashplane/sdk` resolves to the project's installed dashplane,
 * else to the one dashctl ships. A TypeScript file imported with `?dashctl-build=N` (a later build
 * in the same process, ts-build.ts) passes the parameter on to the TypeScript files it imports, so
 * that the whole build is evaluated afresh. Runs on Node's hooks thread; no type checking (that is
 * tsc's).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

interface HookData {
  /** The URL of dashctl's own SDK (dist/sdk/index.js). */
  sdkUrl: string;
}

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string; format?: string | null }>;
type NextLoad = (url: string, context: unknown) => Promise<{ format?: string | null; source?: unknown }>;

let sdkUrl = '';

export function initialize(data: HookData): void {
  sdkUrl = data.sdkUrl;
}

const TS = /\.m?ts$/;
/** ts-build.ts's GENERATION_PARAM (this module runs on its own thread and imports nothing of dashctl). */
const GENERATION = 'dashctl-build';

export async function resolve(
  specifier: string,
  context: ResolveContext,
  next: NextResolve,
): Promise<{ url: string; format?: string | null; shortCircuit?: boolean }> {
  const resolved = await resolveTs(specifier, context, next);
  const generation = context.parentURL?.startsWith('file:') ? new URL(context.parentURL).searchParams.get(GENERATION) : null;
  if (generation === null || !resolved.url.startsWith('file:')) return resolved;
  const url = new URL(resolved.url);
  if (!TS.test(url.pathname)) return resolved;
  url.searchParams.set(GENERATION, generation);
  return { ...resolved, url: url.href, shortCircuit: true };
}

async function resolveTs(
  specifier: string,
  context: ResolveContext,
  next: NextResolve,
): Promise<{ url: string; format?: string | null; shortCircuit?: boolean }> {
  try {
    return await next(specifier, context);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw e;
    if (specifier === 'dashplane/sdk') return { url: sdkUrl, shortCircuit: true };
    if (/^\.{1,2}\//.test(specifier) && context.parentURL) {
      for (const candidate of tsCandidates(specifier)) {
        const url = new URL(candidate, context.parentURL);
        if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true };
      }
    }
    throw e;
  }
}

/** `./x.js` -> `./x.ts`; `./x.mjs` -> `./x.mts`; `./x` -> `./x.ts`, `./x.mts`, `./x/index.ts`. */
function tsCandidates(specifier: string): string[] {
  if (specifier.endsWith('.js')) return [specifier.replace(/\.js$/, '.ts')];
  if (specifier.endsWith('.mjs')) return [specifier.replace(/\.mjs$/, '.mts')];
  return [`${specifier}.ts`, `${specifier}.mts`, `${specifier}/index.ts`];
}

export async function load(
  url: string,
  context: unknown,
  next: NextLoad,
): Promise<{ format?: string | null; source?: unknown; shortCircuit?: boolean }> {
  if (!url.startsWith('file:') || !TS.test(new URL(url).pathname)) return next(url, context);
  const file = fileURLToPath(url);
  const result = await transform(await readFile(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: file,
  });
  return { format: 'module', source: result.code, shortCircuit: true };
}
