/**
 * Tokens, cookies and sessions of docs/api.md §12, and the JWT-01..09 and AUTHZ-08 rows of
 * docs/security.md. The server runs with a known DASHPLANE_ENCRYPTION_KEY so tests can
 * forge tokens with the real derived keys (loadKeyRing), i.e. attacks that differ from a valid
 * token in exactly one property.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadKeyRing, type KeyRing } from '../src/auth/keys.js';
import { bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import type { ApiResponse, TestServer } from './helpers/server.js';

/** Perses's documented default encryption key (config `security.encryption_key` default). */
const PERSES_DEFAULT_KEY = '=tW$56zytgB&3jN2E%7-+qrGZE?v6LCc';
const TOKEN_KEYS = ['access_token', 'expires_in', 'expiry', 'refresh_token', 'token_type'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

type Claims = Record<string, unknown>;
const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const claimsOf = (token: string) => jwt.decode(token) as Claims;
const nowS = () => Math.floor(Date.now() / 1000);

interface SetCookie {
  value: string;
  attrs: Map<string, string>;
}

/** The Set-Cookie headers of a response by cookie name; attribute names lower-cased. */
function setCookies(r: ApiResponse): Map<string, SetCookie> {
  const out = new Map<string, SetCookie>();
  for (const line of r.headers.getSetCookie()) {
    const [nameValue, ...attrs] = line.split(';').map((x) => x.trim());
    const i = nameValue.indexOf('=');
    out.set(nameValue.slice(0, i), {
      value: decodeURIComponent(nameValue.slice(i + 1)),
      attrs: new Map(
        attrs.map((a) => {
          const j = a.indexOf('=');
          return j < 0 ? [a.toLowerCase(), ''] : [a.slice(0, j).toLowerCase(), a.slice(j + 1)];
        }),
      ),
    });
  }
  return out;
}

describe('auth tokens: login, cookies, refresh, logout, JWT-01..09, AUTHZ-08', function () {
  this.timeout(20_000);
  const KEY = randomBytes(32).toString('hex');
  let s: TestServer;
  let keys: KeyRing;
  let admin: Tokens;

  const whoami = (token: string, headers: Record<string, string> = {}) =>
    s.api('GET', '/api/v1/user/whoami', undefined, { authorization: `Bearer ${token}`, ...headers });
  const refresh = (token: string) => s.api('POST', '/api/auth/refresh', { refresh_token: token });
  /** Signs up (once) and logs in `name`. */
  const signedIn = async (name: string): Promise<Tokens> => {
    await signUp(s, name);
    return login(s, name);
  };
  const sign = (claims: Claims, key: string | Buffer, algorithm: jwt.Algorithm = 'HS512') =>
    jwt.sign(claims, key, { algorithm, noTimestamp: true });

  before(async () => {
    s = await startAuthServer({ DASHPLANE_ENCRYPTION_KEY: KEY });
    keys = loadKeyRing({ key: KEY, dataDir: s.dataDir });
    admin = await loginAdmin(s);
  });
  after(() => s?.stop());

  describe('login, cookies, refresh, logout', () => {
    it('login answers exactly access_token, token_type "Bearer", refresh_token, expiry (RFC 3339) and expires_in', async () => {
      await signUp(s, 'alice');
      const before = Date.now();
      const r = await s.api('POST', '/api/auth/providers/native/login', { login: 'alice', password: 'alice-password' });
      expect(r.status, r.text).to.equal(200);
      expect(Object.keys(r.body).sort()).to.deep.equal(TOKEN_KEYS);
      expect(r.body.token_type).to.equal('Bearer');
      expect(r.body.access_token)
        .to.be.a('string')
        .and.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(r.body.refresh_token)
        .to.be.a('string')
        .and.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(r.body.refresh_token).to.not.equal(r.body.access_token);
      expect(r.body.expiry).to.match(RFC3339);
      expect(r.body.expires_in).to.be.a('number').greaterThan(0);
      // expiry is now + expires_in (to the second) and matches the token's exp.
      const expiry = Date.parse(r.body.expiry);
      expect(Math.abs(expiry - (before + r.body.expires_in * 1000))).to.be.lessThan(5000);
      expect(claimsOf(r.body.access_token).exp).to.equal(Math.floor(expiry / 1000));
      const header = jwt.decode(r.body.access_token, { complete: true })!.header;
      expect(header.alg).to.equal('HS512');
      const c = claimsOf(r.body.access_token);
      expect(c.sub).to.equal('alice');
      expect(c.pkd).to.equal('native');
      expect(c).to.have.property('nbf');
    });

    it('sets jwtPayload (header.payload, not HttpOnly), jwtSignature and jwtRefreshToken (HttpOnly), all Path=/ and SameSite=Lax', async () => {
      await signUp(s, 'bob');
      const r = await s.api('POST', '/api/auth/providers/native/login', { login: 'bob', password: 'bob-password' });
      expect(r.status).to.equal(200);
      const c = setCookies(r);
      expect([...c.keys()].sort()).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
      const [h, p, sig] = (r.body.access_token as string).split('.');
      expect(c.get('jwtPayload')!.value).to.equal(`${h}.${p}`);
      expect(c.get('jwtSignature')!.value).to.equal(sig);
      expect(c.get('jwtRefreshToken')!.value).to.equal(r.body.refresh_token);
      expect(c.get('jwtPayload')!.attrs.has('httponly')).to.equal(false);
      expect(c.get('jwtSignature')!.attrs.has('httponly')).to.equal(true);
      expect(c.get('jwtRefreshToken')!.attrs.has('httponly')).to.equal(true);
      for (const [name, cookie] of c) {
        expect(cookie.attrs.get('path'), name).to.equal('/');
        expect(cookie.attrs.get('samesite'), name).to.equal('Lax');
        expect(Number(cookie.attrs.get('max-age')), name).to.be.greaterThan(0);
      }
      expect(Number(c.get('jwtPayload')!.attrs.get('max-age'))).to.equal(r.body.expires_in);
    });

    it('the two access cookies joined authenticate a request; one alone does not', async () => {
      const t = await signedIn('carol');
      const [h, p, sig] = t.access_token.split('.');
      let r = await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${h}.${p}; jwtSignature=${sig}` });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.metadata.name).to.equal('carol');
      r = await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${h}.${p}` });
      expect(r.status, r.text).to.equal(401);
      r = await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtSignature=${sig}` });
      expect(r.status, r.text).to.equal(401);
    });

    it('refresh with {"refresh_token"} rotates: a new pair, a different refresh token, and the old one then fails', async () => {
      const t1 = await signedIn('dave');
      const r = await refresh(t1.refresh_token);
      expect(r.status, r.text).to.equal(200);
      expect(Object.keys(r.body).sort()).to.deep.equal(TOKEN_KEYS);
      expect(r.body.token_type).to.equal('Bearer');
      const t2 = r.body as Tokens;
      expect(t2.refresh_token).to.not.equal(t1.refresh_token);
      expect([...setCookies(r).keys()].sort()).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
      expect((await whoami(t2.access_token)).status).to.equal(200);
      const again = await refresh(t1.refresh_token);
      expect(again.status, again.text).to.equal(401);
      expect(again.headers.getSetCookie().some((c) => /^jwt\w+=[^;]+/.test(c) && !/Max-Age=0/.test(c))).to.equal(false);
    });

    it('refresh with the jwtRefreshToken cookie rotates too and sets the new cookies', async () => {
      const t1 = await signedIn('erin');
      const r = await s.raw('POST', '/api/auth/refresh', undefined, { cookie: `jwtRefreshToken=${t1.refresh_token}` });
      expect(r.status, r.text).to.equal(200);
      const t2 = r.body as Tokens;
      expect(t2.refresh_token).to.not.equal(t1.refresh_token);
      const c = setCookies(r);
      expect(c.get('jwtRefreshToken')!.value).to.equal(t2.refresh_token);
      expect(`${c.get('jwtPayload')!.value}.${c.get('jwtSignature')!.value}`).to.equal(t2.access_token);
      expect((await whoami(t2.access_token)).status).to.equal(200);
      const old = await s.raw('POST', '/api/auth/refresh', undefined, { cookie: `jwtRefreshToken=${t1.refresh_token}` });
      expect(old.status, old.text).to.equal(401);
    });

    it('reuse of an old refresh token revokes the session: the newer refresh token and the access token fail too; other sessions live on', async () => {
      const t1 = await signedIn('frank');
      const other = await login(s, 'frank');
      const t2 = (await refresh(t1.refresh_token)).body as Tokens;
      expect((await whoami(t2.access_token)).status).to.equal(200);
      expect((await refresh(t1.refresh_token)).status).to.equal(401);
      expect((await refresh(t2.refresh_token)).status).to.equal(401);
      expect((await whoami(t2.access_token)).status).to.equal(401);
      expect((await whoami(t1.access_token)).status).to.equal(401);
      expect((await whoami(other.access_token)).status).to.equal(200);
      expect((await refresh(other.refresh_token)).status).to.equal(200);
    });

    it('logout revokes the session (access and refresh token 401) and clears the three cookies with Max-Age=0', async () => {
      const t = await signedIn('gwen');
      const r = await s.api('GET', '/api/auth/logout', undefined, bearer(t));
      expect(r.status, r.text).to.be.oneOf([200, 204]);
      const c = setCookies(r);
      expect([...c.keys()].sort()).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
      for (const [name, cookie] of c) {
        expect(cookie.value, name).to.equal('');
        expect(cookie.attrs.get('max-age'), name).to.equal('0');
        expect(cookie.attrs.get('path'), name).to.equal('/');
      }
      expect((await whoami(t.access_token)).status).to.equal(401);
      expect((await refresh(t.refresh_token)).status).to.equal(401);
      expect((await s.api('GET', '/api/auth/logout')).status).to.equal(401);
    });

    it('a wrong password and an unknown user are both 400 with the same body', async () => {
      await signUp(s, 'hank');
      const wrong = await s.api('POST', '/api/auth/providers/native/login', { login: 'hank', password: 'not-his-password' });
      const unknown = await s.api('POST', '/api/auth/providers/native/login', {
        login: 'nobody-by-that-name',
        password: 'not-his-password',
      });
      expect(wrong.status, wrong.text).to.equal(400);
      expect(unknown.status, unknown.text).to.equal(400);
      expect(wrong.text).to.equal(unknown.text);
      expect(wrong.headers.getSetCookie()).to.deep.equal([]);
    });
  });

  describe('JWT rows', () => {
    let victim: Tokens;
    let claims: Claims;
    before(async () => {
      victim = await signedIn('ivy');
      claims = claimsOf(victim.access_token);
    });

    it('control: the real claims re-signed HS512 with the derived key are accepted (so the forgeries below differ in one property only)', async () => {
      const r = await whoami(sign(claims, keys.accessTokenKey));
      expect(r.status, r.text).to.equal(200);
      expect(r.body.metadata.name).to.equal('ivy');
    });

    it('JWT-01: alg "none" with an empty signature is 401', async () => {
      const header = b64u({ alg: 'none', typ: 'JWT' });
      for (const token of [
        `${header}.${b64u(claims)}.`,
        `${header}.${b64u({ ...claims, sub: 'admin', sid: claimsOf(admin.access_token).sid })}.`,
      ]) {
        const r = await whoami(token);
        expect(r.status, r.text).to.equal(401);
      }
      const [h, p] = victim.access_token.split('.');
      expect(
        (await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${header}.${p}; jwtSignature=` })).status,
      ).to.equal(401);
      expect((await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${h}.${p}; jwtSignature=` })).status).to.equal(
        401,
      );
    });

    it('JWT-02: HS256 signed with the correct derived key is 401 (only HS512)', async () => {
      for (const alg of ['HS256', 'HS384'] as jwt.Algorithm[]) {
        const r = await whoami(sign(claims, keys.accessTokenKey, alg));
        expect(r.status, `${alg}: ${r.text}`).to.equal(401);
      }
    });

    it('JWT-03: a refresh token as an access token, and an access token to /api/auth/refresh, are 401', async () => {
      const t = await login(s, 'ivy');
      expect((await whoami(t.refresh_token)).status).to.equal(401);
      const [h, p, sig] = t.refresh_token.split('.');
      expect(
        (await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${h}.${p}; jwtSignature=${sig}` })).status,
      ).to.equal(401);
      expect((await refresh(t.access_token)).status).to.equal(401);
      expect((await s.raw('POST', '/api/auth/refresh', undefined, { cookie: `jwtRefreshToken=${t.access_token}` })).status).to.equal(401);
      // Even with every claim a refresh token has, an access-key signature does not make a refresh token.
      const rc = claimsOf(t.refresh_token);
      expect((await refresh(sign(rc, keys.accessTokenKey))).status).to.equal(401);
      // The session itself is still fine: the genuine refresh token still works.
      expect((await refresh(t.refresh_token)).status).to.equal(200);
    });

    it('JWT-04: a valid HS512 signature with the real key but no exp is 401', async () => {
      const { exp: _exp, ...noExp } = claims;
      const r = await whoami(sign(noExp, keys.accessTokenKey));
      expect(r.status, r.text).to.equal(401);
      const t = await login(s, 'ivy');
      const { exp: _rexp, ...refreshNoExp } = claimsOf(t.refresh_token);
      expect((await refresh(sign(refreshNoExp, keys.refreshTokenKey))).status).to.equal(401);
    });

    it('JWT-05: exp 60 s in the past and nbf 1 h in the future are 401; exp 20 s in the past is still accepted (skew <= 30 s)', async () => {
      let r = await whoami(sign({ ...claims, nbf: nowS() - 600, exp: nowS() - 60 }, keys.accessTokenKey));
      expect(r.status, r.text).to.equal(401);
      r = await whoami(sign({ ...claims, nbf: nowS() + 3600, exp: nowS() + 7200 }, keys.accessTokenKey));
      expect(r.status, r.text).to.equal(401);
      r = await whoami(sign({ ...claims, nbf: nowS() - 600, exp: nowS() - 20 }, keys.accessTokenKey));
      expect(r.status, r.text).to.equal(200);
      const t = await login(s, 'ivy');
      expect((await refresh(sign({ ...claimsOf(t.refresh_token), exp: nowS() - 60 }, keys.refreshTokenKey))).status).to.equal(401);
    });

    it('JWT-06: payload sub changed to admin with the original signature is 401', async () => {
      const [h, , sig] = victim.access_token.split('.');
      for (const payload of [
        { ...claims, sub: 'admin' },
        { ...claims, sub: 'admin', sid: claimsOf(admin.access_token).sid },
      ]) {
        const r = await whoami(`${h}.${b64u(payload)}.${sig}`);
        expect(r.status, r.text).to.equal(401);
      }
      expect((await whoami(victim.access_token)).body.metadata.name).to.equal('ivy');
    });

    it('JWT-07: jwtPayload cookie of user A with the jwtSignature cookie of user B is 401', async () => {
      const a = await signedIn('jack');
      const [ah, ap] = a.access_token.split('.');
      const [, , bsig] = admin.access_token.split('.');
      const [, , vsig] = victim.access_token.split('.');
      for (const sig of [bsig, vsig]) {
        const r = await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${ah}.${ap}; jwtSignature=${sig}` });
        expect(r.status, r.text).to.equal(401);
      }
      const [, , asig] = a.access_token.split('.');
      expect(
        (await s.api('GET', '/api/v1/user/whoami', undefined, { cookie: `jwtPayload=${ah}.${ap}; jwtSignature=${asig}` })).status,
      ).to.equal(200);
    });

    it('JWT-08: tokens forged with Perses\' public default key (and key + "-refresh") are 401', async () => {
      const adminClaims = claimsOf(admin.access_token);
      for (const key of [PERSES_DEFAULT_KEY, `${PERSES_DEFAULT_KEY}-refresh`]) {
        const r = await whoami(sign({ ...adminClaims, nbf: nowS() - 10, exp: nowS() + 600 }, key));
        expect(r.status, r.text).to.equal(401);
        const bare = await whoami(sign({ sub: 'admin', pkd: 'native', pid: '', nbf: nowS() - 10, exp: nowS() + 600 }, key));
        expect(bare.status, bare.text).to.equal(401);
      }
      const adminRefresh = claimsOf(admin.refresh_token);
      for (const key of [PERSES_DEFAULT_KEY, `${PERSES_DEFAULT_KEY}-refresh`]) {
        const r = await refresh(sign({ ...adminRefresh, exp: nowS() + 600 }, key));
        expect(r.status, r.text).to.equal(401);
      }
      expect((await whoami(admin.access_token)).status).to.equal(200);
    });

    it('JWT-08: without a configured key the server generates a random key file (mode 0600) in the data dir, different per data dir', async () => {
      const [a, b] = await Promise.all([startAuthServer(), startAuthServer()]);
      try {
        const files = [a, b].map((t) => join(t.dataDir, 'encryption.key'));
        const texts = files.map((f) => readFileSync(f, 'utf8').trim());
        for (const [i, f] of files.entries()) {
          expect(statSync(f).mode & 0o777, f).to.equal(0o600);
          expect(texts[i]).to.match(/^[0-9a-f]{64}$/);
        }
        expect(texts[0]).to.not.equal(texts[1]);
        // The key in the file is the one in use: a token of one server is rejected by the other.
        const ta = await loginAdmin(a);
        expect((await a.api('GET', '/api/v1/user/whoami', undefined, bearer(ta))).status).to.equal(200);
        expect((await b.api('GET', '/api/v1/user/whoami', undefined, bearer(ta))).status).to.equal(401);
        const ring = loadKeyRing({ key: texts[0], dataDir: a.dataDir });
        expect(
          (await a.api('GET', '/api/v1/user/whoami', undefined, bearer(sign(claimsOf(ta.access_token), ring.accessTokenKey)))).status,
        ).to.equal(200);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    });

    it('JWT-09: a valid token only in ?auth_token= or ?access_token= is 401', async () => {
      const t = await login(s, 'ivy');
      for (const param of ['auth_token', 'access_token', 'token', 'jwt']) {
        const r = await s.api('GET', `/api/v1/user/whoami?${param}=${t.access_token}`);
        expect(r.status, `${param}: ${r.text}`).to.equal(401);
      }
      expect((await whoami(t.access_token)).status).to.equal(200);
    });
  });

  describe('AUTHZ-08: deleted users', () => {
    it('after the admin deletes a user, their still-valid access token and refresh token are 401', async () => {
      const t = await signedIn('kate');
      const spare = await login(s, 'kate');
      expect((await whoami(t.access_token)).status).to.equal(200);
      const del = await s.api('DELETE', '/api/v1/users/kate', undefined, bearer(admin));
      expect(del.status, del.text).to.equal(204);
      expect((await whoami(t.access_token)).status).to.equal(401);
      expect((await s.api('GET', '/api/v1/projects', undefined, bearer(t))).status).to.equal(401);
      expect((await refresh(t.refresh_token)).status).to.equal(401);
      expect((await refresh(spare.refresh_token)).status).to.equal(401);
    });

    it('a user re-created under the same name does not inherit the old tokens', async () => {
      const old = await signedIn('liam');
      expect((await s.api('DELETE', '/api/v1/users/liam', undefined, bearer(admin))).status).to.equal(204);
      // Re-created before the old tokens are tried, so nothing has revoked them on the way.
      await signUp(s, 'liam', 'a-different-password');
      expect((await whoami(old.access_token)).status).to.equal(401);
      expect((await refresh(old.refresh_token)).status).to.equal(401);
      const fresh = await login(s, 'liam', 'a-different-password');
      expect((await whoami(fresh.access_token)).body.metadata.name).to.equal('liam');
      expect((await whoami(old.access_token)).status).to.equal(401);
    });

    it("a stranger who signs up under a deleted user's name does not inherit that user's project or global role bindings", async () => {
      const owner = await signedIn('mia');
      const project = { kind: 'Project', metadata: { name: 'mia-p' }, spec: {} };
      expect((await s.api('POST', '/api/v1/projects', project, bearer(owner))).status).to.equal(200);
      const grant = {
        kind: 'GlobalRoleBinding',
        metadata: { name: 'mia-admin' },
        spec: { role: 'admin', subjects: [{ kind: 'User', name: 'mia' }] },
      };
      expect((await s.api('POST', '/api/v1/globalrolebindings', grant, bearer(admin))).status).to.equal(200);
      expect((await s.api('DELETE', '/api/v1/users/mia', undefined, bearer(admin))).status).to.equal(204);
      // Open sign-up: anyone may take the freed name.
      await signUp(s, 'mia', 'stranger-password');
      const stranger = await login(s, 'mia', 'stranger-password');
      const inProject = await s.api('GET', '/api/v1/projects/mia-p', undefined, bearer(stranger));
      const users = await s.api('GET', '/api/v1/users', undefined, bearer(stranger));
      expect(inProject.status, `GET /api/v1/projects/mia-p as the new "mia": ${inProject.text}`).to.equal(403);
      expect(users.status, `GET /api/v1/users as the new "mia": ${users.text.slice(0, 200)}`).to.equal(403);
    });
  });
});
