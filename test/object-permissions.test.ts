/**
 * Object-level permissions (issue 20): a Role permission naming objects (`resources`) or folders
 * (`folders`: a folder and the dashboards it lists, sub-folders included), so a team owns a folder
 * in a shared project. Checked through every route form: get, list (one project, every project,
 * metadata only, pages), watch, history, restore, the datasource proxy (project and
 * dashboard-local) and dry runs; a folder change holds at the next request, on every replica.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { WatchStream } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

type Auth = Record<string, string>;

async function must(s: TestServer, auth: Auth, method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.api(method, path, body, auth);
  expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  return r.body;
}
const status = async (s: TestServer, auth: Auth, method: string, path: string, body?: unknown) =>
  (await s.api(method, path, body, auth)).status;

const proxyBlock = (url: string) => ({ proxy: { kind: 'HTTPProxy', spec: { url } } });
const dashboard = (name: string, upstream?: string, title = name) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: {
    display: { name: title },
    duration: '1h',
    panels: {},
    layouts: [],
    ...(upstream
      ? { datasources: { local: { default: false, plugin: { kind: 'PrometheusDatasource', spec: proxyBlock(upstream) } } } }
      : {}),
  },
});
const folder = (name: string, items: unknown[]) => ({ kind: 'Folder', metadata: { name }, spec: { items } });
const OPS_ITEMS = [
  { kind: 'Dashboard', name: 'ops-1' },
  { kind: 'Folder', name: 'deep', items: [{ kind: 'Dashboard', name: 'ops-2' }] },
];
const P = '/api/v1/projects/shared';

/** Project `shared`: folders ops (ops-1, deep/ops-2) and web (web-1), dashboard lonely, datasources prom and other; Group `ops-<tag>` (member `user`) owns folder ops and may read prom. */
async function setUp(s: TestServer, upstream: string, user: string, tag: string): Promise<void> {
  const admin = bearer(await loginAdmin(s));
  await must(s, admin, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'shared' }, spec: {} });
  for (const d of ['ops-1', 'ops-2', 'web-1', 'lonely']) await must(s, admin, 'POST', `${P}/dashboards`, dashboard(d, upstream));
  await must(s, admin, 'POST', `${P}/folders`, folder('ops', OPS_ITEMS));
  await must(s, admin, 'POST', `${P}/folders`, folder('web', [{ kind: 'Dashboard', name: 'web-1' }]));
  for (const ds of ['prom', 'other'])
    await must(s, admin, 'POST', `${P}/datasources`, {
      kind: 'Datasource',
      metadata: { name: ds },
      spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: proxyBlock(upstream) } },
    });
  const permissions = [
    { actions: ['*'], scopes: ['Dashboard', 'Folder'], folders: ['ops'] },
    { actions: ['read'], scopes: ['Datasource'], resources: ['prom'] },
  ];
  await must(s, admin, 'POST', `${P}/roles`, { kind: 'Role', metadata: { name: 'ops-team' }, spec: { permissions } });
  // a group lists users that exist
  await signUp(s, user);
  await must(s, admin, 'POST', '/api/v1/groups', { kind: 'Group', metadata: { name: `ops-${tag}` }, spec: { members: [user] } });
  await must(s, admin, 'POST', `${P}/rolebindings`, {
    kind: 'RoleBinding',
    metadata: { name: 'ops-team' },
    spec: { role: 'ops-team', subjects: [{ kind: 'Group', name: `ops-${tag}` }] },
  });
}

const names = (items: any[]) => items.map((o) => o.metadata.name).sort();

