/**
 * Top self-time functions of a V8 .cpuprofile (node --cpu-prof), the same samples by owner, and
 * with `--stages create` by stage of the write path:
 *   node dist/bench/profile-summary.js FILE.cpuprofile [count] [--stages create]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const args = process.argv.slice(2);
const stagesAt = args.indexOf('--stages');
const stageSet = stagesAt >= 0 ? args.splice(stagesAt, 2)[1] : undefined;
const [file, countArg] = args;
const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<string, number>();
let total = 0;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const counts = new Map<number, number>();
for (const s of prof.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
for (const [id, c] of counts) {
  const n = byId.get(id)!;
  const f = n.callFrame;
  const where = f.url
    ? `${f.url.replace(/^.*\/(node_modules\/)?/, (m) => (m.includes('node_modules') ? 'node_modules/' : ''))}:${f.lineNumber + 1}`
    : '';
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
  const owner =
    pkg ??
    (f.url.includes('/dist/')
      ? 'dashplane'
      : f.url.startsWith('node:') || (f.url && !f.url.includes('/'))
        ? 'node (internals)'
        : f.url
          ? f.url
          : `native: ${f.functionName}`);
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + c);
}
console.log('\nby owner:');
for (const [k, c] of [...byOwner.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15))
  console.log(`${((100 * c) / total).toFixed(1).padStart(5)} %  ${k}`);

/**
 * The stages of a create (POST of a new object), each a test on a stack frame "function file".
 * A sample goes to the stage of its innermost frame that matches one (so a JSON.parse called by
 * the body parser counts as parsing, the same call made by the store as the store's); samples
 * that match none are the request's plumbing (HTTP, Fastify, routing, response, log line).
 */
const STAGES: Record<string, [string, RegExp][]> = {
  create: [
    [
      'parse body (JSON.parse, limits scan)',
      /^(parseJson|scanJson|yamlBodyToJson|checkExpansion) .*(body-parsers|body-limits|yaml-body)\.js/,
    ],
    [
      'checks (unsafe keys, authentication, permissions)',
      /(hygiene|authorizer|authenticator|grants|api-tokens|read-cache|derived-cache|credentials)\.js/,
    ],
    [
      'validation (schema, rules, plugins)',
      /^(validate|schemaErrors|validateNow|companionsOf|authorizeSecretRefs|authorizeContents) |\/kinds\/|\/plugins\/|\/schemas\/|node_modules\/ajv/,
    ],
    ['history scan (tombstones, managers)', /level-history\.js|^(has|managers|dropOps) .*level-history/],
    [
      'commit (LevelDB batch, events, index)',
      /^(commit|commitGroup|drain|takeGroup) .*level-(store|group-commit)\.js|node_modules\/(classic-level|abstract-level|level)\/|metadata-index\.js|recent-texts\.js/,
    ],
    ['audit entries', /\/audit\/|level-audit\.js/],
    ['watch streams (event to sockets)', /watcher\.js|event-hub\.js|\/controllers\//],
    ['service (prepare, stamp, serialise)', /resources\/(service|prepare|masking|managers|unchanged)\.js|json-text|jsonOf/],
  ],
};
if (stageSet) {
  const table = STAGES[stageSet];
  if (!table) throw new Error(`unknown stage set "${stageSet}"; known: ${Object.keys(STAGES).join(', ')}`);
  for (const n of prof.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const frame = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url}`;
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const own =
      n.callFrame.functionName === '(idle)'
        ? 'idle'
        : n.callFrame.functionName === '(garbage collector)'
          ? 'garbage collection'
          : table.find(([, test]) => test.test(frame(n)))?.[0];
    const stage = own ?? (n.parent === undefined ? 'request plumbing (HTTP, Fastify, response, log line)' : classify(n.parent));
    stageOf.set(id, stage);
    return stage;
  };
  const byStage = new Map<string, number>();
  for (const [id, c] of counts) byStage.set(classify(id), (byStage.get(classify(id)) ?? 0) + c);
  console.log(`\nby stage (${stageSet}):`);
  for (const [k, c] of [...byStage.entries()].sort((a, b) => b[1] - a[1]))
    console.log(`${((100 * c) / total).toFixed(1).padStart(5)} %  ${k}`);
}
