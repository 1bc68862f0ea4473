/**
 * Replay of Perses' e2e tests of validation, schemas and migration (api/validate_test.go,
 * validate_promql_test.go, schema_test.go, migrate_test.go at v0.54). Deliberate differences are
 * marked "[differs: ...]" and listed in docs/api.md; a feature dashplane lacks is pending, naming it.
 */
import { expect } from 'chai';
import { sortKeys, hasGrafanaCorpus, NO_CORPUS, persesCases } from './helpers/grafana-corpus.js';
import { newDashboard, startPersesServer, type Obj } from './helpers/perses-e2e.js';
import type { TestServer } from './helpers/server.js';

const VALIDATE = '/api/validate/dashboards';

/** Perses' testdata/dashboard.json: project perses, dashboard myDashboard, its own datasource "Victoria Metrics". */
function testdataDashboard(): Obj {
  const d = newDashboard('perses', 'myDashboard');
  const victoria = {
    default: true,
    plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: 'http://localhost:8428' } } } },
  };
  return { ...d, spec: { ...d.spec, datasources: { 'Victoria Metrics': victoria } } };
}

/** The dashboards of validate_promql_test.go: one panel whose query is `query`. */
function promqlDashboard(name: string, query: string): Obj {
  const panel = {
    kind: 'Panel',
    spec: {
      display: { name: 'Panel' },
      plugin: { kind: 'TimeSeriesChart', spec: {} },
      queries: [{ kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query } } } }],
    },
  };
  return {
    kind: 'Dashboard',
    metadata: { name, project: 'perses' },
    spec: { display: { name }, duration: '5m', panels: { p1: panel }, layouts: [] },
  };
}

describe('Perses e2e replay: validation (api/validate_test.go, validate_promql_test.go)', function () {
  this.timeout(30_000);
  let s: TestServer;
  before(async () => {
    s = await startPersesServer();
  });
  after(() => s?.stop());
  const validate = (body: unknown) => s.api('POST', VALIDATE, body);

  it('TestValidateDashboardEndpoint', async () => {
    expect((await validate(testdataDashboard())).status).to.equal(200);
  });

  it('TestValidateDashboardEndpoint_WithGeneratedDashboard', async () => {
    expect((await validate(newDashboard('perses', 'myDashboard'))).status).to.equal(200);
  });

  it('TestValidateDashboardEndpoint_InvalidBody', async () => {
    expect((await s.raw('POST', VALIDATE, '{"kind": "Dashboard", "metadata": {', { 'content-type': 'application/json' })).status).to.equal(
      400,
    );
  });

  it('TestValidateDashboardEndpoint_InvalidVariableName', async () => {
    const d = testdataDashboard();
    const r = await validate({
      ...d,
      spec: { ...d.spec, variables: [{ kind: 'TextVariable', spec: { name: '__forbidden', value: 'foo' } }] },
    });
    expect(r.status).to.equal(400);
    expect(r.body.message).to.include('builtin variable prefix');
  });

  // the rule in dashplane's words (a name that is only dots breaks the start-or-end rule first)
  const CHARACTERS = 'it may only contain a-z, A-Z, 0-9, "_", "-" and "." (no spaces, slashes or other characters)';
  const DOTS = 'it must not contain ".." (as in Perses: it would read as a parent folder in a path)';
  const ENDS = 'it must not start or end with "."';
  for (const [title, path, value, rule] of [
    ['project with relative path traversal', 'project', '../../etc', CHARACTERS],
    ['project with relative path traversal using backslash', 'project', '..\\..\\etc', CHARACTERS],
    ['project with absolute path', 'project', '/etc/passwd', CHARACTERS],
    ['project with sub-directory', 'project', 'perses/other', CHARACTERS],
    ['project with URL encoded path traversal', 'project', '..%2F..%2Fetc', CHARACTERS],
    ['project is only double dot', 'project', '..', ENDS],
    ['project contains double dot', 'project', 'perses..other', DOTS],
    ['project is only a single dot', 'project', '.', ENDS],
    ['project starting with a dot', 'project', '.hidden', ENDS],
    ['project ending with a dot', 'project', 'perses.', ENDS],
    ['project with null byte', 'project', 'perses\u0000', CHARACTERS],
    ['name with relative path traversal', 'name', '../../etc/passwd', CHARACTERS],
    ['name with sub-directory', 'name', 'myDashboard/other', CHARACTERS],
    ['name is only double dot', 'name', '..', ENDS],
  ]) {
    it(`TestValidateDashboardEndpoint_PathTraversal/${title} [differs: the message is dashplane's, naming metadata.${path} and the rule]`, async () => {
      const d = testdataDashboard();
      const r = await validate({ ...d, metadata: { ...d.metadata, [path]: value } });
      expect(r.status).to.equal(400);
      const detail = r.body.details.find((x: { path: string }) => x.path === `metadata.${path}`);
      expect(detail?.message, JSON.stringify(r.body)).to.equal(`the ${path === 'name' ? 'name' : 'project name'} is invalid: ${rule}`);
    });
  }

  for (const project of ['perses', 'my-project', 'my_project', 'my.project', 'MyProject123']) {
    it(`TestValidateDashboardEndpoint_ValidProjectNames/${project}`, async () => {
      const d = testdataDashboard();
      const r = await validate({ ...d, metadata: { ...d.metadata, project } });
      expect(r.status, r.text).to.equal(200);
    });
  }

  it('TestValidateDashboardWithInvalidPromQL', async () => {
    const r = await validate(promqlDashboard('test-invalid-promql', 'rate(up[)'));
    expect(r.status).to.equal(400);
    expect(r.text).to.include('invalid PromQL');
    expect(r.body.details).to.deep.equal([
      { path: 'spec.panels.p1.spec.queries[0].spec.plugin.spec.query', message: 'invalid PromQL at line 1, column 9: unexpected ")"' },
    ]);
  });

  it('TestValidateDashboardWithValidPromQL', async () => {
    expect((await validate(promqlDashboard('test-valid-promql', 'rate(http_requests_total[5m])'))).status).to.equal(200);
  });

  it('TestValidateDashboardWithVariableRefInPromQL', async () => {
    expect(
      (await validate(promqlDashboard('test-variable-promql', 'rate(http_requests_total{namespace="$namespace"}[5m])'))).status,
    ).to.equal(200);
  });
});