describe('object-level permissions: resources and folders (issue 20)', function () {
  this.timeout(60_000);
  let upstream: Server;
  let upstreamUrl: string;
  let calls = 0;

  before(async () => {
    upstream = createServer((_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"success"}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => upstream.close(() => r())));

  describe('on LevelDB', () => {
    let s: TestServer;
    let admin: Auth;
    let olga: Auth;
    before(async () => {
      s = await startAuthServer({ DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s', ...LOOPBACK_UPSTREAMS });
      await setUp(s, upstreamUrl, 'olga', 'lvl');
      admin = bearer(await loginAdmin(s));
      olga = bearer(await login(s, 'olga'));
    });
    after(() => s?.stop());

    it('get: the folder, its dashboards (sub-folders included) and the named datasource; nothing else', async () => {
      for (const [path, want] of [
        [`${P}/dashboards/ops-1`, 200],
        [`${P}/dashboards/ops-2`, 200],
        [`${P}/folders/ops`, 200],
        [`${P}/datasources/prom`, 200],
        [`${P}/dashboards/web-1`, 403],
        [`${P}/dashboards/lonely`, 403],
        [`${P}/folders/web`, 403],
        [`${P}/datasources/other`, 403],
        [`${P}/variables`, 403],
      ] as const) {
        expect(await status(s, olga, 'GET', path), path).to.equal(want);
      }
    });

    it('lists: one project, every project, metadata only and pages show exactly those objects', async () => {
      expect(names(await must(s, olga, 'GET', `${P}/dashboards`))).to.deep.equal(['ops-1', 'ops-2']);
      expect(names(await must(s, olga, 'GET', '/api/v1/dashboards'))).to.deep.equal(['ops-1', 'ops-2']);
      expect(names(await must(s, olga, 'GET', `${P}/dashboards?metadata_only=true`))).to.deep.equal(['ops-1', 'ops-2']);
      expect(names(await must(s, olga, 'GET', `${P}/folders`))).to.deep.equal(['ops']);
      expect(names(await must(s, olga, 'GET', `${P}/datasources`))).to.deep.equal(['prom']);
      const first = await s.api('GET', `${P}/dashboards?limit=1`, undefined, olga);
      expect(names(first.body)).to.deep.equal(['ops-1']);
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1];
      expect(names(await must(s, olga, 'GET', next))).to.deep.equal(['ops-2']);
      expect(await status(s, olga, 'GET', `${P}/variables`), 'a kind with no permission at all').to.equal(403);
    });

    it('watch: only those objects, and a dashboard moved into the folder from then on', async () => {
      const w = await WatchStream.must(`${s.url}${P}/dashboards?watch=true`, olga);
      try {
        await w.waitForChanges(2);
        expect(w.summary()).to.deep.equal(['ADDED shared/ops-1', 'ADDED shared/ops-2']);
        await must(s, admin, 'PUT', `${P}/dashboards/web-1`, dashboard('web-1', upstreamUrl, 'web one'));
        await must(s, admin, 'PUT', `${P}/dashboards/ops-1`, dashboard('ops-1', upstreamUrl, 'ops one'));
        await w.waitForChanges(3);
        await must(s, admin, 'PUT', `${P}/folders/ops`, folder('ops', [...OPS_ITEMS, { kind: 'Dashboard', name: 'web-1' }]));
        await must(s, admin, 'PUT', `${P}/dashboards/web-1`, dashboard('web-1', upstreamUrl, 'web two'));
        const last = await w.waitForChanges(4);
        await w.settle(last[3].revision);
        expect(w.summary()).to.deep.equal(['ADDED shared/ops-1', 'ADDED shared/ops-2', 'MODIFIED shared/ops-1', 'MODIFIED shared/web-1']);
      } finally {
        await w.close();
        await must(s, admin, 'PUT', `${P}/folders/ops`, folder('ops', OPS_ITEMS));
      }
    });

    it('search: only the folder, its dashboards and the named datasource are found', async () => {
      const found = async (query: string, auth: Auth) =>
        (await must(s, auth, 'GET', `/api/v1/search?query=${encodeURIComponent(query)}`)).map((h: any) => `${h.kind}:${h.name}`).sort();
      expect(await found('ops', olga)).to.deep.equal(['Dashboard:ops-1', 'Dashboard:ops-2', 'Folder:ops']);
      expect(await found('ops', admin)).to.deep.equal(['Dashboard:ops-1', 'Dashboard:ops-2', 'Folder:ops']);
      expect(await found('web', olga)).to.deep.equal([]);
      expect(await found('lonely', olga)).to.deep.equal([]);
      // the dashboards' own datasources are PrometheusDatasources
      expect(await found('prom', olga)).to.deep.equal(['Dashboard:ops-1', 'Dashboard:ops-2', 'Datasource:prom']);
      expect(await found('other', olga)).to.deep.equal([]);
      expect(await found('web', admin)).to.deep.equal(['Dashboard:web-1', 'Folder:web']);
    });

    it('history: versions, a version and restore of covered dashboards only', async () => {
      expect(await status(s, olga, 'GET', `${P}/dashboards/ops-1/versions`)).to.equal(200);
      expect(await status(s, olga, 'GET', `${P}/dashboards/ops-1/versions/0`)).to.equal(200);
      expect(await status(s, olga, 'GET', `${P}/dashboards/web-1/versions`)).to.equal(403);
      expect(await status(s, olga, 'GET', `${P}/dashboards/web-1/versions/0`)).to.equal(403);
      expect(await status(s, olga, 'POST', `${P}/dashboards/web-1/versions/0/restore`)).to.equal(403);
      expect(await status(s, olga, 'POST', `${P}/dashboards/ops-1/versions/0/restore`)).to.equal(200);
    });

    it("proxy: the named datasource and covered dashboards' own datasources only; refused calls never reach the upstream", async () => {
      const before = calls;
      expect(await status(s, olga, 'GET', `/proxy/projects/shared/datasources/prom/api/v1/query?query=up`)).to.equal(200);
      expect(await status(s, olga, 'GET', `/proxy/projects/shared/dashboards/ops-2/datasources/local/api/v1/query?query=up`)).to.equal(200);
      expect(calls - before).to.equal(2);
      expect(await status(s, olga, 'GET', `/proxy/projects/shared/datasources/other/api/v1/query?query=up`)).to.equal(403);
      expect(await status(s, olga, 'GET', `/proxy/projects/shared/dashboards/web-1/datasources/local/api/v1/query?query=up`)).to.equal(403);
      expect(calls - before, 'no upstream call for a refused one').to.equal(2);
    });

    it('dry runs and writes: within the folder only; a dashboard is created by listing its name first', async () => {
      expect(await status(s, olga, 'PUT', `${P}/dashboards/ops-1?dryRun=true`, dashboard('ops-1', upstreamUrl, 'dry'))).to.equal(200);
      expect(await status(s, olga, 'PUT', `${P}/dashboards/web-1?dryRun=true`, dashboard('web-1'))).to.equal(403);
      expect(await status(s, olga, 'DELETE', `${P}/dashboards/web-1?dryRun=true`)).to.equal(403);
      expect(await status(s, olga, 'POST', `${P}/dashboards?dryRun=true`, dashboard('ops-3'))).to.equal(403);
      await must(s, olga, 'PUT', `${P}/folders/ops`, folder('ops', [...OPS_ITEMS, { kind: 'Dashboard', name: 'ops-3' }]));
      expect(await status(s, olga, 'POST', `${P}/dashboards?dryRun=true`, dashboard('ops-3'))).to.equal(200);
      await must(s, olga, 'POST', `${P}/dashboards`, dashboard('ops-3'));
      expect(await status(s, olga, 'DELETE', `${P}/dashboards/ops-3`)).to.equal(204);
    });

    it("listing another team's dashboard in one's folder is refused (it would take it over)", async () => {
      const r = await s.api('PUT', `${P}/folders/ops`, folder('ops', [...OPS_ITEMS, { kind: 'Dashboard', name: 'web-1' }]), olga);
      expect(r.status, r.text).to.equal(403);
      expect(r.text).to.include('Dashboard');
      expect(await status(s, olga, 'GET', `${P}/dashboards/web-1`)).to.equal(403);
      expect(await status(s, olga, 'POST', `${P}/folders`, folder('mine', [{ kind: 'Dashboard', name: 'lonely' }]))).to.equal(403);
    });

    it('a dashboard taken out of the folder is out of reach at the next request', async () => {
      expect(await status(s, olga, 'GET', `${P}/dashboards/ops-2`)).to.equal(200);
      await must(s, admin, 'PUT', `${P}/folders/ops`, folder('ops', [{ kind: 'Dashboard', name: 'ops-1' }]));
      expect(await status(s, olga, 'GET', `${P}/dashboards/ops-2`)).to.equal(403);
      await must(s, admin, 'PUT', `${P}/folders/ops`, folder('ops', OPS_ITEMS));
      expect(await status(s, olga, 'GET', `${P}/dashboards/ops-2`)).to.equal(200);
    });

    it('malformed resources and folders are refused with the field named', async () => {
      const cases: [unknown, string][] = [
        [{ actions: ['read'], scopes: ['Dashboard'], resources: 'ops-1' }, 'spec.permissions[0].resources'],
        [{ actions: ['read'], scopes: ['Dashboard'], resources: [] }, 'spec.permissions[0].resources'],
        [{ actions: ['read'], scopes: ['Dashboard'], resources: [1] }, 'spec.permissions[0].resources[0]'],
        [{ actions: ['read'], scopes: ['Dashboard'], resources: ['a', 'a'] }, 'spec.permissions[0].resources'],
        [{ actions: ['read'], scopes: ['Dashboard'], resources: ['../x'] }, 'spec.permissions[0].resources[0]'],
        [{ actions: ['read'], scopes: ['Dashboard'], folders: [{ name: 'ops' }] }, 'spec.permissions[0].folders[0]'],
        [{ actions: ['read'], scopes: ['Datasource'], folders: ['ops'] }, 'spec.permissions[0].folders'],
      ];
      for (const [perm, path] of cases) {
        const r = await s.api('POST', `${P}/roles`, { kind: 'Role', metadata: { name: 'bad' }, spec: { permissions: [perm] } }, admin);
        expect(r.status, `${JSON.stringify(perm)}: ${r.text}`).to.equal(400);
        expect(
          r.body.details.map((d: { path: string }) => d.path),
          r.text,
        ).to.include(path);
      }
    });
  });

  describe('on two PostgreSQL replicas', () => {
    needsPrograms('postgresql');
    let pg: TestPostgres;
    let db: { url: string; drop(): Promise<void> };
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      pg = await sharedPostgres();
      db = await pg.createDatabase();
      const env = { ...AUTH_ENV, DASHPLANE_DATABASE_POSTGRES_URL: db.url, DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
      a = await startTestServer({ env });
      b = await startTestServer({ env });
      await setUp(a, upstreamUrl, 'pia', 'pg');
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await db?.drop();
      await pg?.stop();
    });

    it('a folder change made on A holds on B at the next request', async () => {
      const admin = bearer(await loginAdmin(a));
      const pia = bearer(await login(b, 'pia'));
      for (let i = 0; i < 2; i++) expect(await status(b, pia, 'GET', `${P}/dashboards/ops-2`)).to.equal(200);
      await must(a, admin, 'PUT', `${P}/folders/ops`, folder('ops', [{ kind: 'Dashboard', name: 'ops-1' }]));
      expect(await status(b, pia, 'GET', `${P}/dashboards/ops-2`)).to.equal(403);
      expect(names(await must(b, pia, 'GET', `${P}/dashboards`))).to.deep.equal(['ops-1']);
    });
  });
});
