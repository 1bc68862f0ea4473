import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUTH_ENV, bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, type Tokens } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

/** Several dashplane replicas on one PostgreSQL database (issue 8). */
describe('replicas on one PostgreSQL database', function () {
  needsPrograms('postgresql');
  this.timeout(60_000);
  let pg: TestPostgres;
  let db: { url: string; drop(): Promise<void> };
  let a: TestServer;
  let b: TestServer;
  const key = randomBytes(32).toString('hex');

  before(async () => {
    pg = await sharedPostgres();
    db = await pg.createDatabase();
    const env = {
      ...AUTH_ENV,
      DASHPLANE_DATABASE_POSTGRES_URL: db.url,
      DASHPLANE_ENCRYPTION_KEY: key,
      DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s',
      DASHPLANE_PROXY_DENIED_NETWORKS: '[]',
      ...LOOPBACK_UPSTREAMS,
    };
    a = await startTestServer({ env });
    b = await startTestServer({ env });
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
    await pg?.stop();
  });

  it('a write on A is read on B; a login on A works on B (sessions are in the database)', async () => {
    const admin = await loginAdmin(a);
    expect(
      (await a.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'shared' }, spec: {} }, bearer(admin))).status,
    ).to.equal(200);
    const r = await b.api('GET', '/api/v1/projects/shared', undefined, bearer(admin));
    expect(r.status, r.text).to.equal(200);
    await a.api('GET', '/api/auth/logout', undefined, bearer(admin));
    expect((await b.api('GET', '/api/v1/projects/shared', undefined, bearer(admin))).status, 'logout on A holds on B').to.equal(401);
  });

  it('a watch on B sees writes made on A within a second, in order, once', async () => {
    const admin = await loginAdmin(a);
    const w = await WatchStream.must(`${b.url}/api/v1/projects/shared/folders?watch=true`, bearer(admin));
    try {
      let last = 0;
      for (let i = 0; i < 5; i++) {
        const r = await a.api(
          'POST',
          '/api/v1/projects/shared/folders',
          { kind: 'Folder', metadata: { name: `f${i}` }, spec: { items: [] } },
          bearer(admin),
        );
        expect(r.status).to.equal(200);
        const t0 = Date.now();
        await w.waitForChanges(i + 1, 1_000);
        last = Math.max(last, Date.now() - t0);
      }
      expect(last, 'replica-to-replica latency (ms)').to.be.below(1_000);
      await w.settle(Math.max(...w.changes().map((e) => e.revision)));
      expect(w.summary()).to.deep.equal(['ADDED shared/f0', 'ADDED shared/f1', 'ADDED shared/f2', 'ADDED shared/f3', 'ADDED shared/f4']);
      const revs = w.changes().map((e) => e.revision);
      expect(revs).to.deep.equal([...revs].sort((x, y) => x - y));
    } finally {
      await w.close();
    }
  });

  it('a permission change on A holds on B at the next request', async () => {
    const admin = await loginAdmin(a);
    await signUp(a, 'rita');
    const rita = await login(b, 'rita');
    expect((await b.api('GET', '/api/v1/projects/shared/folders', undefined, bearer(rita))).status).to.equal(403);
    await a.api(
      'POST',
      '/api/v1/projects/shared/rolebindings',
      { kind: 'RoleBinding', metadata: { name: 'rita-view' }, spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'rita' }] } },
      bearer(admin),
    );
    expect((await b.api('GET', '/api/v1/projects/shared/folders', undefined, bearer(rita))).status).to.equal(200);
    await a.api('DELETE', '/api/v1/projects/shared/rolebindings/rita-view', undefined, bearer(admin));
    expect((await b.api('GET', '/api/v1/projects/shared/folders', undefined, bearer(rita))).status).to.equal(403);
  });

  it("a password changed on A ends the user's other sessions on B at the next request; the caller's session lives on B too", async () => {
    await signUp(a, 'sam', 'sam-old');
    const mine = await login(a, 'sam', 'sam-old');
    const other = await login(b, 'sam', 'sam-old');
    const whoami = (s: TestServer, t: Tokens) => s.api('GET', '/api/v1/user/whoami', undefined, bearer(t));
    // B has read (and cached) both sessions and the user before the change
    expect((await whoami(b, other)).status).to.equal(200);
    expect((await whoami(b, mine)).status).to.equal(200);
    const put = await a.api(
      'PUT',
      '/api/v1/users/sam',
      { kind: 'User', metadata: { name: 'sam' }, spec: { nativeProvider: { password: 'sam-new' } } },
      bearer(mine),
    );
    expect(put.status, put.text).to.equal(200);
    expect((await whoami(b, other)).status, "the other session's access token on B").to.equal(401);
    expect((await b.api('POST', '/api/auth/refresh', { refresh_token: other.refresh_token })).status, 'its refresh token on B').to.equal(
      401,
    );
    expect((await whoami(b, mine)).status, "the caller's session on B").to.equal(200);
  });

  it('an expired ephemeral dashboard is deleted exactly once, whichever replica reaps it', async () => {
    const admin = await loginAdmin(a);
    const w = await WatchStream.must(`${a.url}/api/v1/projects/shared/ephemeraldashboards?watch=true`, bearer(admin));
    try {
      const body = { kind: 'EphemeralDashboard', metadata: { name: 'short' }, spec: { ttl: '1s', panels: {}, layouts: [] } };
      expect((await b.api('POST', '/api/v1/projects/shared/ephemeraldashboards', body, bearer(admin))).status).to.equal(200);
      await w.waitForChanges(2, 10_000);
      await waitFor(
        'both replicas to see it gone',
        async () => (await a.api('GET', '/api/v1/projects/shared/ephemeraldashboards/short', undefined, bearer(admin))).status === 404,
        5_000,
      );
      // both reapers had their chance: the store holds it no more and exactly one DELETED was sent
      await waitFor(
        'the store to forget it',
        async () => !(await b.server.store.get({ kind: 'EphemeralDashboard', project: 'shared', name: 'short' })),
        5_000,
      );
      await w.settle(Math.max(...w.changes().map((e) => e.revision)) + 0);
      expect(w.summary()).to.deep.equal(['ADDED shared/short', 'DELETED shared/short']);
    } finally {
      await w.close();
    }
  });

  it('concurrent default datasources of one plugin kind on two replicas: exactly one wins', async () => {
    const admin = await loginAdmin(a);
    const ds = (n: number) => ({
      kind: 'Datasource',
      metadata: { name: `def${n}` },
      spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://x:9090' } } },
    });
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) => (n % 2 ? a : b).api('POST', '/api/v1/projects/shared/datasources', ds(n), bearer(admin))),
    );
    expect(
      results.filter((r) => r.status === 200),
      results.map((r) => r.status).join(' '),
    ).to.have.length(1);
    expect((await b.api('GET', '/api/v1/projects/shared/datasources?default=true', undefined, bearer(admin))).body).to.have.length(1);
  });

  it("a datasource changed on A: B's proxy follows it at the next request", async () => {
    const admin = await loginAdmin(a);
    const seen: string[] = [];
    const upstream = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      const ds = (base: string) => ({
        kind: 'Datasource',
        metadata: { name: 'moving' },
        spec: { plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: base } } } } },
      });
      const viaB = async () =>
        (await b.api('GET', '/proxy/projects/shared/datasources/moving/api/v1/query?query=up', undefined, bearer(admin))).status;
      expect((await a.api('POST', '/api/v1/projects/shared/datasources', ds(url), bearer(admin))).status).to.equal(200);
      expect(await viaB()).to.equal(200);
      expect((await a.api('PUT', '/api/v1/projects/shared/datasources/moving', ds(`${url}/v2`), bearer(admin))).status).to.equal(200);
      expect(await viaB()).to.equal(200);
      expect((await a.api('DELETE', '/api/v1/projects/shared/datasources/moving', undefined, bearer(admin))).status).to.equal(204);
      expect(await viaB()).to.equal(404);
      expect(seen).to.deep.equal(['/api/v1/query?query=up', '/v2/api/v1/query?query=up']);
    } finally {
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('secrets written on A are usable on B (the same key) and stored encrypted', async () => {
    const admin = await loginAdmin(a);
    const canary = `CANARY-${randomBytes(4).toString('hex')}`;
    expect(
      (
        await a.api(
          'POST',
          '/api/v1/projects/shared/secrets',
          { kind: 'Secret', metadata: { name: 's' }, spec: { basicAuth: { username: 'u', password: canary } } },
          bearer(admin),
        )
      ).status,
    ).to.equal(200);
    const stored = await b.server.store.get({ kind: 'Secret', project: 'shared', name: 's' });
    expect(JSON.stringify(stored)).to.not.include(canary);
    expect((await b.api('GET', '/api/v1/projects/shared/secrets/s', undefined, bearer(admin))).body.spec.basicAuth.password).to.equal(
      '<secret>',
    );
  });
});
