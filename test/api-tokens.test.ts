/**
 * Service accounts and API tokens (issue 20): personal access tokens and service account tokens
 * with a required, capped expiry, optional narrowing, the secret shown once and stored as a hash,
 * last-used times, revocation at the next request (on every replica), and malformed requests.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

type Auth = Record<string, string>;
const TOKEN = /^dp_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;

async function must(s: TestServer, auth: Auth, method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.api(method, path, body, auth);
  expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  return r.body;
}

const dashboard = (name: string) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name }, duration: '1h', panels: {}, layouts: [] },
});
const status = async (s: TestServer, auth: Auth, method: string, path: string, body?: unknown) =>
  (await s.api(method, path, body, auth)).status;

describe('service accounts and API tokens (issue 20)', function () {
  this.timeout(60_000);

  describe('on LevelDB', () => {
    let s: TestServer;
    let admin: Auth;
    let alice: Auth;
    before(async () => {
      s = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_MAX_TOKEN_TTL: '30d' });
      admin = bearer(await loginAdmin(s));
      await signUp(s, 'alice');
      alice = bearer(await login(s, 'alice'));
      for (const p of ['p1', 'p2']) {
        await must(s, alice, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} });
        await must(s, alice, 'POST', `/api/v1/projects/${p}/dashboards`, dashboard('d'));
      }
    });
    after(() => s?.stop());

    it('a personal access token: shown once, stored as a hash, listed with its last use, usable as Bearer, revocable', async () => {
      const created = await must(s, alice, 'POST', '/api/v1/user/tokens', { name: 'laptop', ttl: '1h' });
      expect(created.token).to.match(TOKEN);
      expect(created).to.include({ name: 'laptop', createdBy: 'alice' });
      expect(created.owner).to.deep.equal({ kind: 'User', name: 'alice' });
      expect(Date.parse(created.expiresAt) - Date.now()).to.be.within(3_500_000, 3_600_000);
      const secret = created.token.split('_').slice(2).join('_');
      const stored = await s.server.store.get({ kind: 'ApiToken', project: '', name: created.id });
      expect(JSON.stringify(stored)).to.not.include(secret);
      expect((stored!.spec as { hash: string }).hash).to.equal(createHash('sha256').update(created.token).digest('hex'));

      const pat = bearer(created.token);
      expect((await must(s, pat, 'GET', '/api/v1/user/whoami')).metadata.name).to.equal('alice');
      expect((await s.api('GET', '/api/v1/projects/p1/dashboards/d', undefined, pat)).status).to.equal(200);
      const listed = await waitFor('the last use to be recorded', async () => {
        const l = (await must(s, alice, 'GET', '/api/v1/user/tokens')) as any[];
        return l.find((t) => t.id === created.id && t.lastUsedAt) as any;
      });
      expect(listed).to.not.have.property('token');
      expect(listed).to.not.have.property('hash');
      const text = (await s.api('GET', '/api/v1/users/alice/tokens', undefined, admin)).text;
      expect(text, 'an administrator lists them, without secrets').to.include(created.id).and.not.include(secret);

      const firstUse = listed.lastUsedAt;
      for (let i = 0; i < 5; i++) await must(s, pat, 'GET', '/api/v1/user/whoami');
      const again = ((await must(s, alice, 'GET', '/api/v1/user/tokens')) as any[]).find((t) => t.id === created.id);
      expect(again.lastUsedAt, 'written at most once a minute').to.equal(firstUse);
      expect((await s.server.store.get({ kind: 'ApiToken', project: '', name: created.id }))!.metadata.version).to.equal(1);

      await must(s, alice, 'DELETE', `/api/v1/user/tokens/${created.id}`);
      const r = await s.api('GET', '/api/v1/user/whoami', undefined, pat);
      expect(r.status, 'revoked: the next request').to.equal(401);
      expect(r.text).to.include('not valid');
    });

    it('a token expires; expiry is required and capped by max_token_ttl', async () => {
      const soon = new Date(Date.now() + 1500).toISOString();
      const t = await must(s, alice, 'POST', '/api/v1/user/tokens', { name: 'short', expiresAt: soon });
      expect(await status(s, bearer(t.token), 'GET', '/api/v1/user/whoami')).to.equal(200);
      await waitFor('the token to expire', async () => (await status(s, bearer(t.token), 'GET', '/api/v1/user/whoami')) === 401, 5_000);
      const missing = await s.api('POST', '/api/v1/user/tokens', { name: 'forever' }, alice);
      expect(missing.status, missing.text).to.equal(400);
      expect(missing.body.details[0].path).to.equal('ttl');
      const long = await s.api('POST', '/api/v1/user/tokens', { name: 'long', ttl: '31d' }, alice);
      expect(long.status).to.equal(400);
      expect(long.text).to.include('max_token_ttl (30d)');
    });

    it('a narrowed token can do only what it names, within what its owner may', async () => {
      const t = await must(s, alice, 'POST', '/api/v1/user/tokens', {
        name: 'reader',
        ttl: '1h',
        permissions: [{ actions: ['read'], scopes: ['Dashboard'], projects: ['p1'] }],
      });
      const n = bearer(t.token);
      expect(await status(s, n, 'GET', '/api/v1/projects/p1/dashboards/d')).to.equal(200);
      expect(await status(s, n, 'GET', '/api/v1/projects/p2/dashboards/d'), 'another project').to.equal(403);
      expect(await status(s, n, 'PUT', '/api/v1/projects/p1/dashboards/d', dashboard('d')), 'another action').to.equal(403);
      expect(await status(s, n, 'GET', '/api/v1/projects/p1/folders'), 'another kind').to.equal(403);
      // it still says whom it signs in as (dashctl login --token reads it), not a read of the User kind
      const me = await s.api('GET', '/api/v1/user/whoami', undefined, n);
      expect(me.status, me.text).to.equal(200);
      expect(me.body.metadata.name).to.equal('alice');
      expect(me.body.spec.nativeProvider.password).to.equal('<secret>');
      expect(await status(s, n, 'GET', '/api/v1/users/alice'), 'the User kind itself stays out of reach').to.equal(403);
      expect(
        await status(s, n, 'PUT', '/api/v1/users/alice', {
          kind: 'User',
          metadata: { name: 'alice' },
          spec: { nativeProvider: { password: 'x' } },
        }),
        'not even her own password',
      ).to.equal(403);
      const all = await must(s, n, 'GET', '/api/v1/dashboards');
      expect(
        all.map((d: any) => d.metadata.project),
        'a cross-project list',
      ).to.deep.equal(['p1']);
      expect(await status(s, n, 'POST', '/api/v1/user/tokens', { name: 'more', ttl: '1h' }), 'a narrowed token creates no tokens').to.equal(
        403,
      );
      const wide = await must(s, alice, 'POST', '/api/v1/user/tokens', {
        name: 'wide',
        ttl: '1h',
        permissions: [{ actions: ['*'], scopes: ['*'] }],
      });
      expect(await status(s, bearer(wide.token), 'GET', '/api/v1/projects/p2/dashboards/d')).to.equal(200);
      expect(await status(s, bearer(wide.token), 'GET', '/api/v1/globalroles'), 'narrowing never adds: alice has no global read').to.equal(
        403,
      );
      expect(await status(s, n, 'DELETE', `/api/v1/user/tokens/${wide.id}`), 'nor revokes the others').to.equal(403);
      expect(await status(s, n, 'DELETE', `/api/v1/user/tokens/${t.id}`), 'it may revoke itself').to.equal(204);
    });

    it('personal tokens are created by their own user only', async () => {
      const r = await s.api('POST', '/api/v1/users/alice/tokens', { name: 'x', ttl: '1h' }, admin);
      expect(r.status, r.text).to.equal(403);
      expect(r.text).to.include('created by their own user');
    });

    it('a service account acts through its bindings only; deleting it ends its tokens and bindings', async () => {
      await must(s, alice, 'POST', '/api/v1/projects/p1/serviceaccounts', { kind: 'ServiceAccount', metadata: { name: 'ci' }, spec: {} });
      await must(s, alice, 'POST', '/api/v1/projects/p1/rolebindings', {
        kind: 'RoleBinding',
        metadata: { name: 'ci-edits' },
        spec: { role: 'editor', subjects: [{ kind: 'ServiceAccount', name: 'ci' }] },
      });
      const t = await must(s, alice, 'POST', '/api/v1/projects/p1/serviceaccounts/ci/tokens', { name: 'pipeline', ttl: '7d' });
      expect(t.owner).to.deep.equal({ kind: 'ServiceAccount', name: 'ci', project: 'p1' });
      const ci = bearer(t.token);
      expect((await must(s, ci, 'GET', '/api/v1/user/whoami')).kind).to.equal('ServiceAccount');
      await must(s, ci, 'PUT', '/api/v1/projects/p1/dashboards/d', { ...dashboard('d'), spec: { ...dashboard('d').spec, duration: '2h' } });
      const versions = await must(s, alice, 'GET', '/api/v1/projects/p1/dashboards/d/versions');
      const managers = await must(s, alice, 'GET', '/api/v1/projects/p1/dashboards/d/managers');
      expect(managers[0].updatedBy, 'who wrote it').to.equal('sa:p1/ci');
      expect(versions).to.be.an('array');
      expect(await status(s, ci, 'GET', '/api/v1/projects/p2/dashboards/d'), 'another project').to.equal(403);
      expect(
        await status(s, ci, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'robots' }, spec: {} }),
        'no guest permissions',
      ).to.equal(403);
      const global = await s.api(
        'POST',
        '/api/v1/globalrolebindings',
        {
          kind: 'GlobalRoleBinding',
          metadata: { name: 'bad' },
          spec: { role: 'admin', subjects: [{ kind: 'ServiceAccount', name: 'ci' }] },
        },
        admin,
      );
      expect(global.status, global.text).to.equal(400);
      expect(global.body.details[0].path).to.equal('spec.subjects[0].kind');
      await signUp(s, 'bob');
      const bob = bearer(await login(s, 'bob'));
      expect(
        await status(s, bob, 'POST', '/api/v1/projects/p1/serviceaccounts/ci/tokens', { name: 'steal', ttl: '1h' }),
        'needs update on the service account',
      ).to.equal(403);
      expect(await status(s, bob, 'GET', '/api/v1/projects/p1/serviceaccounts/ci/tokens')).to.equal(403);
      await must(s, alice, 'DELETE', '/api/v1/projects/p1/serviceaccounts/ci');
      expect(await status(s, ci, 'GET', '/api/v1/projects/p1/dashboards/d'), 'its token ends with it').to.equal(401);
      expect(await status(s, alice, 'GET', '/api/v1/projects/p1/rolebindings/ci-edits'), 'its only binding goes').to.equal(404);
      await must(s, alice, 'POST', '/api/v1/projects/p1/serviceaccounts', { kind: 'ServiceAccount', metadata: { name: 'ci' }, spec: {} });
      expect(await status(s, ci, 'GET', '/api/v1/projects/p1/dashboards/d'), 'a new one of the same name does not revive it').to.equal(401);
      expect(
        await must(s, alice, 'GET', '/api/v1/projects/p1/serviceaccounts/ci/tokens'),
        'nor lists the old tokens as its own',
      ).to.deep.equal([]);
      expect(await status(s, alice, 'DELETE', `/api/v1/projects/p1/serviceaccounts/ci/tokens/${t.id}`), 'nor revokes them').to.equal(404);
      const fresh = await must(s, alice, 'POST', '/api/v1/projects/p1/serviceaccounts/ci/tokens', { name: 'again', ttl: '1d' });
      expect((await must(s, alice, 'GET', '/api/v1/projects/p1/serviceaccounts/ci/tokens')).map((x: { id: string }) => x.id)).to.deep.equal(
        [fresh.id],
      );
    });

    it('a global service account bound by a GlobalRoleBinding', async () => {
      await must(s, admin, 'POST', '/api/v1/globalserviceaccounts', {
        kind: 'GlobalServiceAccount',
        metadata: { name: 'backup' },
        spec: {},
      });
      await must(s, admin, 'POST', '/api/v1/globalroles', {
        kind: 'GlobalRole',
        metadata: { name: 'reader' },
        spec: { permissions: [{ actions: ['read'], scopes: ['*'] }] },
      });
      await must(s, admin, 'POST', '/api/v1/globalrolebindings', {
        kind: 'GlobalRoleBinding',
        metadata: { name: 'backup' },
        spec: { role: 'reader', subjects: [{ kind: 'GlobalServiceAccount', name: 'backup' }] },
      });
      const t = await must(s, admin, 'POST', '/api/v1/globalserviceaccounts/backup/tokens', { name: 'nightly', ttl: '1d' });
      expect((await must(s, bearer(t.token), 'GET', '/api/v1/dashboards')).length).to.equal(2);
      expect(await status(s, bearer(t.token), 'DELETE', '/api/v1/projects/p2/dashboards/d')).to.equal(403);
    });

    it('malformed token requests and tokens are refused with the field named, never a 5xx', async () => {
      const cases: [unknown, string][] = [
        [{ name: 7, ttl: '1h' }, 'name'],
        [{ name: ['a'], ttl: '1h' }, 'name'],
        [{ name: 'x'.repeat(101), ttl: '1h' }, 'name'],
        [{ name: 'a\u0000b', ttl: '1h' }, 'name'],
        [{ name: 'a', ttl: 3600 }, 'ttl'],
        [{ name: 'a', ttl: '-1h' }, 'ttl'],
        [{ name: 'a', ttl: '0s' }, 'ttl'],
        [{ name: 'a', ttl: '999999999999999999h' }, 'ttl'],
        [{ name: 'a', ttl: { h: 1 } }, 'ttl'],
        [{ name: 'a', ttl: '1h', expiresAt: '2030-01-01T00:00:00Z' }, 'ttl'],
        [{ name: 'a', expiresAt: 'tomorrow' }, 'expiresAt'],
        [{ name: 'a', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
        [{ name: 'a', ttl: '1h', permissions: 'read' }, 'permissions'],
        [{ name: 'a', ttl: '1h', permissions: [] }, 'permissions'],
        [{ name: 'a', ttl: '1h', permissions: [{ actions: ['read'] }] }, 'permissions[0].scopes'],
        [{ name: 'a', ttl: '1h', permissions: [{ actions: ['fly'], scopes: ['Dashboard'] }] }, 'permissions[0].actions[0]'],
        [{ name: 'a', ttl: '1h', permissions: [{ actions: ['read'], scopes: ['Nothing'] }] }, 'permissions[0].scopes[0]'],
        [{ name: 'a', ttl: '1h', permissions: [{ actions: ['read', 'read'], scopes: ['*'] }] }, 'permissions[0].actions'],
        [{ name: 'a', ttl: '1h', permissions: [{ actions: ['read'], scopes: ['*'], projects: ['../x'] }] }, 'permissions[0].projects[0]'],
        [{ name: 'a', ttl: '1h', permissions: [{ actions: ['read'], scopes: ['*'], projects: [{}] }] }, 'permissions[0].projects[0]'],
        [{ name: 'a', ttl: '1h', permissions: [[]] }, 'permissions[0]'],
        [{ name: 'a', ttl: '1h', owner: 'admin' }, 'owner'],
      ];
      for (const [body, path] of cases) {
        const r = await s.api('POST', '/api/v1/user/tokens', body, alice);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(
          r.body.details.map((d: { path: string }) => d.path),
          r.text,
        ).to.include(path);
      }
      for (const body of [null, [], 'token', 42])
        expect((await s.api('POST', '/api/v1/user/tokens', body, alice)).status, JSON.stringify(body)).to.equal(400);
      const real = await must(s, alice, 'POST', '/api/v1/user/tokens', { name: 'real', ttl: '1h' });
      const forged = real.token.slice(0, -1) + (real.token.endsWith('A') ? 'B' : 'A');
      for (const t of ['dp_', 'dp_zz', `dp_${'0'.repeat(16)}_${'A'.repeat(43)}`, forged, `${real.token}x`, `dp_${'a'.repeat(10_000)}`]) {
        const r = await s.api('GET', '/api/v1/user/whoami', undefined, bearer(t));
        expect(r.status, t.slice(0, 40)).to.equal(401);
        expect(r.text).to.not.include(real.token.slice(20));
      }
      for (const id of ['../x', 'ZZZZ', '0'.repeat(16)])
        expect((await s.api('DELETE', `/api/v1/user/tokens/${id}`, undefined, alice)).status, id).to.be.oneOf([400, 404]);
    });
  });

  describe('tokens per owner (security.authentication.max_tokens_per_owner)', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_MAX_TOKENS_PER_OWNER: '3' });
    });
    after(() => s?.stop());

    it('VOLUME-02 (tokens): past the cap, parallel creations of a user or a service account get a clear 429 with Retry-After; others are unaffected; a revoked or expired token makes room', async () => {
      const admin = bearer(await loginAdmin(s));
      await signUp(s, 'tina');
      await signUp(s, 'tom');
      const tina = bearer(await login(s, 'tina'));
      const tom = bearer(await login(s, 'tom'));
      // one that expires soon: it counts until it expires
      const brief = await must(s, tina, 'POST', '/api/v1/user/tokens', {
        name: 'brief',
        expiresAt: new Date(Date.now() + 3000).toISOString(),
      });
      const flood = await Promise.all(
        Array.from({ length: 12 }, (_, i) => s.api('POST', '/api/v1/user/tokens', { name: `t${i}`, ttl: '1d' }, tina)),
      );
      expect(
        flood.filter((r) => r.status === 200),
        'exactly up to the cap, however many arrive at once',
      ).to.have.length(2);
      const refused = flood.filter((r) => r.status !== 200);
      expect(refused).to.have.length(10);
      for (const r of refused) {
        expect(r.status, r.text).to.equal(429);
        expect(r.body.message).to.equal(
          'User "tina" has 3 unexpired API tokens, the most security.authentication.max_tokens_per_owner allows (3); revoke tokens that are no longer used first: ' +
            'list them with GET /api/v1/users/tina/tokens (dashctl token list), revoke one with DELETE /api/v1/users/tina/tokens/{id} (dashctl token revoke ID)',
        );
        // until the first of them (brief) expires
        expect(Number(r.headers.get('retry-after')), r.text).to.be.within(1, 3);
      }
      expect(await must(s, tina, 'GET', '/api/v1/user/tokens')).to.have.length(3);
      expect((await s.api('POST', '/api/v1/user/tokens', { name: 'mine', ttl: '1h' }, tom)).status, "another user's own tokens").to.equal(
        200,
      );
      await waitFor(
        'the brief token to expire and make room',
        async () => (await s.api('POST', '/api/v1/user/tokens', { name: 'after-expiry', ttl: '1h' }, tina)).status === 200,
      );
      expect(
        (await must(s, tina, 'GET', '/api/v1/user/tokens')).map((t: { id: string }) => t.id),
        'the expired one is listed until the sweep, but no longer counts',
      ).to.include(brief.id);
      expect((await s.api('POST', '/api/v1/user/tokens', { name: 'one-more', ttl: '1h' }, tina)).status).to.equal(429);
      const live = (await must(s, tina, 'GET', '/api/v1/user/tokens')).find((t: { name: string }) => t.name === 'after-expiry');
      await must(s, tina, 'DELETE', `/api/v1/user/tokens/${live.id}`);
      expect(
        (await s.api('POST', '/api/v1/user/tokens', { name: 'after-revoke', ttl: '1h' }, tina)).status,
        'a revoked token makes room',
      ).to.equal(200);

      // a service account's tokens, created by whoever may update it
      await must(s, tom, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'capped' }, spec: {} });
      await must(s, tom, 'POST', '/api/v1/projects/capped/serviceaccounts', { kind: 'ServiceAccount', metadata: { name: 'ci' }, spec: {} });
      const base = '/api/v1/projects/capped/serviceaccounts/ci/tokens';
      for (let i = 0; i < 3; i++) await must(s, i % 2 ? tom : admin, 'POST', base, { name: `ci-${i}`, ttl: '1d' });
      const r = await s.api('POST', base, { name: 'ci-3', ttl: '1d' }, admin);
      expect(r.status, r.text).to.equal(429);
      expect(r.body.message)
        .to.include('ServiceAccount "ci" has 3 unexpired API tokens')
        .and.include(`GET ${base} (dashctl token list --owner serviceaccount/ci -p capped)`);
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(80_000);
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
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await db?.drop();
      await pg?.stop();
    });

    it('a token created on A works on B; revoked on A, it is refused on B at the next request', async () => {
      const admin = bearer(await loginAdmin(a));
      // several rounds: B must never serve a token it read (and cached) before the revocation
      for (let round = 0; round < 10; round++) {
        const t = await must(a, admin, 'POST', '/api/v1/user/tokens', { name: `replicated-${round}`, ttl: '1h' });
        for (let i = 0; i < 2; i++) expect(await status(b, bearer(t.token), 'GET', '/api/v1/user/whoami')).to.equal(200);
        await must(a, admin, 'DELETE', `/api/v1/user/tokens/${t.id}`);
        expect(await status(b, bearer(t.token), 'GET', '/api/v1/user/whoami'), `round ${round}`).to.equal(401);
      }
    });
  });
});
