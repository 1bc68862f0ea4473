import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, loginAdmin, signUp, login, startAuthServer, type Tokens } from './helpers/auth.js';
import { corpusDashboards, grafanaPanels, hasGrafanaCorpus } from './helpers/grafana-corpus.js';
import { GRAFANA_EXPORT } from './helpers/grafana-export.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('POST /api/migrate', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.stop();
  });

  it("answers Perses' request shape with the Perses dashboard, stores nothing, and sums up the report in a header", async () => {
    const r = await s.api('POST', '/api/migrate', { input: { DS_PROMETHEUS: 'prometheus' }, grafanaDashboard: GRAFANA_EXPORT });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.kind).to.equal('Dashboard');
    expect(r.body.metadata.name).to.equal('svc-overview');
    expect(r.body.spec.duration).to.equal('30m');
    expect(r.body.spec.layouts[0].spec.display.title).to.equal('Health');
    expect(r.body.spec.panels['0_1'].spec.queries[0].spec.plugin.spec).to.deep.equal({
      datasource: { kind: 'PrometheusDatasource', name: 'prometheus' },
      query: 'scrape_duration_seconds{job="$job"}',
      seriesNameFormat: '{{instance}}',
    });
    const summary = JSON.parse(r.headers.get('x-migration-summary')!);
    expect(summary.panels).to.include({ total: 2, placeholder: 0 });
    expect(summary.variables.total).to.equal(1);
    expect((await s.api('GET', '/api/v1/dashboards')).body).to.deep.equal([]);
  });

  it('gives the full report with ?report=true, and the answer applies to a project as is', async () => {
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'ops' }, spec: {} });
    const r = await s.api('POST', '/api/migrate?report=true&project=ops', { grafanaDashboard: { dashboard: GRAFANA_EXPORT, meta: {} } });
    expect(r.status, r.text).to.equal(200);
    expect(Object.keys(r.body)).to.deep.equal(['dashboard', 'report']);
    expect(r.body.report.entries.map((e: any) => `${e.subject} ${e.outcome}`)).to.include.members([
      'panel mapped',
      'variable mapped',
      'dashboard approximated',
    ]);
    expect(r.body.dashboard.metadata.project).to.equal('ops');
    expect(r.body.report.entries.find((e: any) => e.subject === 'dashboard').notes).to.include(
      'project "ops" has no default Prometheus datasource (nor is there a global one): the queries name none and fail until one is made the default',
    );
    const created = await s.api('POST', '/api/v1/projects/ops/dashboards', r.body.dashboard);
    expect(created.status, created.text).to.equal(200);
    // a second import of the same dashboard gets another name instead of replacing the first
    const again = await s.api('POST', '/api/migrate?report=true&project=ops', { grafanaDashboard: GRAFANA_EXPORT });
    expect(again.body.dashboard.metadata.name).to.equal('svc-overview-2');
    expect(again.body.report.entries.find((e: any) => e.subject === 'dashboard').notes.join()).to.match(/already exists in the project/);
  });

  it("makes every Prometheus query name ?datasource=, or else the project's default Prometheus datasource", async () => {
    await s.api('POST', '/api/v1/projects/ops/datasources', {
      kind: 'Datasource',
      metadata: { name: 'thanos' },
      spec: { plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://127.0.0.1:9' } } },
    });
    await s.api('POST', '/api/v1/projects/ops/datasources', {
      kind: 'Datasource',
      metadata: { name: 'logs' },
      spec: { plugin: { kind: 'LokiDatasource', spec: { directUrl: 'http://loki:3100' } } },
    });
    const r = await s.api('POST', '/api/migrate?project=ops&datasource=thanos', { grafanaDashboard: GRAFANA_EXPORT });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.spec.variables[0].spec.plugin.spec.datasource).to.deep.equal({ kind: 'PrometheusDatasource', name: 'thanos' });
    const missing = await s.api('POST', '/api/migrate?project=ops&datasource=nope', { grafanaDashboard: GRAFANA_EXPORT });
    expect(missing.status).to.equal(400);
    expect(missing.body.message).to.match(/^datasource: there is no datasource "nope" in project "ops"/);
    const wrong = await s.api('POST', '/api/migrate?project=ops&datasource=logs', { grafanaDashboard: GRAFANA_EXPORT });
    expect(wrong.body.message).to.equal('datasource: "logs" is a LokiDatasource datasource; the migrated queries need a Prometheus one');
    await s.api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'everyone' },
      spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://127.0.0.1:9' } } },
    });
    const global = await s.api('POST', '/api/migrate?project=ops', { grafanaDashboard: GRAFANA_EXPORT });
    expect(global.body.spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'everyone',
    });
    await s.api('POST', '/api/v1/projects/ops/datasources', {
      kind: 'Datasource',
      metadata: { name: 'main' },
      spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://127.0.0.1:9' } } },
    });
    const own = await s.api('POST', '/api/migrate?project=ops', { grafanaDashboard: GRAFANA_EXPORT });
    expect(own.body.spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'main',
    });
    // a datasource named through input is kept: neither the project's default nor ?datasource= replaces it
    for (const path of ['/api/migrate?project=ops', '/api/migrate?project=ops&datasource=main']) {
      const input = await s.api('POST', path, { grafanaDashboard: GRAFANA_EXPORT, input: { DS_PROMETHEUS: 'thanos' } });
      expect(input.status, input.text).to.equal(200);
      expect(input.body.spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource, path).to.deep.equal({
        kind: 'PrometheusDatasource',
        name: 'thanos',
      });
      expect(input.body.spec.variables[0].spec.plugin.spec.datasource, path).to.deep.equal({
        kind: 'PrometheusDatasource',
        name: 'thanos',
      });
    }
    const none = await s.api('POST', '/api/migrate?project=ops', { grafanaDashboard: GRAFANA_EXPORT, useDefaultDatasource: true });
    expect(none.body.spec.panels['0_0'].spec.queries[0].spec.plugin.spec.datasource).to.equal(undefined);
  });

  it('says per panel and variable whether the web UI draws it, from the catalog of plugins it bundles', async () => {
    const grafana = JSON.parse(readFileSync(join(process.cwd(), 'test', 'data', 'grafana', 'traces-profiles-logs.json'), 'utf8'));
    const r = await s.api('POST', '/api/migrate?report=true', { grafanaDashboard: grafana });
    expect(r.status, r.text).to.equal(200);
    const verdicts = r.body.report.entries
      .filter((e: any) => e.render)
      .map((e: any) => `${e.subject} ${e.source}: ${e.render.renders ? 'drawn' : e.render.reasons.join('; ')}`);
    expect(verdicts).to.deep.equal([
      'panel traces "Selected trace": drawn',
      'panel table "Slow payments": drawn',
      'panel table "Failed cart requests": drawn',
      'panel timeseries "Checkout span rate": none of its queries could be migrated: it shows no data',
      'panel flamegraph "Checkout CPU profile": drawn',
      'panel timeseries "Memory in use by pod": none of its queries could be migrated: it shows no data',
      'panel logs "Checkout errors": drawn',
      'panel timeseries "Log lines by level": drawn',
      'panel nodeGraph "Service graph": only a text placeholder stands for it',
      'variable datasource variable "tempo": drawn',
      'variable datasource variable "logs": drawn',
      'variable custom variable "trace_id": drawn',
    ]);
    expect(JSON.parse(r.headers.get('x-migration-summary')!).panels).to.deep.equal({
      total: 9,
      mapped: 2,
      approximated: 6,
      unrendered: 0,
      placeholder: 1,
      dropped: 0,
    });
  });

  it('answers every mistake with a 400 or 404 that names the field and the fix', async () => {
    const cases: [string, unknown, number, RegExp][] = [
      ['/api/migrate', { input: {} }, 400, /^grafanaDashboard cannot be empty/],
      ['/api/migrate', { grafanaDashboard: { foo: 1 } }, 400, /^grafanaDashboard is not a Grafana dashboard/],
      ['/api/migrate', { grafanaDashboard: { kind: 'Dashboard', metadata: {}, spec: {} } }, 400, /already a Perses dashboard/],
      [
        '/api/migrate',
        {
          grafanaDashboard: {
            apiVersion: 'dashboard.grafana.app/v2beta1',
            kind: 'Dashboard',
            metadata: { name: 'x' },
            spec: { title: 'x', elements: {}, layout: {} },
          },
        },
        400,
        /^grafanaDashboard is a Grafana dashboard in the v2 schema \(apiVersion dashboard\.grafana\.app\/v2beta1.*export the classic JSON model instead/,
      ],
      ['/api/migrate', { grafanaDashboard: GRAFANA_EXPORT, input: { DS_PROMETHEUS: 3 } }, 400, /^input\.DS_PROMETHEUS must be a string/],
      [
        '/api/migrate',
        { grafanaDashboard: GRAFANA_EXPORT, useDefaultDatasource: 'yes' },
        400,
        /^useDefaultDatasource must be true or false/,
      ],
      ['/api/migrate?name=has%20space', { grafanaDashboard: GRAFANA_EXPORT }, 400, /^name: "has space" is not a valid dashboard name/],
      ['/api/migrate?project=absent', { grafanaDashboard: GRAFANA_EXPORT }, 404, /^project: there is no project "absent"/],
    ];
    for (const [path, body, status, message] of cases) {
      const r = await s.api('POST', path, body);
      expect(r.status, `${path} ${JSON.stringify(body).slice(0, 80)}: ${r.text}`).to.equal(status);
      expect(r.body.message).to.match(message);
    }
  });

  it('migrates a real dashboard of the corpus (legacy rows) that the server then accepts', async function () {
    if (!hasGrafanaCorpus()) this.skip();
    const d = corpusDashboards().find((x) => x.file.startsWith('rfmoz__grafana-dashboards__prometheus_node-exporter-full-old'))!;
    const r = await s.api('POST', '/api/migrate?project=ops', { grafanaDashboard: d.json });
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body.spec.panels).length).to.equal(grafanaPanels(d.json).length);
    const created = await s.api('POST', '/api/v1/projects/ops/dashboards', r.body);
    expect(created.status, created.text.slice(0, 500)).to.equal(200);
  });
});

describe('POST /api/migrate with authentication on', () => {
  let s: TestServer;
  let admin: Tokens;
  before(async () => {
    s = await startAuthServer();
    admin = await loginAdmin(s);
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'private' }, spec: {} }, bearer(admin));
  });
  after(async () => {
    await s?.stop();
  });

  it('needs a signed-in user, and ?project= needs read access to that project', async () => {
    const anonymous = await s.api('POST', '/api/migrate', { grafanaDashboard: GRAFANA_EXPORT });
    expect(anonymous.status).to.equal(401);
    await signUp(s, 'carol');
    const carol = await login(s, 'carol');
    const ok = await s.api('POST', '/api/migrate', { grafanaDashboard: GRAFANA_EXPORT }, bearer(carol));
    expect(ok.status, ok.text).to.equal(200);
    const other = await s.api('POST', '/api/migrate?project=private', { grafanaDashboard: GRAFANA_EXPORT }, bearer(carol));
    expect(other.status, other.text).to.equal(403);
  });
});
