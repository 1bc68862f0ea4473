/**
 * P7: `dashctl apply -f DIR` of 1,000 dashboards (10 KB each, YAML files) against a server in its
 * own process on a fresh LevelDB: first apply (all created) <= 10 s. Also shown: a second apply
 * (all unchanged). Reference: the same 1,000 bodies POSTed directly, 16 in flight, same run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PACKAGE_ROOT } from '../src/paths.js';
import { api, dashboard, pool, report, startDashplane, tempDir, type Figure } from './lib.js';

const COUNT = 1000;

function dashctlApply(url: string, dir: string, repo: string): Promise<{ seconds: number; summary: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js'), 'apply', '-q', '-f', repo], {
      env: { ...process.env, DASHCTL_CONFIG: join(dir, 'dashctl.json'), DASHCTL_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve({ seconds: (performance.now() - started) / 1000, summary: out.trim().split('\n').pop() ?? '' })
        : reject(new Error(`dashctl apply exited ${code}: ${out.slice(-2000)}`)),
    );
  });
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p7');
  const repo = join(dir.path, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'project.yaml'), stringify({ kind: 'Project', metadata: { name: 'bench' }, spec: {} }));
  for (let i = 0; i < COUNT; i++) writeFileSync(join(repo, `dash-${i}.yaml`), stringify(dashboard(`dash-${i}`, 'bench')));
  const server = await startDashplane({ dir: dir.path });
  try {
    await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'raw' }, spec: {} });
    const t0 = performance.now();
    await pool(
      Array.from({ length: COUNT }, (_, i) => i),
      16,
      async (i) => void (await api(server.url, 'POST', '/api/v1/projects/raw/dashboards', dashboard(`dash-${i}`, 'raw'))),
    );
    const raw = (performance.now() - t0) / 1000;
    const first = await dashctlApply(server.url, dir.path, repo);
    const second = await dashctlApply(server.url, dir.path, repo);
    console.log(
      `first apply ${first.seconds.toFixed(2)} s (${first.summary}); second apply ${second.seconds.toFixed(2)} s (${second.summary}); raw POSTs ${raw.toFixed(2)} s`,
    );
    return [
      report({
        id: 'P7',
        what: `dashctl apply of ${COUNT} dashboards (create)`,
        value: first.seconds,
        unit: 's',
        refWhat: `${COUNT} direct POSTs, 16 in flight`,
        reference: raw,
        ratio: first.seconds / raw,
        target: '<= 10 s',
        pass: first.seconds <= 10,
      }),
    ];
  } finally {
    await server.stop();
    dir.cleanup();
  }
}
