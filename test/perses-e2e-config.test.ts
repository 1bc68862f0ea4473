/**
 * Replay of Perses' e2e tests of server features (api/cors_test.go, proxy_test.go,
 * provisioning_test.go at v0.54): CORS as `security.cors` configures it, the datasource proxy
 * against a real Prometheus (Perses' CI runs one on localhost:9090), the SQL proxy against a real
 * PostgreSQL, provisioning from a folder.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createEntity,
  datasourceSpec,
  newDashboard,
  newDatasource,
  newGlobalDatasource,
  newProject,
  newRole,
  startPersesServer,
} from './helpers/perses-e2e.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startPrometheus, type RunningPrometheus } from './helpers/prometheus.js';
import { tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

describe('Perses e2e replay: CORS (api/cors_test.go)', function () {
  this.timeout(30_000);
  const preflight = (s: TestServer, origin: string) => s.raw('OPTIONS', '/api/v1/projects', undefined, { origin });
  const get = (s: TestServer, origin: string) => s.raw('GET', '/api/v1/projects', undefined, { origin });

  it('TestDefaultConfig', async () => {
    const s = await startPersesServer({ DASHPLANE_SECURITY_CORS_ENABLE: 'true' });
    try {
      const pre = await preflight(s, 'https://github.com');
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('*');
      expect(pre.headers.get('access-control-allow-methods')).to.equal('OPTIONS, GET, POST');
      const r = await get(s, 'https://github.com');
      expect(r.status).to.equal(200);
      expect(r.headers.get('access-control-allow-origin')).to.equal('*');
    } finally {
      await s.stop();
    }
  });

  it('TestCustomConfig', async () => {
    const s = await startPersesServer({
      DASHPLANE_SECURITY_CORS_ENABLE: 'true',
      DASHPLANE_SECURITY_CORS_ALLOW_ORIGINS: '["https://gitlab.com","https://github.com"]',
      DASHPLANE_SECURITY_CORS_ALLOW_METHODS: '["OPTIONS","GET"]',
      DASHPLANE_SECURITY_CORS_MAX_AGE: '86400',
    });
    try {
      const pre = await preflight(s, 'https://github.com');
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('https://github.com');
      expect(pre.headers.get('access-control-allow-methods')).to.equal('OPTIONS,GET');
      expect(pre.headers.get('access-control-max-age')).to.equal('86400');
      const r = await get(s, 'https://github.com');
      expect(r.status).to.equal(200);
      expect(r.headers.get('access-control-allow-origin')).to.equal('https://github.com');
      const refused = await preflight(s, 'https://google.com');
      expect(refused.status).to.equal(204);
      expect(refused.headers.get('access-control-allow-origin')).to.equal(null);
      expect(refused.headers.get('access-control-allow-methods')).to.equal(null);
      const other = await get(s, 'https://google.com');
      expect(other.status).to.equal(200);
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await s.stop();
    }
  });
});

describe('Perses e2e replay: datasource proxy (api/proxy_test.go)', function () {
  needsPrograms('prometheus');
  this.timeout(60_000);
  let prometheus: RunningPrometheus;
  let s: TestServer;
  /** newHTTPDatasourceSpec: Prometheus behind the HTTP proxy, no allowed endpoints. */
  let spec: ReturnType<typeof datasourceSpec>;
  before(async () => {
    prometheus = await startPrometheus();
    spec = datasourceSpec(prometheus.url, false);
  });
  beforeEach(async () => {
    s = await startPersesServer();
  });
  afterEach(() => s?.stop());
  after(() => prometheus?.stop());

  /** A dashboard of project perses with its own datasource `name` (Perses' newDashboard). */
  const dashboardWith = (name: string) => ({
    ...newDashboard('perses', 'myDashboard'),
    spec: { ...newDashboard('perses', 'myDashboard').spec, datasources: { [name]: spec } },
  });
  const config = async (path: string) => {
    const r = await s.raw('GET', `${path}/api/v1/status/config`);
    expect(r.status, r.text).to.equal(200);
    expect(r.body.status).to.equal('success');
  };

  it('TestHTTPProxyGlobalDatasource', async () => {
    await createEntity(s, newGlobalDatasource('myDTS', spec));
    await config('/proxy/globaldatasources/myDTS');
  });

  it('TestHTTPProxyProjectDatasource', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, newDatasource('perses', 'myDTS', spec));
    await config('/proxy/projects/perses/datasources/myDTS');
  });

  it('TestHTTPProxyLocalDatasource', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, dashboardWith('myDTS'));
    await config('/proxy/projects/perses/dashboards/myDashboard/datasources/myDTS');
  });

  it('TestHTTPProxyLocalDatasourceWithRealDashboard', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, dashboardWith('Victoria Metrics'));
    await config('/proxy/projects/perses/dashboards/myDashboard/datasources/Victoria%20Metrics');
  });
});

/**
 * The SQL proxy (a datasource behind `kind: SQLProxy`, docs/datasources.md). Perses' CI runs
 * PostgreSQL with a database `perses` and logs in from PGUSER/PGPASSWORD; here a throwaway cluster
 * and a Secret do (dashplane takes credentials from Secrets only).
 */