describe('Perses e2e replay: schemas (api/schema_test.go) [differs: dashplane serves the JSON Schemas it validates with, not CUE]', function () {
  this.timeout(30_000);
  let s: TestServer;
  before(async () => {
    s = await startPersesServer();
  });
  after(() => s?.stop());

  it('TestGetSchemaDashboard [differs: application/json, a JSON Schema titled Dashboard]', async () => {
    const r = await s.raw('GET', '/api/v1/schemas/dashboards');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/json/);
    expect(r.body.title).to.equal('Dashboard');
  });

  it('TestGetSchemaPluginList [differs: GET /api/v1/plugins lists the plugins; /api/v1/schemas/plugins alone is a 404]', async () => {
    expect((await s.raw('GET', '/api/v1/plugins')).status).to.equal(200);
    expect((await s.raw('GET', '/api/v1/schemas/plugins')).status).to.equal(404);
  });

  it('TestGetSchemaPluginDefinitionNotFound [differs: the message names the plugin and where the list is]', async () => {
    const r = await s.raw('GET', '/api/v1/schemas/plugins/NonExistentPlugin');
    expect(r.status).to.equal(404);
    expect(r.body.message).to.equal('unknown plugin kind "NonExistentPlugin" (GET /api/v1/plugins lists them)');
  });

  it('TestGetSchemaPluginDefinitionWithRealPlugins [differs: application/json]', async () => {
    const r = await s.raw('GET', '/api/v1/schemas/plugins/TimeSeriesChart');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/json/);
  });
});

describe('Perses e2e replay: migration (api/migrate_test.go)', function () {
  this.timeout(30_000);
  const available = hasGrafanaCorpus();
  let s: TestServer;
  before(async function () {
    if (!available) {
      console.log(`    ${NO_CORPUS}`);
      this.skip();
    }
    s = await startPersesServer();
  });
  after(() => s?.stop());

  it("TestMigrateEndpoint/empty grafana dashboard [differs: Grafana's time range (now-6h) and time zone (utc) are kept]", async () => {
    const c = persesCases().find((x) => x.name === 'internal_api_e2e_api_testdata_empty')!;
    const r = await s.api('POST', '/api/migrate', { grafanaDashboard: c.input });
    expect(r.status, r.text).to.equal(200);
    const expected = { ...c.expected, spec: { ...c.expected.spec, duration: '6h', timezone: 'UTC' } };
    expect(sortKeys(r.body)).to.deep.equal(sortKeys(expected));
  });
});
