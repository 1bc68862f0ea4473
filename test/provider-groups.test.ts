/**
 * Groups from an identity provider (issue 20): a real oidc-provider releases a `groups` claim;
 * dashplane reads it at login and at every refresh (with the provider's refresh token), keeps the
 * allowed groups on the user, and grants what bindings of `Group <prefix><group>` and the
 * configured role mappings give. A group removed at the provider holds from the next refresh,
 * on every replica; an account removed at the provider ends the session at the next refresh.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, loginAdmin, startAuthServer, type Tokens } from './helpers/auth.js';
import { browserLogin, startOidcProvider, type TestOidcProvider } from './helpers/oidc-provider.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

type Auth = Record<string, string>;

const providerConfig = (idp: TestOidcProvider) => [
  {
    slug_id: 'corp',
    name: 'Corp',
    client_id: idp.clientId,
    client_secret: idp.clientSecret,
    issuer: idp.issuer,
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    url_params: { prompt: 'consent' },
    groups_claim: 'groups',
    groups_prefix: 'corp:',
    allowed_groups: ['sre', 'team-a', 'ops'],
    role_mappings: [
      { group: 'ops', global_role: 'ops-reader' },
      { group: 'team-a', project: 'tp', role: 'viewer' },
    ],
  },
];

async function must(s: TestServer, auth: Auth, method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.api(method, path, body, auth);
  expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  return r.body;
}

/** Projects pp (Group corp:sre is editor) and tp (reached through the team-a mapping), and the GlobalRole ops-reader. */
async function setUp(s: TestServer): Promise<void> {
  const admin = bearer(await loginAdmin(s));
  for (const p of ['pp', 'tp']) {
    await must(s, admin, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} });
    await must(s, admin, 'POST', `/api/v1/projects/${p}/folders`, { kind: 'Folder', metadata: { name: 'f' }, spec: { items: [] } });
  }
  await must(s, admin, 'POST', '/api/v1/projects/pp/rolebindings', {
    kind: 'RoleBinding',
    metadata: { name: 'sre' },
    spec: { role: 'editor', subjects: [{ kind: 'Group', name: 'corp:sre' }] },
  });
  await must(s, admin, 'POST', '/api/v1/globalroles', {
    kind: 'GlobalRole',
    metadata: { name: 'ops-reader' },
    spec: { permissions: [{ actions: ['read'], scopes: ['GlobalDatasource'] }] },
  });
}

/** A browser login as `account`; the session's tokens (from its cookies). */
async function providerLogin(s: TestServer, _idp: TestOidcProvider, account: string): Promise<Tokens> {
  const l = await browserLogin(`${s.url}/api/auth/providers/oidc/corp/login`, account);
  expect(l.callback.status, l.callback.text).to.equal(302);
  const refresh = l.browser.cookie(s.url, 'jwtRefreshToken');
  const payload = l.browser.cookie(s.url, 'jwtPayload');
  const signature = l.browser.cookie(s.url, 'jwtSignature');
  expect(refresh && payload && signature, 'session cookies').to.be.a('string');
  return { access_token: `${payload}.${signature}`, refresh_token: refresh!, token_type: 'Bearer', expiry: '', expires_in: 0 };
}

async function refresh(s: TestServer, t: Tokens): Promise<{ status: number; tokens: Tokens; text: string }> {
  const r = await s.api('POST', '/api/auth/refresh', { refresh_token: t.refresh_token });
  return { status: r.status, tokens: r.body as Tokens, text: r.text };
}

/** What `t` may read now on `s`: [pp folder, tp folder, global datasources]. */
async function reach(s: TestServer, t: Tokens): Promise<number[]> {
  const paths = ['/api/v1/projects/pp/folders/f', '/api/v1/projects/tp/folders/f', '/api/v1/globaldatasources'];
  return Promise.all(paths.map(async (p) => (await s.api('GET', p, undefined, bearer(t))).status));
}