describe('Perses e2e replay: SQL datasource proxy (api/proxy_test.go)', function () {
  needsPrograms('postgresql');
  this.timeout(60_000);
  let cluster: TestPostgres;
  let db: { host: string; port: number; database: string };
  let s: TestServer;
  const PASSWORD = 'perses-e2e-password';
  /** newSQLDatasourceSpec: PostgreSQL behind the SQL proxy, sslMode prefer. */
  const sqlSpec = (secret: string) => ({
    default: false,
    plugin: {
      kind: 'PostgresDatasource',
      spec: {
        proxy: {
          kind: 'SQLProxy',
          spec: { driver: 'postgres', host: `127.0.0.1:${db.port}`, database: db.database, secret, postgres: { sslMode: 'prefer' } },
        },
      },
    },
  });
  const login = { basicAuth: { username: 'perses', password: PASSWORD } };
  before(async () => {
    cluster = await startPostgres();
    db = await cluster.createPasswordDatabase('perses', PASSWORD);
  });
  beforeEach(async () => {
    s = await startPersesServer();
  });
  afterEach(() => s?.stop());
  after(() => cluster?.stop());

  /** `SELECT datname FROM pg_database` through `path`: every database of the cluster is in the answer. */
  async function databases(path: string) {
    const r = await s.api('POST', path, { query: 'SELECT datname FROM pg_database' });
    expect(r.status, r.text).to.equal(200);
    for (const name of ['postgres', db.database, 'template1', 'template0']) expect(r.text).to.include(name);
  }

  it('TestSQLProxyBadMethod [differs: GET is 405 with Allow: POST, not 404]', async () => {
    await createEntity(s, { kind: 'GlobalSecret', metadata: { name: 'mySQLDTS' }, spec: login });
    await createEntity(s, newGlobalDatasource('mySQLDTS', sqlSpec('mySQLDTS')));
    const r = await s.raw('GET', '/proxy/globaldatasources/mySQLDTS');
    expect(r.status, r.text).to.equal(405);
    expect(r.headers.get('allow')).to.equal('POST');
  });

  it('TestSQLProxyGlobalDatasource', async () => {
    await createEntity(s, { kind: 'GlobalSecret', metadata: { name: 'mySQLDTS' }, spec: login });
    await createEntity(s, newGlobalDatasource('mySQLDTS', sqlSpec('mySQLDTS')));
    await databases('/proxy/globaldatasources/mySQLDTS');
  });

  it('TestSQLProxyProjectDatasource', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, { kind: 'Secret', metadata: { name: 'login', project: 'perses' }, spec: login });
    await createEntity(s, newDatasource('perses', 'mySQLDTS', sqlSpec('login')));
    await databases('/proxy/projects/perses/datasources/mySQLDTS');
  });

  it('TestSQLProxyLocalDatasource', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, { kind: 'Secret', metadata: { name: 'login', project: 'perses' }, spec: login });
    const dashboard = newDashboard('perses', 'myDashboard');
    await createEntity(s, { ...dashboard, spec: { ...dashboard.spec, datasources: { mySQLDTS: sqlSpec('login') } } });
    await databases('/proxy/projects/perses/dashboards/myDashboard/datasources/mySQLDTS');
  });
});

/**
 * Provisioning (`provisioning: {folders, interval}`, docs/provisioning.md). Perses calls its
 * provisioning service directly; here the server reads the folder it is configured with.
 */
describe('Perses e2e replay: provisioning (api/provisioning_test.go)', function () {
  this.timeout(60_000);
  let dir: { path: string; remove(): void };
  let s: TestServer | undefined;
  beforeEach(() => {
    dir = tempDir('perses-provisioning-');
  });
  afterEach(async () => {
    await s?.stop();
    dir.remove();
  });
  const write = (file: string, entity: Record<string, unknown>) => writeFileSync(join(dir.path, file), JSON.stringify(entity));
  const provisioned = () =>
    startPersesServer({ DASHPLANE_PROVISIONING_FOLDERS: JSON.stringify([dir.path]), DASHPLANE_PROVISIONING_INTERVAL: '1s' });

  it('TestProvisioningSkipsResourcesInUnknownProject', async () => {
    write('valid.json', newRole('existingproject', 'valid'));
    write('orphan.json', newRole('unknownproject', 'orphan'));
    s = await provisioned();
    await createEntity(s, newProject('existingproject'));
    // the next pass provisions the role of the project that now exists, never the other one
    await waitFor(
      'the role of the existing project',
      async () => (await s!.api('GET', '/api/v1/projects/existingproject/roles/valid')).status === 200,
    );
    expect((await s.api('GET', '/api/v1/roles?project=unknownproject')).body).to.deep.equal([]);
  });

  it('TestProvisioningCreatesProjectBeforeItsResources', async () => {
    write('a_role.json', newRole('batchproject', 'batchrole'));
    write('z_project.json', newProject('batchproject'));
    s = await provisioned();
    await waitFor(
      'the role of the project provisioned with it',
      async () => (await s!.api('GET', '/api/v1/projects/batchproject/roles/batchrole')).status === 200,
    );
    expect((await s.api('GET', '/api/v1/projects/batchproject')).status).to.equal(200);
  });
});
