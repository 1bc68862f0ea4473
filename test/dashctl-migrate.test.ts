import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { dashctl, show } from './helpers/dashctl.js';
import { GRAFANA_EXPORT } from './helpers/grafana-export.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

/** dashctl migrate end to end: dashctl run in process, offline and against a real server. */
describe('dashctl migrate', function () {
  this.timeout(60_000);
  const dir = tempDir('dashctl-migrate-');
  const config = join(dir.path, 'config.json');
  const exportFile = join(dir.path, 'service.json');
  let s: TestServer;
  const withServer = () => ({ env: { DASHCTL_URL: s.url } });

  before(async () => {
    writeFileSync(exportFile, JSON.stringify(GRAFANA_EXPORT));
    mkdirSync(join(dir.path, 'folder', 'nested'), { recursive: true });
    writeFileSync(join(dir.path, 'folder', 'a.json'), JSON.stringify({ ...GRAFANA_EXPORT, uid: 'a' }));
    writeFileSync(join(dir.path, 'folder', 'nested', 'b.json'), JSON.stringify({ dashboard: { ...GRAFANA_EXPORT, uid: 'b' }, meta: {} }));
    writeFileSync(join(dir.path, 'not-grafana.json'), JSON.stringify({ hello: 'world' }));
    s = await startTestServer();
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'ops' }, spec: {} });
  });
  after(async () => {
    await s?.stop();
    dir.remove();
  });

  it('prints the migrated dashboard as YAML, with the report on stderr, without any server', async () => {
    const r = await dashctl(config, ['migrate', '-f', exportFile, '--input', 'DS_PROMETHEUS=prom']);
    expect(r.code, show(r)).to.equal(0);
    const dashboard = parse(r.stdout);
    expect(dashboard.kind).to.equal('Dashboard');
    expect(dashboard.metadata.name).to.equal('svc-overview');
    expect(r.stdout, 'nothing the server fills in, in YAML meant for Git').not.to.match(
      /createdAt|updatedAt|version:|0001-01-01|project: ""/,
    );
    expect(Object.keys(dashboard.metadata)).to.deep.equal(['name', 'tags']);
    expect(dashboard.spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'prom',
    });
    expect(r.stderr).to.include(`# ${exportFile} -> Dashboard svc-overview`);
    expect(r.stderr.trim().split('\n').pop()).to.equal(
      '2 panels (2 mapped); 1 variables (1 mapped); 2 queries (2 mapped); 0 other settings; the web UI draws 2 of 2 panels',
    );
  });

  it('says which panels the web UI does not draw and why, the same locally and with --online', async () => {
    const file = fileURLToPath(new URL('../../test/data/grafana/traces-profiles-logs.json', import.meta.url));
    const local = await dashctl(config, ['migrate', '-f', file]);
    expect(local.code, show(local)).to.equal(0);
    expect(local.stderr).to.include(
      [
        'placeholder  panel nodeGraph "Service graph" -> Markdown (placeholder) at spec.panels.8',
        '             - dashplane has no plugin for it.',
        '             - not drawn by the web UI: only a text placeholder stands for it',
      ].join('\n'),
    );
    expect(local.stderr).to.match(
      /approximated panel timeseries "Checkout span rate" -> TimeSeriesChart at spec\.panels\.3\n( {13}- .*\n)* {13}- not drawn by the web UI: none of its queries could be migrated: it shows no data\n/,
    );
    expect(local.stderr.trim().split('\n').pop()).to.equal(
      '9 panels (2 mapped, 6 approximated, 1 placeholder); 4 variables (1 mapped, 3 approximated); 10 queries (6 mapped, 3 placeholder, 1 dropped); 0 other settings; the web UI draws 6 of 9 panels',
    );
    const online = await dashctl(config, ['migrate', '-f', file, '--online'], withServer());
    expect(online.code, show(online)).to.equal(0);
    expect(online.stderr).to.equal(local.stderr);
  });

  it('keeps the Loki variables of an export on the Loki datasource named by --input, not on Prometheus', async () => {
    const file = fileURLToPath(new URL('../../test/data/grafana/loki-variables-export.json', import.meta.url));
    const r = await dashctl(config, ['migrate', '-f', file, '--input', 'DS_LOGS=myloki', '-v']);
    expect(r.code, show(r)).to.equal(0);
    const plugins = parse(r.stdout).spec.variables.map((v: any) => v.spec.plugin);
    expect(plugins.map((p: any) => [p.kind, p.spec.datasource])).to.deep.equal([
      ['LokiLabelValuesVariable', { kind: 'LokiDatasource', name: 'myloki' }],
      ['LokiLabelValuesVariable', { kind: 'LokiDatasource', name: 'myloki' }],
      ['LokiLabelNamesVariable', { kind: 'LokiDatasource', name: 'myloki' }],
    ]);
    expect(r.stderr).not.to.include('Prometheus');
  });

  it("the README's example (examples/grafana/node-overview.json) migrates whole and is applied to a project", async () => {
    const example = fileURLToPath(new URL('../../examples/grafana/node-overview.json', import.meta.url));
    const local = await dashctl(config, ['migrate', '-f', example]);
    expect(local.code, show(local)).to.equal(0);
    expect(local.stderr.trim().split('\n').pop()).to.equal(
      '3 panels (3 mapped); 1 variables (1 mapped); 3 queries (3 mapped); 0 other settings; the web UI draws 3 of 3 panels',
    );
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'examples' }, spec: {} });
    const applied = await dashctl(config, ['migrate', '-f', example, '-p', 'examples', '--apply'], withServer());
    expect(applied.code, show(applied)).to.equal(0);
    const stored = await s.api('GET', '/api/v1/projects/examples/dashboards/node-overview-grafana');
    expect(stored.status, stored.text).to.equal(200);
    expect(Object.keys(stored.body.spec.panels)).to.have.length(3);
  });

  it('reads folders recursively and standard input, and prints JSON with -o json', async () => {
    const folder = await dashctl(config, ['migrate', '-f', join(dir.path, 'folder')]);
    expect(folder.code, show(folder)).to.equal(0);
    expect(parseAllDocuments(folder.stdout).map((d) => d.toJS().metadata.name)).to.deep.equal(['a', 'b']);
    const stdin = await dashctl(config, ['migrate', '-f', '-', '-o', 'json', '--verbose'], {
      input: JSON.stringify({ dashboard: GRAFANA_EXPORT }),
    });
    expect(stdin.code, show(stdin)).to.equal(0);
    expect(JSON.parse(stdin.stdout).spec.display.name).to.equal('Service overview');
    expect(stdin.stderr).to.match(/mapped +panel stat "Targets up" -> StatChart at spec\.panels\.0_0/);
  });

  it('says which file is not a Grafana dashboard, migrates the others, and exits 1', async () => {
    const r = await dashctl(config, ['migrate', '-f', join(dir.path, 'not-grafana.json'), '-f', exportFile]);
    expect(r.code, show(r)).to.equal(1);
    expect(r.stderr).to.include(
      `error: ${join(dir.path, 'not-grafana.json')}: the file is not a Grafana dashboard: it has no "panels", "rows", "title" or "templating"`,
    );
    expect(parse(r.stdout).metadata.name).to.equal('svc-overview');
    const bad = await dashctl(config, ['migrate', '-f', exportFile, '--input', 'DS_PROMETHEUS']);
    expect(bad.stderr).to.include('--input "DS_PROMETHEUS": write KEY=VALUE, e.g. --input DS_PROMETHEUS=prometheus');
    const noProject = await dashctl(config, ['migrate', '-f', exportFile, '--apply'], withServer());
    expect(noProject.code).to.equal(1);
    expect(noProject.stderr).to.match(/Dashboard is project-scoped: pass -p PROJECT/);
  });

  it('refuses files nested deeper than the server reads (INPUT-04: a 200 KB YAML bomb, deep JSON, on standard input too) before parsing them whole', async () => {
    const yamlBomb = join(dir.path, 'bomb.yaml');
    writeFileSync(yamlBomb, `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const jsonBomb = join(dir.path, 'bomb.json');
    writeFileSync(jsonBomb, `{"panels":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    for (const args of [
      ['-f', yamlBomb],
      ['-f', jsonBomb],
      ['-f', jsonBomb, '--online'],
    ]) {
      const r = await dashctl(config, ['migrate', ...args], withServer());
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr).to.include('nested more than 100 levels deep');
    }
    const piped = await dashctl(config, ['migrate', '-f', '-'], { input: `a: ${'{b: '.repeat(5_000)}1${'}'.repeat(5_000)}` });
    expect(piped.code, show(piped)).to.equal(1);
    expect(piped.stderr).to.include('<stdin>: nested more than 100 levels deep');
  });

  it('creates the dashboards in a project with --apply, under a new name when the name is taken', async () => {
    const first = await dashctl(config, ['migrate', '-f', exportFile, '--project', 'ops', '--apply'], withServer());
    expect(first.code, show(first)).to.equal(0);
    expect(first.stdout).to.equal('Dashboard ops/svc-overview created\n');
    const second = await dashctl(config, ['migrate', '-f', exportFile, '-p', 'ops', '--apply'], withServer());
    expect(second.stdout, show(second)).to.equal('Dashboard ops/svc-overview-2 created\n');
    expect(second.stderr).to.match(/already exists in the project: this one is named "svc-overview-2"/);
    expect(second.stderr).to.include('project "ops" has no default Prometheus datasource');
    await s.api('POST', '/api/v1/projects/ops/datasources', {
      kind: 'Datasource',
      metadata: { name: 'main' },
      spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://127.0.0.1:9' } } },
    });
    const named = await dashctl(config, ['migrate', '-f', exportFile, '-p', 'ops', '-o', 'json'], withServer());
    expect(JSON.parse(named.stdout).spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource, show(named)).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'main',
    });
    const input = await dashctl(
      config,
      ['migrate', '-f', exportFile, '-p', 'ops', '-o', 'json', '--input', 'DS_PROMETHEUS=thanos'],
      withServer(),
    );
    expect(JSON.parse(input.stdout).spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource, show(input)).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'thanos',
    });
    expect(input.stderr).not.to.include('"main"');
    const names = (await s.api('GET', '/api/v1/projects/ops/dashboards')).body.map((d: any) => d.metadata.name);
    expect(names).to.deep.equal(['svc-overview', 'svc-overview-2']);
    const missing = await dashctl(config, ['migrate', '-f', exportFile, '-p', 'nope', '--apply'], withServer());
    expect(missing.stderr).to.include('project "nope" does not exist');
  });

  it('gives the same dashboard with --online (POST /api/migrate) as locally', async () => {
    const local = await dashctl(config, ['migrate', '-f', exportFile, '-o', 'json']);
    const online = await dashctl(config, ['migrate', '-f', exportFile, '-o', 'json', '--online'], withServer());
    expect(online.code, show(online)).to.equal(0);
    expect(JSON.parse(online.stdout)).to.deep.equal(JSON.parse(local.stdout));
    expect(Object.keys(JSON.parse(online.stdout).metadata)).to.deep.equal(['name', 'tags']);
    expect(online.stderr).to.equal(local.stderr);
  });
});
