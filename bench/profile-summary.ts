/**
 * Top self-time functions of a V8 .cpuprofile (node --cpu-prof):
 *   node dist/bench/profile-summary.js FILE.cpuprofile [count]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const [file, countArg] = process.argv.slice(2);
const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<string, number>();
let total = 0;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const counts = new Map<number, number>();
for (const s of prof.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
for (const [id, c] of counts) {
  const n = byId.get(id)!;
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules\/)?/, (m) => (m.includes('node_modules') ? 'node_modules/' : ''))}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`;
  self.set(key, (self.get(key) ?? 0) + c);
  total += c;
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(countArg ?? 25));
for (const [k, c] of rows) console.log(`${((100 * c) / total).toFixed(1).padStart(5)} %  ${k}`);

// The same samples by where the code lives: a package, dashplane's own files, Node's internals
// or native work without a script (idle, GC, syscalls such as writev).
const byOwner = new Map<string, number>();
for (const [id, c] of counts) {
  const f = byId.get(id)!.callFrame;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url)?.[1];
  const owner = pkg ?? (f.url.includes('/dist/') ? 'dashplane' : f.url.startsWith('node:') || (f.url && !f.url.includes('/')) ? 'node (internals)' : f.url ? f.url : `native: ${f.functionName}`);
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + c);
}
console.log('\nby owner:');
for (const [k, c] of [...byOwner.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${((100 * c) / total).toFixed(1).padStart(5)} %  ${k}`);
