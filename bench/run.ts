/**
 * `npm run bench [-- P1 P3 ...]`: runs the benchmarks P1-P12 (all, or the ones named) one after
 * the other and prints a summary table. Each starts its own servers on 127.0.0.1 and loads them
 * from other processes. BENCH_DURATION (seconds, default 10) sets the length of each load run.
 */
import { cpus } from 'node:os';
import { formatFigure, type Figure } from './lib.js';

const ALL: Record<string, () => Promise<{ run(): Promise<Figure[]> }>> = {
  P1: () => import('./p1-get.js'),
  P2: () => import('./p2-list.js'),
  P3: () => import('./p3-create.js'),
  P4: () => import('./p4-proxy.js'),
  P5: () => import('./p5-memory.js'),
  P6: () => import('./p6-watch.js'),
  P7: () => import('./p7-apply.js'),
  P8: () => import('./p8-postgres.js'),
  P9: () => import('./p9-ui.js'),
  P10: () => import('./p10-viewers.js'),
  P11: () => import('./p11-scale.js'),
  P12: () => import('./p12-build.js'),
};

const asked = process.argv.slice(2).map((a) => a.toUpperCase());
const unknown = asked.filter((a) => !ALL[a]);
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(ALL).join(' ')}`);
  process.exit(2);
}
const ids = asked.length ? asked : Object.keys(ALL);
console.log(`dashplane benchmarks ${ids.join(' ')} on ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
const figures: Figure[] = [];
let failed = false;
for (const id of ids) {
  console.log(`\n--- ${id}`);
  const started = performance.now();
  try {
    figures.push(...(await (await ALL[id]()).run()));
  } catch (e) {
    failed = true;
    console.error(`${id} failed: ${(e as Error).stack ?? e}`);
  }
  console.log(`(${id} took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
console.log('\n=== summary');
for (const f of figures) console.log(formatFigure(f));
process.exitCode = failed ? 1 : 0;
