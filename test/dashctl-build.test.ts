import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctl, show, type Run } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

/** Files under `root`, path -> content. */
function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const OVERVIEW = `import { dashboard, panelGroup, panel, markdown, timeSeriesChart, prometheusTimeSeriesQuery } from 'dashplane/sdk';
export default dashboard({
  name: 'overview',
  title: 'Overview',
  groups: [
    panelGroup({ title: 'Load', columns: 3, panels: [
      panel({ title: 'CPU usage', plugin: timeSeriesChart({}), queries: [prometheusTimeSeriesQuery({ query: 'rate(cpu[5m])', datasource: 'prom' })] }),
      panel({ title: 'Memory', plugin: timeSeriesChart({}) }),
      panel({ title: 'Disk', plugin: timeSeriesChart({}) }),
      panel({ title: 'Notes', plugin: markdown({ text: 'hello' }) }),
    ] }),
  ],
});
`;

/**
 * `dashctl build`, and `.ts` files given to apply, diff and lint: real TypeScript files run by
 * dashctl (in process, each run with its own working directory), against a real server where one
 * is needed.
 */
describe('dashctl build: dashboards as TypeScript', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let srv: TestServer;
  const run = (args: string[], cwd?: string, env: Record<string, string> = {}): Promise<Run> =>
    dashctl(join(tmp.path, 'config.json'), args, { cwd, env: { DASHCTL_URL: srv?.url ?? '', ...env } });

  before(async () => {
    tmp = tempDir('dashctl-build-');
    srv = await startTestServer();
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it("prints the resource a file exports, with computed keys and grid positions, in an empty folder (dashplane/sdk is dashctl's own)", async () => {
    const dir = join(tmp.path, 'empty');
    write(dir, { 'overview.ts': OVERVIEW });
    const r = await run(['build', '-f', 'overview.ts'], dir);
    expect(r.code, show(r)).to.equal(0);
    const d = parse(r.stdout);
    expect(d.metadata).to.deep.equal({ name: 'overview' });
    expect(Object.keys(d.spec.panels)).to.deep.equal(['cpu_usage', 'memory', 'disk', 'notes']);
    expect(d.spec.layouts[0].spec.items.map((i: any) => [i.x, i.y, i.width, i.height, i.content.$ref])).to.deep.equal([
      [0, 0, 8, 8, '#/spec/panels/cpu_usage'],
      [8, 0, 8, 8, '#/spec/panels/memory'],
      [16, 0, 8, 8, '#/spec/panels/disk'],
      [0, 8, 8, 8, '#/spec/panels/notes'],
    ]);
    expect(d.spec.panels.cpu_usage.spec.queries[0]).to.deep.equal({
      kind: 'TimeSeriesQuery',
      spec: {
        plugin: {
          kind: 'PrometheusTimeSeriesQuery',
          spec: { query: 'rate(cpu[5m])', datasource: { kind: 'PrometheusDatasource', name: 'prom' } },
        },
      },
    });
    const json = await run(['build', '-f', 'overview.ts', '-o', 'json'], dir);
    expect(JSON.parse(json.stdout)).to.deep.equal(d);
  });

  it('builds a folder: arrays, async functions reading inputs beside them, libraries without a default export skipped; --output-dir writes one file each', async () => {
    const dir = join(tmp.path, 'folder');
    write(dir, {
      'lib/panels.ts': `import { panel, markdown, type Panel } from 'dashplane/sdk';\nexport const note = (text: string): Panel => panel({ title: 'Note', plugin: markdown({ text }) });\n`,
      'teams.txt': 'red\nblue\n',
      'teams.ts': `import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dashboard, panelGroup, type BuildContext } from 'dashplane/sdk';
import { note } from './lib/panels';
export default async ({ dir }: BuildContext) =>
  (await readFile(join(dir, 'teams.txt'), 'utf8')).trim().split('\\n').map((t) => dashboard({ name: t, project: 'p', groups: [panelGroup({ panels: [note(t)] })] }));
`,
      'both.mts': `import { project, resource } from 'dashplane/sdk';\nexport default [project('p'), resource('Folder', { metadata: { name: 'f', project: 'p' }, spec: { items: [] } })];\n`,
      'package.json': '{"type": "module"}',
      'tsconfig.json': '{}',
    });
    const r = await run(['build', '-f', '.'], dir);
    expect(r.code, show(r)).to.equal(0);
    const docs = r.stdout.split(/^---$/m).map((t) => parse(t));
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).to.deep.equal(['Project/p', 'Folder/f', 'Dashboard/red', 'Dashboard/blue']);
    expect(docs[2].spec.panels.note.spec.plugin.spec.text).to.equal('red');
    const out = await run(['build', '-f', '.', '--output-dir', join(tmp.path, 'out')], dir);
    expect(out.code, show(out)).to.equal(0);
    expect(parse(readFileSync(join(tmp.path, 'out', 'p', 'dashboard-blue.yaml'), 'utf8')).metadata.name).to.equal('blue');
    expect(parse(readFileSync(join(tmp.path, 'out', 'project-p.yaml'), 'utf8')).kind).to.equal('Project');
  });

  it('in a project with node_modules/dashplane, dashplane/sdk is that copy; an npm package of panels written in TypeScript is run too', async () => {
    const dir = join(tmp.path, 'project');
    write(dir, {
      'node_modules/dashplane/package.json': JSON.stringify({ name: 'dashplane', type: 'module', exports: { './sdk': './sdk.js' } }),
      'node_modules/dashplane/sdk.js': `export const project = (name) => ({ kind: 'Project', metadata: { name, tags: ['from-the-project-copy'] } });\n`,
      'node_modules/@team/panels/package.json': JSON.stringify({ name: '@team/panels', type: 'module', exports: './index.ts' }),
      'node_modules/@team/panels/index.ts': `import { project } from 'dashplane/sdk';\nexport const teamProject = (n: string) => project(n);\n`,
      'main.ts': `import { teamProject } from '@team/panels';\nexport default teamProject('team');\n`,
    });
    const r = await run(['build', '-f', 'main.ts', '-o', 'json'], dir);
    expect(r.code, show(r)).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ kind: 'Project', metadata: { name: 'team', tags: ['from-the-project-copy'] } });
  });

  it('an error in a file names the TypeScript file and line: a syntax error, a throw, a builder refusing, no default export', async () => {
    const dir = join(tmp.path, 'errors');
    write(dir, {
      'syntax.ts': `import { dashboard } from 'dashplane/sdk';\nconst x: number = ;\nexport default dashboard({ name: 'x' });\n`,
      'throws.ts': `import { dashboard } from 'dashplane/sdk';\ninterface A { a: number }\nexport default () => {\n  throw new Error('inventory missing');\n};\n`,
      'refused.ts': `import { panelGroup } from 'dashplane/sdk';\n\n\nexport default panelGroup({ collapsed: true, panels: [] });\n`,
      'none.ts': `export const x = 1;\n`,
    });
    const expectations: [string, RegExp][] = [
      ['syntax.ts', /^error: syntax\.ts:2:19: Unexpected ";"/m],
      ['throws.ts', /^error: throws\.ts:4: inventory missing/m],
      ['refused.ts', /^error: refused\.ts:4: panelGroup\(\): a group without a title cannot be collapsed/m],
      ['none.ts', /^error: none\.ts: no default export/m],
    ];
    for (const [file, re] of expectations) {
      const r = await run(['build', '-f', file], dir);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.match(re);
    }
    const notResource = await run(['build', '-f', 'none.ts'], dir);
    expect(notResource.stdout).to.equal('');
  });

  it('build --check (offline and --online) names the TypeScript line that made each invalid value', async () => {
    const dir = join(tmp.path, 'check');
    write(dir, {
      'bad.ts': `import { dashboard, panelGroup, panel, plugin, statChart } from 'dashplane/sdk';
export default dashboard({
  name: 'bad',
  project: 'checks',
  groups: [
    panelGroup({ panels: [
      panel({ title: 'Fine', plugin: statChart({ calculation: 'last' }) }),
      panel({ title: 'Wrong', plugin: plugin('StatChart', { calculation: 'loudest' } as never) }),
    ] }),
  ],
});
`,
    });
    for (const online of [[], ['--online']]) {
      const r = await run(['build', '-f', 'bad.ts', '--check', ...online], dir);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.match(/spec\.panels\.wrong\.spec\.plugin\.spec\.calculation: .*\(bad\.ts:8\)/);
      expect(r.stdout).to.include('1 resource(s) checked');
    }
  });

  it('apply -f and diff -f take .ts files: the server gets the built resources, and a change shows in resource terms', async () => {
    const dir = join(tmp.path, 'gitops');
    write(dir, {
      'project.ts': `import { project } from 'dashplane/sdk';\nexport default project('gitops');\n`,
      'overview.ts': OVERVIEW.replace("name: 'overview',", "name: 'overview',\n  project: 'gitops',"),
    });
    const applied = await run(['apply', '-f', '.'], dir);
    expect(applied.code, show(applied)).to.equal(0);
    expect(applied.stdout).to.include('created 2,');
    const live = await srv.api('GET', '/api/v1/projects/gitops/dashboards/overview');
    expect(live.status).to.equal(200);
    expect(Object.keys(live.body.spec.panels)).to.deep.equal(['cpu_usage', 'memory', 'disk', 'notes']);
    expect((await run(['diff', '-f', '.'], dir)).code).to.equal(0);
    write(dir, {
      'overview.ts': OVERVIEW.replace("name: 'overview',", "name: 'overview',\n  project: 'gitops',").replace("'Memory'", "'Memory used'"),
    });
    const diff = await run(['diff', '-f', '.'], dir);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout)
      .to.match(/^\+\s+name: Memory used$/m)
      .and.match(/^\+\s+memory_used:$/m)
      .and.match(/^-\s+memory:$/m);
    const lint = await run(['lint', '-f', 'overview.ts'], dir);
    expect(lint.code, show(lint)).to.equal(0);
  });

  it('dashctl generate writes code that builds the same resource, from a file or from the server', async () => {
    const dir = join(tmp.path, 'generate');
    write(dir, { 'project.ts': `import { project } from 'dashplane/sdk';\nexport default project('gitops');\n` });
    const fromServer = await run(['generate', '--from-server', 'dashboard/overview', '-p', 'gitops'], dir);
    expect(fromServer.code, show(fromServer)).to.equal(0);
    expect(fromServer.stdout).to.include("from 'dashplane/sdk'").and.include('panelGroup(').and.not.include('createdAt');
    write(dir, { 'overview.ts': fromServer.stdout });
    const rebuilt = await run(['build', '-f', 'overview.ts', '-o', 'json'], dir);
    const live = (await srv.api('GET', '/api/v1/projects/gitops/dashboards/overview')).body;
    const { createdAt: _c, updatedAt: _u, version: _v, ...metadata } = live.metadata;
    expect(JSON.parse(rebuilt.stdout)).to.deep.equal({ ...live, metadata });
    const grafana = await run(['generate', '-f', join(PACKAGE_ROOT, 'examples', 'grafana', 'node-overview.json')], dir);
    expect(grafana.code, show(grafana)).to.equal(0);
    expect(grafana.stderr).to.include('Grafana dashboard migrated first');
    expect(grafana.stdout).to.include('export default dashboard(');
  });
});
