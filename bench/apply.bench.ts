/**
 * dashctl apply of 1,000 dashboards against a real server (in this process, on a fresh LevelDB):
 * first apply (all created), second apply (all unchanged), one changed (one configured).
 * Run: npx tsc -p . && node dist/bench/apply.bench.js [count]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/main.js';
import { PACKAGE_ROOT } from '../src/paths.js';

const COUNT = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'dashctl-bench-'));

function dashboard(i: number): string {
  const panels = Array.from({ length: 6 }, (_, p) => `    p${p}:\n      kind: Panel\n      spec:\n        display: {name: "Panel ${p}"}\n        plugin: {kind: TimeSeriesChart, spec: {}}\n        queries:\n          - kind: TimeSeriesQuery\n            spec:\n              plugin: {kind: PrometheusTimeSeriesQuery, spec: {query: "rate(http_requests_total{job=\\"j${i}\\"}[5m])"}}\n`).join('');
  const items = Array.from({ length: 6 }, (_, p) => `          - {x: ${(p % 2) * 12}, y: ${Math.floor(p / 2) * 8}, width: 12, height: 8, content: {$ref: "#/spec/panels/p${p}"}}\n`).join('');
  return `kind: Dashboard\nmetadata: {name: dash-${i}, project: bench, tags: [bench]}\nspec:\n  display: {name: "Dashboard ${i}"}\n  duration: 1h\n  panels:\n${panels}  layouts:\n    - kind: Grid\n      spec:\n        items:\n${items}`;
}

const repo = join(dir, 'repo');
mkdirSync(repo, { recursive: true });
writeFileSync(join(repo, 'project.yaml'), 'kind: Project\nmetadata: {name: bench}\nspec: {}\n');
for (let i = 0; i < COUNT; i++) writeFileSync(join(repo, `dash-${i}.yaml`), dashboard(i));

const { config } = loadConfig({ listen: '127.0.0.1:0', env: { DASHPLANE_DATABASE_LEVEL_PATH: join(dir, 'data'), DASHPLANE_LOG_LEVEL: 'silent' } });
const server = await startServer(config, { logger: false });

async function timed(what: string): Promise<void> {
  const started = performance.now();
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js'), 'apply', '-q', '-f', repo], {
      env: { ...process.env, DASHCTL_CONFIG: join(dir, 'config.json'), DASHCTL_URL: server.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(text.trim()));
  });
  const s = (performance.now() - started) / 1000;
  console.log(`${what.padEnd(34)} ${s.toFixed(2)} s  (${Math.round(COUNT / s)} dashboards/s)  ${out.split('\n').pop()}`);
}

try {
  console.log(`dashctl apply: ${COUNT} dashboards (6 panels each), 16 requests in flight, server in-process on LevelDB`);
  await timed('first apply (create)');
  await timed('second apply (all unchanged)');
  writeFileSync(join(repo, 'dash-0.yaml'), dashboard(0).replace('Dashboard 0', 'Dashboard zero'));
  await timed('third apply (one changed)');
} finally {
  await server.close();
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  else console.log(dir);
}
