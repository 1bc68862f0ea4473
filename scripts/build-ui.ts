// Builds the web UI (ui/, React + Vite) into ui/dist unless it is already built from the same
// sources: `npm install`, `npm start` and `npm test` all run this, and a 30-second Vite build on
// every start would be a waste. A stamp in ui/dist records the hash of the inputs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { PACKAGE_ROOT } from '../src/paths.js';

const UI = join(PACKAGE_ROOT, 'ui');
const DIST = join(UI, 'dist');
const STAMP = join(DIST, '.build-stamp');
// the UI bundles shared helpers of src/lib (the edit script, the canonical form, datasource resolution)
const INPUTS = ['index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'src', 'public', '../src/lib', '../scripts/build-ui.ts'];

/** Text files worth compressing; fonts (woff2) and images are compressed already. */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.map', '.txt', '.woff', '.ttf']);
/** Below this size the headers outweigh the saving. */
const MIN_COMPRESS_BYTES = 1024;

function hashInputs(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
      return;
    }
    hash.update(relative(UI, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const input of INPUTS) add(join(UI, input));
  add(join(PACKAGE_ROOT, 'package-lock.json'));
  return hash.digest('hex');
}

function run(what: string, args: string[]): void {
  const started = Date.now();
  console.log(`ui: ${what}...`);
  const r = spawnSync(process.execPath, args, { cwd: UI, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`ui: ${what} failed (exit ${r.status ?? r.signal}); fix the errors above, then run npm run build`);
    process.exit(1);
  }
  console.log(`ui: ${what} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function resolveBin(pkg: string, bin: string): string | undefined {
  try {
    return join(createRequire(join(UI, 'package.json')).resolve(`${pkg}/package.json`), '..', bin);
  } catch {
    return undefined;
  }
}

const force = process.argv.includes('--force');
const inputs = hashInputs();
if (!force && existsSync(join(DIST, 'index.html')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === inputs) {
  console.log('ui: up to date (ui/dist)');
  process.exit(0);
}
const vite = resolveBin('vite', 'bin/vite.js');
const tsc = resolveBin('typescript', 'bin/tsc');
if (!vite || !tsc) {
  // e.g. `npm ci --omit=dev`: the server runs, and / says how to build the UI
  console.warn('ui: vite or typescript is not installed (dev dependencies); the web UI is not built');
  process.exit(0);
}
run('type check', [tsc, '-p', 'tsconfig.json', '--noEmit']);
run('vite build', [vite, 'build', '--logLevel', 'error']);
precompress(DIST);
writeFileSync(STAMP, inputs);

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip -9) next to every compressible
 * file, once at build time: the server answers them by Accept-Encoding without compressing per
 * request (src/api/static-routes.ts).
 */
function precompress(dir: string): void {
  const started = Date.now();
  let raw = 0;
  let br = 0;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      if (!COMPRESSIBLE.has(extname(name).toLowerCase())) continue;
      const body = readFileSync(full);
      if (body.length < MIN_COMPRESS_BYTES) continue;
      const brotli = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } });
      writeFileSync(`${full}.br`, brotli);
      writeFileSync(`${full}.gz`, gzipSync(body, { level: 9 }));
      raw += body.length;
      br += brotli.length;
    }
  };
  walk(dir);
  console.log(
    `ui: precompressed ${(raw / 1e6).toFixed(2)} MB to ${(br / 1e6).toFixed(2)} MB brotli (and gzip) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
