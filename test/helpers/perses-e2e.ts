/**
 * The framework of Perses' API end-to-end tests (internal/api/e2e/framework at v0.54), written
 * again for the replay suite (test/perses-e2e-*.test.ts): servers configured as Perses' test
 * servers are, the resources its builders make, and its scenarios (MainTestScenario,
 * MainTestScenarioWithProject, WriteTestScenario...) as mocha tests with Perses' subtest names.
 * Perses starts a server per subtest; here one server serves a scenario and every subtest removes
 * what it made.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from './server.js';

export type Obj = Record<string, any>;

/** Perses' DefaultConfig: authentication off, its test encryption key, ephemeral dashboards on. */
export const PERSES_ENV: Record<string, string> = {
  DASHPLANE_SECURITY_ENCRYPTION_KEY: '=tW$56zytgB&3jN2E%7-+qrGZE?v6LCc',
  DASHPLANE_EPHEMERAL_DASHBOARD_ENABLE: 'true',
};

/**
 * Perses' DefaultAuthConfig: authentication on, cookies SameSite=None and Secure, guests may read
 * everything and create projects; plus the administrator `alice` its WithServerAuthConfig signs in.
 */
export const PERSES_AUTH_ENV: Record<string, string> = {
  ...PERSES_ENV,
  DASHPLANE_SECURITY_ENABLE_AUTH: 'true',
  DASHPLANE_SECURITY_COOKIE_SAME_SITE: 'none',
  DASHPLANE_SECURITY_COOKIE_SECURE: 'true',
  DASHPLANE_SECURITY_AUTHORIZATION_GUEST_PERMISSIONS: JSON.stringify([
    { actions: ['read'], scopes: ['*'] },
    { actions: ['create'], scopes: ['Project'] },
  ]),
  DASHPLANE_ADMIN_USER: 'alice',
  DASHPLANE_ADMIN_PASSWORD: 'alice-password',
  DASHPLANE_SECURITY_AUTHENTICATION_PASSWORD_HASH_COST: '10',
};

export const startPersesServer = (env: Record<string, string> = {}) => startTestServer({ env: { ...PERSES_ENV, ...env } });
export const startPersesAuthServer = (env: Record<string, string> = {}) => startTestServer({ env: { ...PERSES_AUTH_ENV, ...env } });

/** The access token of a native login (asserting 200). */
export async function signIn(s: TestServer, login: string, password: string): Promise<string> {
  const r = await s.api('POST', '/api/auth/providers/native/login', { login, password });
  expect(r.status, r.text).to.equal(200);
  return r.body.access_token as string;
}

/** Creates an object through the API (Perses' CreateAndWaitUntilEntityExists writes to its database): the stored object. */
export async function createEntity(s: TestServer, entity: Obj, headers: Record<string, string> = {}): Promise<Obj> {
  const r = await s.api('POST', collection(entity), entity, headers);
  expect(r.status, `create ${entity.kind} ${entity.metadata.name}: ${r.text}`).to.equal(200);
  return r.body;
}

const PLURALS: Record<string, string> = {
  Dashboard: 'dashboards',
  EphemeralDashboard: 'ephemeraldashboards',
  Datasource: 'datasources',
  Variable: 'variables',
  Secret: 'secrets',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  Folder: 'folders',
  Project: 'projects',
  User: 'users',
  GlobalDatasource: 'globaldatasources',
  GlobalVariable: 'globalvariables',
  GlobalSecret: 'globalsecrets',
  GlobalRole: 'globalroles',
  GlobalRoleBinding: 'globalrolebindings',
};

/** The collection path of an object's kind (in its project, for project kinds). */
export function collection(entity: Obj): string {
  const plural = PLURALS[entity.kind];
  return entity.metadata.project ? `/api/v1/projects/${entity.metadata.project}/${plural}` : `/api/v1/${plural}`;
}

/** The path of one object. */
export const objectPath = (entity: Obj) => `${collection(entity)}/${entity.metadata.name}`;

const meta = (name: string, project?: string) => ({ name, ...(project !== undefined ? { project } : {}) });

export const newProject = (name: string): Obj => ({ kind: 'Project', metadata: meta(name), spec: {} });

/** Perses' newDatasourceSpec: Prometheus behind the HTTP proxy, with allowed endpoints. */
export function datasourceSpec(url = 'https://prometheus.demo.do.prometheus.io', allowed = true): Obj {
  const endpoints = [
    ['/api/v1/labels', 'POST'],
    ['/api/v1/series', 'POST'],
    ['/api/v1/metadata', 'GET'],
    ['/api/v1/query', 'POST'],
    ['/api/v1/query_range', 'POST'],
    ['/api/v1/label/([a-zA-Z0-9_-]+)/values', 'GET'],
  ].map(([endpointPattern, method]) => ({ endpointPattern, method }));
  return {
    default: false,
    plugin: {
      kind: 'PrometheusDatasource',
      spec: { proxy: { kind: 'HTTPProxy', spec: { url, ...(allowed ? { allowedEndpoints: endpoints } : {}) } } },
    },
  };
}

