/**
 * P12: `dashctl build -f DIR` of 100 dashboards written in TypeScript (each a file of 3 panel
 * groups and 9 panels from a shared panel library, as examples/dac writes them): <= 5 s, the
 * whole command (Node's start, esbuild's, every file transpiled and run, YAML printed).
 * Reference: the same 100 dashboards as YAML files, printed by the same command in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { report, tempDir, type Figure } from './lib.js';

const COUNT = 100;

const LIBRARY = `import { panel, prometheusTimeSeriesQuery, statChart, timeSeriesChart, type Panel } from 'dashplane/sdk';
const q = (query: string) => prometheusTimeSeriesQuery({ query, datasource: 'prometheus' });
export const rate = (service: string, metric: string): Panel =>
  panel({ title: \`\${metric} rate\`, plugin: timeSeriesChart({ legend: { position: 'bottom' } }), queries: [q(\`sum(rate(\${metric}{job="\${service}"}[5m]))\`)] });
export const stat = (service: string, metric: string): Panel =>
  panel({ title: \`\${metric} now\`, plugin: statChart({ calculation: 'last' }), queries: [q(\`sum(\${metric}{job="\${service}"})\`)] });
`;

const board = (i: number) => `import { dashboard, listVariable, panelGroup, prometheusLabelValuesVariable } from 'dashplane/sdk';
import { rate, stat } from './lib/panels.js';
const s = 'service-${i}';
export default dashboard({
  name: s,
  project: 'bench',
  title: 'Service ${i}',
  variables: [listVariable({ name: 'instance', plugin: prometheusLabelValuesVariable({ labelName: 'instance', datasource: 'prometheus' }) })],
  groups: ['requests', 'errors', 'bytes'].map((m) => panelGroup({ title: m, columns: 3, panels: [rate(s, m), stat(s, m), rate(s, \`\${m}_total\`)] })),
});
`;

function dashctlBuild(dir: string): Promise<{ seconds: number; out: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js'), 'build', '-f', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve({ seconds: (performance.now() - started) / 1000, out })
        : reject(new Error(`dashctl build exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p12');
  try {
    const ts = join(dir.path, 'ts');
    mkdirSync(join(ts, 'lib'), { recursive: true });
    writeFileSync(join(ts, 'lib', 'panels.ts'), LIBRARY);
    for (let i = 0; i < COUNT; i++) writeFileSync(join(ts, `service-${i}.ts`), board(i));
    const built = await dashctlBuild(ts);
    const docs = built.out.split(/^---$/m);
    if (docs.length !== COUNT) throw new Error(`expected ${COUNT} dashboards, got ${docs.length}`);
    const yaml = join(dir.path, 'yaml');
    mkdirSync(yaml);
    docs.forEach((d, i) => writeFileSync(join(yaml, `service-${i}.yaml`), d));
    const reference = await dashctlBuild(yaml);
    return [
      report({
        id: 'P12',
        what: `dashctl build of ${COUNT} TypeScript dashboards`,
        value: built.seconds,
        unit: 's',
        refWhat: 'the same as YAML',
        reference: reference.seconds,
        ratio: built.seconds / reference.seconds,
        target: '<= 5 s',
        pass: built.seconds <= 5,
      }),
    ];
  } finally {
    dir.cleanup();
  }
}
