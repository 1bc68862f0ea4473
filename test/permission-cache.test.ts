import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

/**
 * Permissions are cached between requests (issue 10); every role or binding change must still
 * hold on the very next request, on the server that made it and on another replica. The cache is
 * warmed (two reads) before each change, so a stale entry would be served if it were not dropped.
 */
async function changesHoldAtOnce(writer: TestServer, reader: TestServer, user: string): Promise<void> {
  const admin = bearer(await loginAdmin(writer));
  const write = async (method: string, path: string, body?: unknown) => {
    const r = await writer.api(method, path, body, admin);
    expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  };
  const project = `cache-${user}`;
  await write('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: project }, spec: {} });
  await write('POST', `/api/v1/projects/${project}/dashboards`, {
    kind: 'Dashboard',
    metadata: { name: 'd' },
    spec: { display: { name: 'd' }, duration: '1h', panels: {}, layouts: [] },
  });
  await signUp(writer, user);
  const as = bearer(await login(reader, user));
  const expectReads = async (status: number, what: string) => {
    for (let i = 0; i < 2; i++)
      expect((await reader.api('GET', `/api/v1/projects/${project}/dashboards/d`, undefined, as)).status, what).to.equal(status);
  };
  const role = (scopes: string[]) => ({
    kind: 'Role',
    metadata: { name: 'custom' },
    spec: { permissions: [{ actions: ['read'], scopes }] },
  });
  const binding = {
    kind: 'RoleBinding',
    metadata: { name: 'custom-binding' },
    spec: { role: 'custom', subjects: [{ kind: 'User', name: user }] },
  };
  await write('POST', `/api/v1/projects/${project}/roles`, role(['Dashboard']));
  for (let round = 0; round < 3; round++) {
    await expectReads(403, `round ${round}: no binding yet`);
    await write('POST', `/api/v1/projects/${project}/rolebindings`, binding);
    await expectReads(200, `round ${round}: binding created`);
    await write('PUT', `/api/v1/projects/${project}/roles/custom`, role(['Folder']));
    await expectReads(403, `round ${round}: role no longer grants Dashboard`);
    await write('PUT', `/api/v1/projects/${project}/roles/custom`, role(['Dashboard']));
    await expectReads(200, `round ${round}: role grants Dashboard again`);
    await write('DELETE', `/api/v1/projects/${project}/rolebindings/custom-binding`);
  }
  await expectReads(403, 'binding deleted');
  await write('POST', '/api/v1/globalroles', {
    kind: 'GlobalRole',
    metadata: { name: `reader-${user}` },
    spec: { permissions: [{ actions: ['read'], scopes: ['Dashboard'] }] },
  });
  await write('POST', '/api/v1/globalrolebindings', {
    kind: 'GlobalRoleBinding',
    metadata: { name: `reader-${user}` },
    spec: { role: `reader-${user}`, subjects: [{ kind: 'User', name: user }] },
  });
  await expectReads(200, 'global binding created');
  await write('DELETE', `/api/v1/globalrolebindings/reader-${user}`);
  await expectReads(403, 'global binding deleted');
}

describe('permission cache', function () {
  this.timeout(60_000);

  it('a role or binding change holds on the next request of the same server', async () => {
    const s = await startAuthServer();
    try {
      await changesHoldAtOnce(s, s, 'una');
    } finally {
      await s.stop();
    }
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
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await db?.drop();
      await pg?.stop();
    });

    it('a change made on A holds on the next request to B', async () => {
      await changesHoldAtOnce(a, b, 'vera');
    });
  });
});