export const newDatasource = (project: string, name: string, spec = datasourceSpec()): Obj => ({
  kind: 'Datasource',
  metadata: meta(name, project),
  spec,
});
export const newGlobalDatasource = (name: string, spec = datasourceSpec()): Obj => ({
  kind: 'GlobalDatasource',
  metadata: meta(name),
  spec,
});

const labelNames = { kind: 'ListVariable', spec: { plugin: { kind: 'PrometheusLabelNamesVariable', spec: { matchers: ['up'] } } } };
export const newVariable = (project: string, name: string): Obj => ({ kind: 'Variable', metadata: meta(name, project), spec: labelNames });
export const newGlobalVariable = (name: string): Obj => ({ kind: 'GlobalVariable', metadata: meta(name), spec: labelNames });

const roleSpec = { permissions: [{ actions: ['create'], scopes: ['Variable', 'Datasource'] }] };
export const newRole = (project: string, name: string): Obj => ({ kind: 'Role', metadata: meta(name, project), spec: roleSpec });
export const newGlobalRole = (name: string, spec: Obj = roleSpec): Obj => ({ kind: 'GlobalRole', metadata: meta(name), spec });

const bindingSpec = { role: 'admin', subjects: [{ kind: 'User', name: 'alice' }] };
export const newRoleBinding = (project: string, name: string): Obj => ({
  kind: 'RoleBinding',
  metadata: meta(name, project),
  spec: bindingSpec,
});
export const newGlobalRoleBinding = (name: string): Obj => ({ kind: 'GlobalRoleBinding', metadata: meta(name), spec: bindingSpec });

const secretSpec = { basicAuth: { username: 'Basil', password: 'Detective' } };
/** A secret's spec as every answer shows it. */
export const publicSecretSpec = { basicAuth: { username: 'Basil', password: '<secret>' } };
export const newSecret = (project: string, name: string): Obj => ({ kind: 'Secret', metadata: meta(name, project), spec: secretSpec });
export const newGlobalSecret = (name: string): Obj => ({ kind: 'GlobalSecret', metadata: meta(name), spec: secretSpec });

export const newUser = (name: string, password = 'password'): Obj => ({
  kind: 'User',
  metadata: meta(name),
  spec: password ? { nativeProvider: { password } } : {},
});

/**
 * Perses' NewDashboard takes the first dashboard of its development data (dev/data): a Prometheus
 * datasource of its own, list, text, static and datasource variables, time series, gauge, stat
 * and markdown panels with queries, in a grid. This one has the same parts.
 */
export function newDashboard(project: string, name: string): Obj {
  const query = (q: string) => ({ kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: q } } } });
  const panel = (title: string, plugin: Obj, queries: Obj[] = []) => ({
    kind: 'Panel',
    spec: { display: { name: title }, plugin, ...(queries.length ? { queries } : {}) },
  });
  return {
    kind: 'Dashboard',
    metadata: meta(name, project),
    spec: {
      display: { name: 'Demo' },
      duration: '5m',
      datasources: {
        PrometheusLocal: {
          default: false,
          plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: 'http://localhost:9090' } } } },
        },
      },
      variables: [
        {
          kind: 'ListVariable',
          spec: {
            name: 'job',
            allowMultiple: false,
            allowAllValue: false,
            plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: 'job' } },
          },
        },
        { kind: 'ListVariable', spec: { name: 'interval', plugin: { kind: 'StaticListVariable', spec: { values: ['1m', '5m'] } } } },
        { kind: 'TextVariable', spec: { name: 'text', value: 'test', constant: true } },
        {
          kind: 'ListVariable',
          spec: { name: 'source', plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'PrometheusDatasource' } } },
        },
      ],
      panels: {
        cpu: panel('CPU', { kind: 'TimeSeriesChart', spec: { legend: { position: 'bottom' } } }, [
          query('rate(node_cpu_seconds_total{job="$job"}[$interval])'),
        ]),
        memory: panel('Memory', { kind: 'GaugeChart', spec: { calculation: 'last-number' } }, [query('node_memory_MemAvailable_bytes')]),
        up: panel('Up', { kind: 'StatChart', spec: { calculation: 'last-number' } }, [query('up')]),
        notes: panel('Notes', { kind: 'Markdown', spec: { text: '# $text' } }),
      },
      layouts: [
        {
          kind: 'Grid',
          spec: {
            display: { title: 'Node', collapse: { open: true } },
            items: ['cpu', 'memory', 'up', 'notes'].map((key, i) => ({
              x: (i % 2) * 12,
              y: Math.floor(i / 2) * 6,
              width: 12,
              height: 6,
              content: { $ref: `#/spec/panels/${key}` },
            })),
          },
        },
      ],
    },
  };
}

export function newEphemeralDashboard(project: string, name: string): Obj {
  const d = newDashboard(project, name);
  return { ...d, kind: 'EphemeralDashboard', spec: { ...d.spec, ttl: '1d' } };
}
