/**
 * External identity providers (issue 6) against a real OpenID provider (`oidc-provider` v9 on a
 * loopback port, test/helpers/oidc-provider.ts): the web flow end to end through an HTTP client
 * with a cookie jar (redirects followed, the provider's login and consent forms submitted), the
 * device flow (approved through the provider's /device pages), client credentials, the OAuth 2.0
 * path against the same provider with explicit endpoints (/auth, /token, /me), /api/config, and
 * the security rows OIDC-01..06 of docs/security.md.
 *
 * OIDC-03 needs ID tokens that a correct provider never issues (wrong nonce / aud / iss, expired),
 * so it points dashplane at `startFakeOidcProvider`, a small hand-written provider whose token
 * endpoint forges the ID token on demand; a control login with a correct ID token proves that the
 * fake works with dashplane, and the fake counts its code exchanges so each rejection is known to
 * come from the ID-token checks, not from an earlier failure.
 */
import { expect } from 'chai';
import { bearer, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { cookieHeader } from './helpers/client.js';
import {
  Browser,
  browserLogin,
  browserLoginUntilCallback,
  startFakeOidcProvider,
  startOidcProvider,
  type BrowserResponse,
  type FakeOidcProvider,
  type IdTokenForgery,
  type IdpAccount,
  type TestOidcProvider,
} from './helpers/oidc-provider.js';
import type { ApiResponse, TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const SESSION_COOKIES = ['jwtPayload', 'jwtSignature', 'jwtRefreshToken'];
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const ACCOUNTS: IdpAccount[] = [
  {
    sub: 'u-carla',
    preferred_username: 'carla',
    email: 'carla@corp.example',
    email_verified: true,
    given_name: 'Carla',
    family_name: 'Diaz',
    picture: 'http://127.0.0.1/carla.png',
  },
  {
    sub: 'u-devon',
    preferred_username: 'devon',
    email: 'devon@corp.example',
    email_verified: true,
    given_name: 'Devon',
    family_name: 'Lee',
  },
  {
    sub: 'u-olga',
    preferred_username: 'olga',
    email: 'olga@corp.example',
    email_verified: true,
    given_name: 'Olga',
    family_name: 'Ivanova',
  },
  { sub: 'u-sam', preferred_username: 'sam', email: 'sam@corp.example', email_verified: true },
  { sub: 'u-pat', preferred_username: 'pat', email: 'pat@corp.example', email_verified: true },
  { sub: 'u-rita', preferred_username: 'rita', email: 'rita@corp.example', email_verified: true },
  // OIDC-04: takeover attempts
  { sub: 'u-alice-idp', preferred_username: 'alice', email: 'alice@corp.example', email_verified: true },
  { sub: 'u-bob-1', preferred_username: 'bob', email: 'bob@corp.example', email_verified: true },
  { sub: 'u-bob-2', preferred_username: 'bob', email: 'bob@corp.example', email_verified: true },
  { sub: 'u-bobby', preferred_username: 'bobby', email: 'bob@corp.example', email_verified: true },
  // OIDC-05
  { sub: 'u-alice-evil', preferred_username: 'alice', email: 'alice@evil.example', email_verified: true },
  { sub: 'u-alice-unverified', preferred_username: 'alice', email: 'alice@corp.example', email_verified: false },
  { sub: 'u-alice-corp', preferred_username: 'alice', email: 'alice@corp.example', email_verified: true },
  // allowed_email_domains needs a *verified* e-mail (config schema): absent or the string "false" is not verified
  { sub: 'u-nina', preferred_username: 'nina', email: 'nina@corp.example' },
  { sub: 'u-stella', preferred_username: 'stella', email: 'stella@corp.example', email_verified: 'false' as unknown as boolean },
  // no preferred_username: the user is named after the subject
  { sub: 'u-nameless', email: 'nameless@corp.example', email_verified: true },
  { sub: 'u-sess', preferred_username: 'sess', email: 'sess@corp.example', email_verified: true },
];

const providerPath = (kind: 'oidc' | 'oauth', slug: string, route: string) => `/api/auth/providers/${kind}/${slug}/${route}`;
const callbackUrl = (s: TestServer, kind: 'oidc' | 'oauth', slug: string) => `${s.url}${providerPath(kind, slug, 'callback')}`;

const oidcEntry = (p: { issuer: string; clientId: string; clientSecret: string }, slug: string, extra: Record<string, unknown> = {}) => ({
  slug_id: slug,
  name: `IdP ${slug}`,
  client_id: p.clientId,
  client_secret: p.clientSecret,
  issuer: p.issuer,
  ...extra,
});

const oauthEntry = (p: TestOidcProvider, slug: string) => ({
  slug_id: slug,
  name: `OAuth ${slug}`,
  client_id: p.clientId,
  client_secret: p.clientSecret,
  auth_url: `${p.issuer}/auth`,
  token_url: `${p.issuer}/token`,
  user_infos_url: `${p.issuer}/me`,
  device_auth_url: `${p.issuer}/device/auth`,
  custom_login_property: 'preferred_username',
  scopes: ['openid', 'profile', 'email'],
});

/** dashplane's session cookies set (non-empty, not expired) by a response. */
function sessionCookiesSet(r: BrowserResponse): string[] {
  return r.setCookie.filter((line) => {
    const name = line.slice(0, line.indexOf('='));
    const value = line
      .slice(line.indexOf('=') + 1)
      .split(';')[0]
      .trim();
    if (!SESSION_COOKIES.includes(name) || value === '' || /;\s*max-age=(0|-\d+)\b/i.test(line)) return false;
    const expires = /;\s*expires=([^;]+)/i.exec(line);
    return !(expires && Date.parse(expires[1]) <= Date.now());
  });
}

/** A failed callback: 400 or 401, and no session cookie. */
function expectRejected(r: BrowserResponse, what: string, statuses = [400, 401]): void {
  expect(statuses, `${what}: ${r.method} ${r.url} answered ${r.status} ${r.rawLocation ?? ''} ${r.text.slice(0, 300)}`).to.include(
    r.status,
  );
  expect(sessionCookiesSet(r), `${what}: session cookies set`).to.deep.equal([]);
}

/** A successful callback: 302 with the three session cookies. */
function expectLoggedIn(r: BrowserResponse, what: string): void {
  expect(r.status, `${what}: ${r.method} ${r.url} answered ${r.status} ${r.text.slice(0, 300)}`).to.equal(302);
  const names = sessionCookiesSet(r).map((l) => l.slice(0, l.indexOf('=')));
  expect(names.sort(), `${what}: session cookies`).to.deep.equal([...SESSION_COOKIES].sort());
}

/** The Cookie header a browser sends with dashplane's access cookies from a callback response. */
const accessCookies = (r: BrowserResponse) => ({
  cookie: cookieHeader(sessionCookiesSet(r).filter((l) => !l.startsWith('jwtRefreshToken='))),
});

const whoamiName = async (s: TestServer, headers: Record<string, string>): Promise<string> => {
  const r = await s.api('GET', '/api/v1/user/whoami', undefined, headers);
  expect(r.status, r.text).to.equal(200);
  return r.body.metadata.name as string;
};

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

/** Asserts the exact dashplane token body of docs/api.md §12. */
function expectTokenBody(r: ApiResponse): Tokens {
  expect(r.status, r.text).to.equal(200);
  expect(Object.keys(r.body).sort()).to.deep.equal(['access_token', 'expires_in', 'expiry', 'refresh_token', 'token_type']);
  expect(r.body.token_type).to.equal('Bearer');
  return r.body as Tokens;
}

describe('external identity providers: OIDC and OAuth 2.0 (issue 6)', function () {
  this.timeout(60_000);

  let idp: TestOidcProvider;
  let idp2: TestOidcProvider;
  let fake: FakeOidcProvider;
  let s: TestServer;
  let admin: Tokens;
  const getUser = (name: string, server = s, token = admin) => server.api('GET', `/api/v1/users/${name}`, undefined, bearer(token));
  const loginUrl = (slug = 'idp', query = '', kind: 'oidc' | 'oauth' = 'oidc') => `${s.url}${providerPath(kind, slug, 'login')}${query}`;

  before(async () => {
    [idp, idp2, fake] = await Promise.all([
      startOidcProvider({ accounts: ACCOUNTS }),
      // A second issuer that has an account with the same subject and login name as one of the first.
      startOidcProvider({ accounts: [{ sub: 'u-bob-1', preferred_username: 'bob', email: 'bob@corp.example', email_verified: true }] }),
      startFakeOidcProvider({
        accounts: [
          { sub: 'f-control', preferred_username: 'fiona', email: 'fiona@corp.example', email_verified: true },
          ...(['wrong-nonce', 'no-nonce', 'wrong-aud', 'wrong-iss', 'expired'] as const).map((f) => ({
            sub: `f-${f}`,
            preferred_username: `forged-${f}`,
            email: `${f}@corp.example`,
            email_verified: true,
          })),
        ],
      }),
    ]);
    s = await startAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
        oidcEntry(idp, 'idp', { device_code: { scopes: ['openid', 'profile', 'email'] } }),
        oidcEntry(idp2, 'idp2'),
        oidcEntry(fake, 'fake'),
      ]),
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OAUTH: JSON.stringify([oauthEntry(idp, 'idp-oauth')]),
    });
    idp.allowRedirectUri(callbackUrl(s, 'oidc', 'idp'), callbackUrl(s, 'oauth', 'idp-oauth'));
    idp2.allowRedirectUri(callbackUrl(s, 'oidc', 'idp2'));
    admin = await loginAdmin(s);
  });

  after(async () => {
    await s?.stop();
    await Promise.all([idp?.stop(), idp2?.stop(), fake?.stop()]);
  });

  describe('flows', () => {
    it('web flow: login redirects with state, nonce, PKCE S256 and short-lived HttpOnly cookies; the callback creates the user and a session', async () => {
      const b = new Browser();
      const l = await browserLogin(loginUrl(), 'u-carla', b);

      expect(l.login.status, l.login.text).to.equal(302);
      const authorize = new URL(l.authorizeUrl);
      expect(authorize.origin + authorize.pathname).to.equal(`${idp.issuer}/auth`);
      const q = authorize.searchParams;
      expect(q.get('client_id')).to.equal('dashplane');
      expect(q.get('response_type')).to.equal('code');
      expect(q.get('redirect_uri')).to.equal(callbackUrl(s, 'oidc', 'idp'));
      expect(q.get('scope')?.split(' ')).to.include.members(['openid', 'profile', 'email']);
      expect(q.get('state')).to.have.length.greaterThan(15);
      expect(q.get('nonce')).to.have.length.greaterThan(15);
      expect(q.get('code_challenge_method')).to.equal('S256');
      expect(q.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);

      // The flow cookies: HttpOnly, short-lived, and not SameSite=Strict (a real IdP sends the
      // browser back with a cross-site navigation, which does not carry Strict cookies).
      expect(l.login.setCookie, 'login sets the flow cookies').to.not.be.empty;
      for (const line of l.login.setCookie) {
        expect(line, line).to.match(/;\s*httponly/i);
        expect(line, line).to.not.match(/;\s*samesite=strict/i);
        const maxAge = /;\s*max-age=(\d+)/i.exec(line);
        const expires = /;\s*expires=([^;]+)/i.exec(line);
        expect(maxAge || expires, `${line}: short-lived`).to.not.equal(null);
        if (maxAge) expect(Number(maxAge[1]), line).to.be.within(1, 3600);
        if (expires && !maxAge) expect(Date.parse(expires[1]) - Date.now(), line).to.be.at.most(3600_000);
      }

      expectLoggedIn(l.callback, 'callback');
      expect(l.callback.rawLocation).to.equal('/');

      // The cookies authenticate dashplane (Cookie header from the Set-Cookie lines, and the jar).
      expect(await whoamiName(s, accessCookies(l.callback))).to.equal('carla');
      const viaJar = await b.fetch(`${s.url}/api/v1/user/whoami`);
      expect(viaJar.status, viaJar.text).to.equal(200);
      expect(JSON.parse(viaJar.text).metadata.name).to.equal('carla');

      const u = await getUser('carla');
      expect(u.status, u.text).to.equal(200);
      expect(u.body.spec.oauthProviders).to.have.length(1);
      expect(u.body.spec.oauthProviders[0]).to.include({ issuer: idp.issuer, subject: 'u-carla', email: 'carla@corp.example' });
      expect(u.body.spec.nativeProvider?.password, 'no password for an external user').to.equal(undefined);
    });

    it('web flow: a second login of the same IdP user updates the user instead of creating another', async () => {
      // carla was created by the previous test, or is created now.
      expectLoggedIn((await browserLogin(loginUrl(), 'u-carla')).callback, 'first login');
      idp.accounts.get('u-carla')!.email = 'carla.diaz@corp.example';
      const l = await browserLogin(loginUrl(), 'u-carla');
      expectLoggedIn(l.callback, 'second login');
      expect(await whoamiName(s, accessCookies(l.callback))).to.equal('carla');

      const list = await s.api('GET', '/api/v1/users', undefined, bearer(admin));
      expect(list.status, list.text).to.equal(200);
      const carlas = (list.body as { metadata: { name: string } }[]).filter((x) => x.metadata.name.startsWith('carla'));
      expect(carlas.map((x) => x.metadata.name)).to.deep.equal(['carla']);
      const u = await getUser('carla');
      expect(u.body.spec.oauthProviders).to.have.length(1);
      expect(u.body.spec.oauthProviders[0]).to.include({ issuer: idp.issuer, subject: 'u-carla', email: 'carla.diaz@corp.example' });
    });

    it('web flow: without the login claim the user is named after the subject', async () => {
      const l = await browserLogin(loginUrl(), 'u-nameless');
      expectLoggedIn(l.callback, 'callback');
      expect(await whoamiName(s, accessCookies(l.callback))).to.equal('u-nameless');
    });

    it('SESS-01..03 for an OIDC session: cookie attributes, refresh rotation and reuse detection, logout', async () => {
      const l = await browserLogin(loginUrl(), 'u-sess');
      expectLoggedIn(l.callback, 'callback');
      const line = (name: string) => l.callback.setCookie.find((c) => c.startsWith(`${name}=`))!;
      for (const name of ['jwtSignature', 'jwtRefreshToken']) {
        expect(line(name), name).to.match(/;\s*httponly/i);
        expect(line(name), name).to.match(/;\s*samesite=lax/i);
        expect(line(name), name).to.match(/;\s*path=\/(;|$)/i);
      }
      expect(line('jwtPayload'), 'jwtPayload readable by scripts').to.not.match(/;\s*httponly/i);
      const value = (name: string) =>
        decodeURIComponent(
          line(name)
            .split(';')[0]
            .slice(name.length + 1),
        );
      const r1 = value('jwtRefreshToken');
      const access = `${value('jwtPayload')}.${value('jwtSignature')}`;
      const claims = JSON.parse(Buffer.from(access.split('.')[1], 'base64url').toString('utf8'));
      expect(claims).to.include({ sub: 'sess', pkd: 'oidc', pid: 'idp' });

      const refreshed = await s.api('POST', '/api/auth/refresh', { refresh_token: r1 });
      const t2 = expectTokenBody(refreshed);
      const reuse = await s.api('POST', '/api/auth/refresh', { refresh_token: r1 });
      expect(reuse.status, `reuse of a rotated refresh token: ${reuse.text}`).to.equal(401);
      expect((await s.api('POST', '/api/auth/refresh', { refresh_token: t2.refresh_token })).status, 'the family is revoked').to.equal(401);

      const l2 = await browserLogin(loginUrl(), 'u-sess');
      expectLoggedIn(l2.callback, 'second session');
      const out = await s.api('GET', '/api/auth/logout', undefined, accessCookies(l2.callback));
      expect(out.status, out.text).to.be.within(200, 204);
      const r = l2.callback.setCookie.find((c) => c.startsWith('jwtRefreshToken='))!;
      expect(
        (await s.api('POST', '/api/auth/refresh', { refresh_token: decodeURIComponent(r.split(';')[0].slice('jwtRefreshToken='.length)) }))
          .status,
        'refresh after logout',
      ).to.equal(401);
    });

    it('device flow: device/code answers the provider device authorization; token is pending until the user approves, then dashplane tokens', async () => {
      const dc = await s.raw('POST', providerPath('oidc', 'idp', 'device/code'));
      expect(dc.status, dc.text).to.equal(200);
      expect(dc.body).to.include.keys('device_code', 'user_code', 'verification_uri', 'expires_in');
      expect(dc.body.verification_uri).to.equal(`${idp.issuer}/device`);

      const poll = () =>
        s.raw('POST', providerPath('oidc', 'idp', 'token'), form({ grant_type: DEVICE_GRANT, device_code: dc.body.device_code }), FORM);
      const pending = await poll();
      expect(pending.status, pending.text).to.equal(400);
      expect(pending.body?.error).to.be.oneOf(['authorization_pending', 'slow_down']);

      await idp.approveDevice(dc.body.user_code, 'u-devon');

      const done = await waitFor(
        'the device token',
        async () => {
          const r = await poll();
          if (r.status === 400 && ['authorization_pending', 'slow_down'].includes(r.body?.error)) return undefined;
          return r;
        },
        20_000,
        250,
      );
      const t = expectTokenBody(done!);
      expect(await whoamiName(s, bearer(t))).to.equal('devon');
      const u = await getUser('devon');
      expect(u.body.spec.oauthProviders[0]).to.include({ issuer: idp.issuer, subject: 'u-devon', email: 'devon@corp.example' });

      // The device code is single-use.
      const again = await poll();
      expect(again.status, again.text).to.be.within(400, 401);
    });

    it('device flow: GET device/code, and POST with an (empty) form body as OAuth clients and `curl -d ""` send it, work too; an unknown device code is an OAuth error', async () => {
      const get = await s.api('GET', providerPath('oidc', 'idp', 'device/code'));
      expect(get.status, get.text).to.equal(200);
      expect(get.body.user_code).to.be.a('string');
      const formPost = await s.raw('POST', providerPath('oidc', 'idp', 'device/code'), '', FORM);
      expect(formPost.status, formPost.text).to.equal(200);
      expect(formPost.body.user_code).to.be.a('string');
      const bogus = await s.raw(
        'POST',
        providerPath('oidc', 'idp', 'token'),
        form({ grant_type: DEVICE_GRANT, device_code: 'not-a-device-code' }),
        FORM,
      );
      expect(bogus.status, bogus.text).to.be.within(400, 401);
      expect(bogus.body?.error, bogus.text).to.be.a('string');
    });

    it("client credentials: the caller's client at the provider gets dashplane tokens for a user named after the client id", async () => {
      const r = await s.raw('POST', providerPath('oidc', 'idp', 'token'), form({ grant_type: 'client_credentials' }), {
        ...FORM,
        ...basic(idp.robotId, idp.robotSecret),
      });
      const t = expectTokenBody(r);
      expect(await whoamiName(s, bearer(t))).to.equal('robot');

      const wrong = await s.raw('POST', providerPath('oidc', 'idp', 'token'), form({ grant_type: 'client_credentials' }), {
        ...FORM,
        ...basic(idp.robotId, 'wrong-secret'),
      });
      expect(wrong.status, wrong.text).to.be.within(400, 401);
      expect(wrong.text).to.not.contain('access_token');
      const none = await s.raw('POST', providerPath('oidc', 'idp', 'token'), form({ grant_type: 'client_credentials' }), FORM);
      expect(none.status, none.text).to.be.within(400, 401);
      // GET is accepted too (docs/api.md §2).
      const viaGet = await s.api(
        'GET',
        `${providerPath('oidc', 'idp', 'token')}?grant_type=client_credentials`,
        undefined,
        basic(idp.robotId, idp.robotSecret),
      );
      expect(await whoamiName(s, bearer(expectTokenBody(viaGet)))).to.equal('robot');
    });

    it('OAuth 2.0 path with explicit auth/token/userinfo URLs (oidc-provider /auth, /token, /me): web flow and device flow', async () => {
      const l = await browserLogin(loginUrl('idp-oauth', '', 'oauth'), 'u-olga');
      const q = new URL(l.authorizeUrl).searchParams;
      expect(l.authorizeUrl.startsWith(`${idp.issuer}/auth?`), l.authorizeUrl).to.equal(true);
      expect(q.get('state')).to.have.length.greaterThan(15);
      expect(q.get('code_challenge_method')).to.equal('S256');
      expect(q.get('redirect_uri')).to.equal(callbackUrl(s, 'oauth', 'idp-oauth'));
      expectLoggedIn(l.callback, 'OAuth callback');
      expect(await whoamiName(s, accessCookies(l.callback))).to.equal('olga');
      const u = await getUser('olga');
      expect(u.body.spec.oauthProviders).to.have.length(1);
      expect(u.body.spec.oauthProviders[0]).to.include({ subject: 'u-olga', email: 'olga@corp.example' });

      const dc = await s.raw('POST', providerPath('oauth', 'idp-oauth', 'device/code'));
      expect(dc.status, dc.text).to.equal(200);
      await idp.approveDevice(dc.body.user_code, 'u-olga');
      const done = await waitFor(
        'the OAuth device token',
        async () => {
          const r = await s.raw(
            'POST',
            providerPath('oauth', 'idp-oauth', 'token'),
            form({ grant_type: DEVICE_GRANT, device_code: dc.body.device_code }),
            FORM,
          );
          return r.status === 400 && ['authorization_pending', 'slow_down'].includes(r.body?.error) ? undefined : r;
        },
        20_000,
        250,
      );
      expect(await whoamiName(s, bearer(expectTokenBody(done!)))).to.equal('olga');
    });

    it('/api/config lists the providers (slug and name) without client secrets', async () => {
      const r = await s.api('GET', '/api/config');
      expect(r.status, r.text).to.equal(200);
      const providers = r.body.security.authentication.providers;
      expect(providers.oidc.map((p: { slug_id: string }) => p.slug_id)).to.deep.equal(['idp', 'idp2', 'fake']);
      expect(providers.oidc[0].name).to.equal('IdP idp');
      expect(providers.oauth.map((p: { slug_id: string }) => p.slug_id)).to.deep.equal(['idp-oauth']);
      for (const secret of [idp.clientSecret, idp2.clientSecret, fake.clientSecret]) expect(r.text).to.not.contain(secret);
      for (const p of [...providers.oidc, ...providers.oauth]) expect(p.client_secret ?? '<secret>').to.equal('<secret>');
    });
  });

  describe('security rows', () => {
    it('OIDC-01: callback with missing, mismatched, foreign or replayed state → 400/401 and no session cookies', async () => {
      const withState = (url: string, state: string | undefined) => {
        const u = new URL(url);
        if (state === undefined) u.searchParams.delete('state');
        else u.searchParams.set('state', state);
        return u.href;
      };

      const missing = await browserLoginUntilCallback(loginUrl(), 'u-sam');
      expectRejected(await missing.browser.fetch(withState(missing.callbackUrl, undefined)), 'missing state');

      const mismatched = await browserLoginUntilCallback(loginUrl(), 'u-sam');
      expectRejected(await mismatched.browser.fetch(withState(mismatched.callbackUrl, 'x'.repeat(43))), 'mismatched state');

      // Login CSRF: the attacker's code and state delivered to a victim whose browser started its
      // own login (its own state cookie), and to a browser that never started one.
      const attacker = await browserLoginUntilCallback(loginUrl(), 'u-sam');
      const victim = await browserLoginUntilCallback(loginUrl(), 'u-pat');
      expectRejected(await victim.browser.fetch(attacker.callbackUrl), "another browser's state");
      expectRejected(await new Browser().fetch(attacker.callbackUrl), 'state without the flow cookies');

      // Mix-up: code and state from a login at provider idp delivered to the callback of provider idp2.
      const mixup = await browserLoginUntilCallback(loginUrl(), 'u-sam');
      const other = new URL(mixup.callbackUrl);
      other.pathname = providerPath('oidc', 'idp2', 'callback');
      expectRejected(await mixup.browser.fetch(other.href), 'the callback of another provider');

      // Replay: the exact callback request (URL and the cookies the browser sent) a second time.
      const l = await browserLoginUntilCallback(loginUrl(), 'u-sam');
      const cookie = l.browser.cookieHeader(l.callbackUrl);
      const first = await l.browser.fetch(l.callbackUrl);
      expectLoggedIn(first, 'the genuine callback');
      const replay = await new Browser().fetch(l.callbackUrl, { headers: { cookie } });
      expectRejected(replay, 'replayed state and code');
    });

    it('OIDC-02: the authorize redirect carries code_challenge_method=S256; the provider refuses a code without its verifier and a request without PKCE', async () => {
      const l = await browserLoginUntilCallback(loginUrl(), 'u-pat');
      const authorize = new URL(l.authorizeUrl);
      expect(authorize.searchParams.get('code_challenge_method')).to.equal('S256');
      expect(authorize.searchParams.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);

      // Someone holding the code (but not dashplane's verifier) cannot redeem it, even with the client secret.
      const code = new URL(l.callbackUrl).searchParams.get('code')!;
      const exchange = (extra: Record<string, string>) =>
        fetch(`${idp.issuer}/token`, {
          method: 'POST',
          headers: { ...FORM, ...basic(idp.clientId, idp.clientSecret) },
          body: form({ grant_type: 'authorization_code', code, redirect_uri: authorize.searchParams.get('redirect_uri')!, ...extra }),
        });
      for (const [what, extra] of [
        ['no code_verifier', {}],
        ['a wrong code_verifier', { code_verifier: 'w'.repeat(43) }],
      ] as const) {
        const r = await exchange(extra);
        const body = (await r.json()) as { error?: string };
        expect(r.status, what).to.equal(400);
        expect(body.error, what).to.equal('invalid_grant');
      }
      // dashplane itself holds the verifier: its callback still succeeds with the same code.
      expectLoggedIn(await l.browser.fetch(l.callbackUrl), 'callback with the verifier');

      // The provider enforces PKCE for this client: the same authorization request without it is refused.
      const noPkce = new URL(l.authorizeUrl);
      noPkce.searchParams.delete('code_challenge');
      noPkce.searchParams.delete('code_challenge_method');
      const r = await new Browser().fetch(noPkce.href);
      expect(r.location, r.text).to.be.a('string');
      expect(new URL(r.location!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('OIDC-03: ID token with wrong nonce, no nonce, wrong aud, wrong iss, or expired → login fails, no user created', async () => {
      fake.forgery = 'none';
      const control = await browserLogin(loginUrl('fake'), 'f-control');
      expectLoggedIn(control.callback, 'control login with a correct ID token');
      expect((await getUser('fiona')).status).to.equal(200);

      const forgeries: IdTokenForgery[] = ['wrong-nonce', 'no-nonce', 'wrong-aud', 'wrong-iss', 'expired'];
      for (const f of forgeries) {
        fake.forgery = f;
        const exchanges = fake.tokenResponses;
        const l = await browserLogin(loginUrl('fake'), `f-${f}`);
        expect(fake.tokenResponses, `${f}: dashplane exchanged the code`).to.equal(exchanges + 1);
        expectRejected(l.callback, f);
        const u = await getUser(`forged-${f}`);
        expect(u.status, `${f}: user created: ${u.text}`).to.equal(404);
      }
      fake.forgery = 'none';
    });

    it('OIDC-04: an IdP user never takes over a native user or a user bound to another subject or issuer; no merge by e-mail', async () => {
      // Native alice; an IdP user whose login claim and verified e-mail say alice.
      await signUp(s, 'alice');
      const aliceBefore = await getUser('alice');
      expect(aliceBefore.status).to.equal(200);
      const l1 = await browserLogin(loginUrl(), 'u-alice-idp');
      expectRejected(l1.callback, 'IdP alice over native alice', [400, 401, 403, 409]);
      expect((await getUser('alice')).body).to.deep.equal(aliceBefore.body);
      const native = await s.api('POST', '/api/auth/providers/native/login', { login: 'alice', password: 'alice-password' });
      expect(native.status, `alice still logs in with her password: ${native.text}`).to.equal(200);

      // bob is bound to (idp, u-bob-1); a different subject at the same IdP also says bob.
      expectLoggedIn((await browserLogin(loginUrl(), 'u-bob-1')).callback, 'bob (u-bob-1)');
      const bobBefore = await getUser('bob');
      expect(bobBefore.body.spec.oauthProviders[0]).to.include({ issuer: idp.issuer, subject: 'u-bob-1' });
      const l2 = await browserLogin(loginUrl(), 'u-bob-2');
      expectRejected(l2.callback, 'another subject at the same IdP', [400, 401, 403, 409]);
      expect((await getUser('bob')).body).to.deep.equal(bobBefore.body);

      // The same subject string and login name at another issuer.
      const l3 = await browserLogin(loginUrl('idp2'), 'u-bob-1');
      expectRejected(l3.callback, 'the same subject at another issuer', [400, 401, 403, 409]);
      expect((await getUser('bob')).body).to.deep.equal(bobBefore.body);

      // Another IdP user with bob's e-mail: either its own user (bobby) or refused, never bob.
      const l4 = await browserLogin(loginUrl(), 'u-bobby');
      if (l4.callback.status === 302) expect(await whoamiName(s, accessCookies(l4.callback))).to.equal('bobby');
      else expectRejected(l4.callback, "bob's e-mail", [400, 401, 403, 409]);
      expect((await getUser('bob')).body).to.deep.equal(bobBefore.body);
    });

    it('OIDC-05: with allowed_email_domains, alice@evil.example (or an unverified corp address) does not get the roles bound to alice', async () => {
      const s5 = await startAuthServer({
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
          oidcEntry(idp, 'corp', { allowed_email_domains: ['corp.example'] }),
        ]),
      });
      try {
        idp.allowRedirectUri(callbackUrl(s5, 'oidc', 'corp'));
        const admin5 = await loginAdmin(s5);
        const ok = async (p: Promise<ApiResponse>) => {
          const r = await p;
          expect(r.status, r.text).to.equal(200);
          return r;
        };
        await ok(s5.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'payroll' }, spec: {} }, bearer(admin5)));
        // a grant names a user that exists: alice is created for the provider ahead of her first sign-in
        const awaiting = { kind: 'User', metadata: { name: 'alice' }, spec: { oauthProviders: [{ issuer: idp.issuer }] } };
        await ok(s5.api('POST', '/api/v1/users', awaiting, bearer(admin5)));
        await ok(
          s5.api(
            'POST',
            '/api/v1/projects/payroll/rolebindings',
            {
              kind: 'RoleBinding',
              metadata: { name: 'alice-owner' },
              spec: { role: 'owner', subjects: [{ kind: 'User', name: 'alice' }] },
            },
            bearer(admin5),
          ),
        );
        const login5 = (account: string) => browserLogin(`${s5.url}${providerPath('oidc', 'corp', 'login')}`, account);

        for (const [account, what] of [
          ['u-alice-evil', 'alice@evil.example'],
          ['u-alice-unverified', 'alice@corp.example with email_verified: false'],
        ] as const) {
          const l = await login5(account);
          expectRejected(l.callback, what, [400, 401, 403]);
          expect((await getUser('alice', s5, admin5)).body.spec, `${what}: user alice bound to it`).to.deep.equal(awaiting.spec);
        }

        // The real alice (verified corp address) does get the binding: the check above is not vacuous.
        const l = await login5('u-alice-corp');
        expectLoggedIn(l.callback, 'alice@corp.example');
        expect(await whoamiName(s5, accessCookies(l.callback))).to.equal('alice');
        const perms = await s5.api('GET', '/api/v1/projects/payroll/dashboards', undefined, accessCookies(l.callback));
        expect(perms.status, perms.text).to.equal(200);
      } finally {
        await s5.stop();
      }
    });

    it('OIDC-05 (verified e-mail): with allowed_email_domains, an OIDC e-mail without email_verified, or with the string "false", is not admitted', async () => {
      const s5 = await startAuthServer({
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
          oidcEntry(idp, 'corp', { allowed_email_domains: ['corp.example'] }),
        ]),
      });
      try {
        idp.allowRedirectUri(callbackUrl(s5, 'oidc', 'corp'));
        const admin5 = await loginAdmin(s5);
        const failures: string[] = [];
        for (const [account, name, what] of [
          ['u-nina', 'nina', 'nina@corp.example without email_verified'],
          ['u-stella', 'stella', 'stella@corp.example with email_verified: "false" (a string, as some IdPs send it)'],
        ] as const) {
          const l = await browserLogin(`${s5.url}${providerPath('oidc', 'corp', 'login')}`, account);
          const created = (await getUser(name, s5, admin5)).status === 200;
          if (![400, 401, 403].includes(l.callback.status) || sessionCookiesSet(l.callback).length || created)
            failures.push(
              `${what}: callback ${l.callback.status} ${l.callback.rawLocation ?? ''}, session cookies ${sessionCookiesSet(l.callback).length}, user created ${created}`,
            );
        }
        expect(failures).to.deep.equal([]);
      } finally {
        await s5.stop();
      }
    });

    it('OIDC-06: hostile redirect= values end on a same-origin path (fallback /); a plain path is kept', async () => {
      const origin = new URL(s.url).origin;
      const control = await browserLogin(loginUrl('idp', '?redirect=%2Fprojects%2Fdemo'), 'u-rita');
      expectLoggedIn(control.callback, 'redirect=/projects/demo');
      expect(control.callback.rawLocation).to.equal('/projects/demo');

      const hostile: [string, string][] = [
        ['https://evil.example', encodeURIComponent('https://evil.example')],
        ['//evil.example', '//evil.example'],
        ['/\\evil.example', '/%5Cevil.example'],
        ['%2F%2Fevil.example', '%2F%2Fevil.example'],
        ['%2F%2Fevil.example (encoded twice)', '%252F%252Fevil.example'],
        ['javascript:alert(1)', 'javascript:alert(1)'],
        ['/%09/evil.example', '/%09/evil.example'],
        ['///evil.example', '///evil.example'],
        ['/%2F%2Fevil.example', '/%252F%252Fevil.example'],
        ['http://127.0.0.1:1/ (another port)', encodeURIComponent('http://127.0.0.1:1/')],
      ];
      for (const [what, raw] of hostile) {
        const l = await browserLogin(loginUrl('idp', `?redirect=${raw}`), 'u-rita');
        expectLoggedIn(l.callback, `redirect=${what}`);
        const loc = l.callback.rawLocation ?? '';
        expect(loc, `redirect=${what}: Location ${JSON.stringify(loc)}`).to.match(/^\/(?![/\\])/);
        expect(
          /[\u0000-\u0020\u007f\\]/.test(loc),
          `redirect=${what}: Location ${JSON.stringify(loc)} has control characters, spaces or backslashes`,
        ).to.equal(false);
        expect(new URL(loc, s.url).origin, `redirect=${what}: Location ${JSON.stringify(loc)}`).to.equal(origin);
      }
    });
  });
});