describe('groups from an identity provider (issue 20)', function () {
  this.timeout(60_000);
  let idp: TestOidcProvider;

  before(async () => {
    idp = await startOidcProvider({
      accounts: [
        {
          sub: 'u-greta',
          preferred_username: 'greta',
          email: 'greta@corp.example',
          email_verified: true,
          groups: ['sre', 'team-a', 'not-allowed'],
        },
        {
          sub: 'u-odd',
          preferred_username: 'odd',
          groups: [7, { name: 'sre' }, ['sre'], null, '', 'x'.repeat(10_000), 'ops\u0000', 'team-a', 'team-a'],
        },
        { sub: 'u-one', preferred_username: 'one', groups: 'sre' },
        { sub: 'u-many', preferred_username: 'many', groups: Array.from({ length: 5000 }, (_, i) => `g${i}`).concat(['sre']) },
        { sub: 'u-rex', preferred_username: 'rex', groups: ['sre'] },
      ],
    });
  });
  after(() => idp?.stop());

  describe('on LevelDB', () => {
    let s: TestServer;
    let admin: Auth;
    before(async () => {
      s = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify(providerConfig(idp)) });
      idp.allowRedirectUri(`${s.url}/api/auth/providers/oidc/corp/callback`);
      await setUp(s);
      admin = bearer(await loginAdmin(s));
    });
    after(() => s?.stop());

    it('group bindings and role mappings apply from login; a group change at the provider holds at the next refresh', async () => {
      idp.accounts.get('u-greta')!.groups = ['sre', 'team-a', 'not-allowed'];
      const t = await providerLogin(s, idp, 'u-greta');
      expect(await reach(s, t), 'sre (binding) and team-a (mapping to tp viewer)').to.deep.equal([200, 200, 403]);
      const user = await must(s, admin, 'GET', '/api/v1/users/greta');
      expect(user.spec.oauthProviders[0].groups, 'only allowed groups are kept').to.deep.equal(['sre', 'team-a']);
      const perms = await s.api('GET', '/api/v1/users/greta/permissions', undefined, bearer(t));
      expect(Object.keys(perms.body).sort()).to.deep.equal(['*', 'pp', 'tp']);

      idp.accounts.get('u-greta')!.groups = ['ops'];
      expect(await reach(s, t), 'nothing changes before the refresh').to.deep.equal([200, 200, 403]);
      const r = await refresh(s, t);
      expect(r.status, r.text).to.equal(200);
      expect(await reach(s, r.tokens), 'after the refresh: only the ops mapping (global read of GlobalDatasource)').to.deep.equal([
        403, 403, 200,
      ]);
      expect(await reach(s, t), 'the older access token of the same user too').to.deep.equal([403, 403, 200]);

      idp.accounts.delete('u-greta');
      const gone = await refresh(s, r.tokens);
      expect(gone.status, gone.text).to.equal(401);
      expect(gone.text).to.include('no longer accepts');
      expect((await s.api('GET', '/api/v1/user/whoami', undefined, bearer(r.tokens))).status, 'the session ended').to.equal(401);
    });

    it('malformed groups claims: strings only, no duplicates, allowed ones, at most 1000; one string is one group', async () => {
      await providerLogin(s, idp, 'u-odd');
      expect((await must(s, admin, 'GET', '/api/v1/users/odd')).spec.oauthProviders[0].groups).to.deep.equal(['team-a']);
      await providerLogin(s, idp, 'u-one');
      expect((await must(s, admin, 'GET', '/api/v1/users/one')).spec.oauthProviders[0].groups).to.deep.equal(['sre']);
      const t = await providerLogin(s, idp, 'u-many');
      // only allowed groups are kept: the 5000 others are dropped before the cap applies
      expect((await must(s, admin, 'GET', '/api/v1/users/many')).spec.oauthProviders[0].groups).to.deep.equal(['sre']);
      expect((await reach(s, t))[0]).to.equal(200);
    });

    it('users cannot record provider groups themselves', async () => {
      const t = await providerLogin(s, idp, 'u-rex');
      const me = await must(s, bearer(t), 'GET', '/api/v1/user/whoami');
      me.spec.oauthProviders[0].groups = ['sre', 'ops'];
      const r = await s.api('PUT', '/api/v1/users/rex', me, bearer(t));
      expect(r.status, r.text).to.equal(400);
      expect(r.text).to.include('spec.oauthProviders');
    });

    it('a bad role mapping stops the server with the key named', async () => {
      const bad = [{ ...providerConfig(idp)[0], role_mappings: [{ group: 'ops', global_role: 'a', project: 'p', role: 'r' }] }];
      let err: Error | undefined;
      try {
        const x = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify(bad) });
        await x.stop();
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).to.match(/providers\.oidc\[0\]\.role_mappings\[0\]: give either global_role, or both project and role/);
      const noClaim = [{ ...providerConfig(idp)[0], groups_claim: undefined }];
      err = undefined;
      try {
        const x = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify(noClaim) });
        await x.stop();
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).to.match(/role_mappings needs groups_claim/);
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
      const env = {
        ...AUTH_ENV,
        DASHPLANE_DATABASE_POSTGRES_URL: db.url,
        DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify(providerConfig(idp)),
      };
      a = await startTestServer({ env });
      b = await startTestServer({ env });
      idp.allowRedirectUri(`${a.url}/api/auth/providers/oidc/corp/callback`);
      await setUp(a);
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await db?.drop();
      await pg?.stop();
    });

    it('a group removed at the provider holds on both replicas from a refresh made on either', async () => {
      idp.addAccount({ sub: 'u-hal', preferred_username: 'hal', groups: ['sre'] });
      const t = await providerLogin(a, idp, 'u-hal');
      expect((await reach(b, t))[0], 'B sees the group read at login on A').to.equal(200);
      idp.accounts.get('u-hal')!.groups = [];
      const r = await refresh(b, t);
      expect(r.status, r.text).to.equal(200);
      expect((await reach(a, r.tokens))[0], 'A at the next request after the refresh on B').to.equal(403);
      expect((await reach(b, t))[0]).to.equal(403);
    });
  });
});
