/**
 * CORS with Perses' `security.cors` keys and answers (Perses' own cases are replayed in
 * test/perses-e2e-config.test.ts): off by default, preflights answered before authentication,
 * wildcard origins, credentials, exposed headers; and how it meets the CSRF rule: a
 * cookie-authenticated write from another origin is accepted only from an origin the operator
 * trusts with credentials.
 */
import { expect } from 'chai';
import { bearer, startAuthServer, type Tokens } from './helpers/auth.js';
import { cookieHeader, setCookies } from './helpers/client.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

const TRUSTED = 'https://dashboards.example.com';
const EVIL = 'https://evil.example.net';

/** The CORS and Vary headers of an answer. */
function corsHeaders(r: ApiResponse): Record<string, string> {
  return Object.fromEntries([...r.headers].filter(([k]) => k.startsWith('access-control-') || k === 'vary'));
}

const preflight = (s: TestServer, path: string, origin: string, method = 'PUT') =>
  s.raw('OPTIONS', path, undefined, {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type,authorization',
  });

describe('CORS (security.cors, Perses keys)', function () {
  this.timeout(30_000);

  it('off by default: no CORS header on any answer, OPTIONS is not served (405)', async () => {
    const s = await startTestServer();
    try {
      const pre = await preflight(s, '/api/v1/projects', TRUSTED);
      expect(pre.status).to.equal(405);
      const get = await s.raw('GET', '/api/v1/projects', undefined, { origin: TRUSTED });
      expect(get.status).to.equal(200);
      for (const r of [pre, get]) expect(corsHeaders(r)).to.deep.equal({});
    } finally {
      await s.stop();
    }
  });

  describe('on, with listed and wildcard origins', () => {
    let s: TestServer;
    let admin: Tokens;
    before(async () => {
      s = await startAuthServer({
        DASHPLANE_SECURITY_CORS_ENABLE: 'true',
        DASHPLANE_SECURITY_CORS_ALLOW_ORIGINS: JSON.stringify([TRUSTED, 'https://*.teams.example.com', 'https://dash?.example.org']),
        DASHPLANE_SECURITY_CORS_EXPOSE_HEADERS: '["ETag","Link"]',
        DASHPLANE_SECURITY_CORS_MAX_AGE: '-1',
      });
      admin = (await s.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' })).body as Tokens;
    });
    after(() => s?.stop());

    it("a preflight is answered 204 before authentication: the path's methods, the asked headers, Max-Age 0 for a negative max_age", async () => {
      const r = await preflight(s, '/api/v1/projects/p/dashboards/d', TRUSTED);
      expect(r.status).to.equal(204);
      expect(r.text).to.equal('');
      expect(corsHeaders(r)).to.deep.equal({
        'access-control-allow-origin': TRUSTED,
        'access-control-allow-methods': 'OPTIONS, DELETE, GET, PUT',
        'access-control-allow-headers': 'content-type,authorization',
        'access-control-max-age': '0',
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      });
      expect(r.headers.get('allow')).to.equal('OPTIONS, DELETE, GET, PUT');
      // a path no route serves is answered too (the browser then meets its 404)
      const unknown = await preflight(s, '/api/v1/nothing-here', TRUSTED);
      expect(unknown.status).to.equal(204);
      expect(unknown.headers.get('access-control-allow-methods')).to.equal('GET,HEAD,PUT,PATCH,POST,DELETE');
    });

    it('"*" and "?" in an entry match any characters and one character; nothing else matches', async () => {
      for (const origin of ['https://a.teams.example.com', 'https://x.y.teams.example.com', 'https://dash1.example.org']) {
        expect((await preflight(s, '/api/v1/projects', origin)).headers.get('access-control-allow-origin'), origin).to.equal(origin);
      }
      for (const origin of [
        'https://teams.example.com',
        'https://a.teams.example.com.evil.net',
        'https://dash12.example.org',
        'https://dashxexample.org',
        'http://dashboards.example.com',
        `${TRUSTED}.evil.net`,
        'null',
        'dashboards.example.com',
      ]) {
        const r = await preflight(s, '/api/v1/projects', origin);
        expect(r.status, origin).to.equal(204);
        expect(corsHeaders(r), origin).to.deep.equal({ vary: 'Origin' });
      }
    });

    it('an actual request from an allowed origin gets Allow-Origin and Expose-Headers, also on a 401 (so the page can read why); another origin gets neither', async () => {
      const anonymous = await s.raw('GET', '/api/v1/projects', undefined, { origin: TRUSTED });
      expect(anonymous.status).to.equal(401);
      expect(corsHeaders(anonymous)).to.deep.equal({
        'access-control-allow-origin': TRUSTED,
        'access-control-expose-headers': 'ETag,Link',
        vary: 'Origin',
      });
      const signedIn = await s.raw('GET', '/api/v1/projects', undefined, { origin: TRUSTED, ...bearer(admin) });
      expect(signedIn.status).to.equal(200);
      expect(signedIn.headers.get('access-control-allow-origin')).to.equal(TRUSTED);
      expect(signedIn.headers.get('access-control-allow-credentials'), 'credentials not allowed').to.equal(null);
      const other = await s.raw('GET', '/api/v1/projects', undefined, { origin: EVIL, ...bearer(admin) });
      expect(other.status, 'served as if it came from nowhere').to.equal(200);
      expect(corsHeaders(other)).to.deep.equal({ vary: 'Origin' });
    });

    it('SESS-08: without allow_credentials, a cookie-authenticated write from an allowed origin is still refused (403) and changes nothing', async () => {
      const login = await s.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' });
      const cookies = { cookie: cookieHeader(setCookies(login.headers).values()) };
      const r = await s.api(
        'POST',
        '/api/v1/projects',
        { kind: 'Project', metadata: { name: 'from-trusted' }, spec: {} },
        { ...cookies, origin: TRUSTED, 'sec-fetch-site': 'cross-site' },
      );
      expect(r.status, r.text).to.equal(403);
      expect(r.body.message).to.include('security.cors');
      expect((await s.api('GET', '/api/v1/projects/from-trusted', undefined, bearer(admin))).status).to.equal(404);
    });
  });

  describe('on, with credentials for one origin', () => {
    let s: TestServer;
    let admin: Tokens;
    let cookies: { cookie: string };
    before(async () => {
      s = await startAuthServer({
        DASHPLANE_SECURITY_CORS_ENABLE: 'true',
        DASHPLANE_SECURITY_CORS_ALLOW_ORIGINS: JSON.stringify([TRUSTED]),
        DASHPLANE_SECURITY_CORS_ALLOW_CREDENTIALS: 'true',
        DASHPLANE_SECURITY_CORS_ALLOW_METHODS: '["GET","POST","PUT","DELETE"]',
        DASHPLANE_SECURITY_CORS_ALLOW_HEADERS: '["Content-Type"]',
      });
      const login = await s.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' });
      admin = login.body as Tokens;
      cookies = { cookie: cookieHeader(setCookies(login.headers).values()) };
    });
    after(() => s?.stop());

    it('the trusted origin gets Allow-Credentials with its own origin (never "*") and the configured methods and headers', async () => {
      const r = await preflight(s, '/api/v1/projects', TRUSTED, 'POST');
      expect(corsHeaders(r)).to.deep.equal({
        'access-control-allow-origin': TRUSTED,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'GET,POST,PUT,DELETE',
        'access-control-allow-headers': 'Content-Type',
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      });
      const get = await s.raw('GET', '/api/v1/user/whoami', undefined, { ...cookies, origin: TRUSTED, 'sec-fetch-site': 'cross-site' });
      expect(get.status, get.text).to.equal(200);
      expect(corsHeaders(get)).to.deep.equal({
        'access-control-allow-origin': TRUSTED,
        'access-control-allow-credentials': 'true',
        vary: 'Origin',
      });
    });

    it('SESS-08: a cookie-authenticated write is accepted from the origin trusted with credentials, refused (403) from any other origin or a cross-site request without Origin; JSON only', async () => {
      const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
      const trusted = await s.api('POST', '/api/v1/projects', project('from-trusted'), {
        ...cookies,
        origin: TRUSTED,
        'sec-fetch-site': 'cross-site',
      });
      expect(trusted.status, trusted.text).to.equal(200);
      const hostiles: Record<string, string>[] = [
        { origin: EVIL, 'sec-fetch-site': 'cross-site' },
        { origin: 'https://a.dashboards.example.com' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'null' },
      ];
      for (const hostile of hostiles) {
        const r = await s.api('POST', '/api/v1/projects', project('from-elsewhere'), { ...cookies, ...hostile });
        expect(r.status, `${JSON.stringify(hostile)}: ${r.text}`).to.equal(403);
        expect(corsHeaders(r)['access-control-allow-origin'], JSON.stringify(hostile)).to.equal(undefined);
      }
      const form = await s.raw('POST', '/api/v1/projects', 'kind=Project', {
        ...cookies,
        origin: TRUSTED,
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(form.status, 'a form post, even from the trusted origin').to.equal(415);
      const list = await s.api('GET', '/api/v1/projects', undefined, bearer(admin));
      expect(list.body.map((p: { metadata: { name: string } }) => p.metadata.name)).to.deep.equal(['from-trusted']);
    });

    it('SESS-07: preflight and GET from another origin never get Access-Control-Allow-Origin or Allow-Credentials with CORS on', async () => {
      for (const path of ['/api/v1/projects', '/api/auth/providers/native/login', '/api/auth/refresh', '/api/v1/user/whoami']) {
        for (const r of [
          await preflight(s, path, EVIL, 'POST'),
          await s.raw('GET', path, undefined, { ...cookies, origin: EVIL, 'sec-fetch-site': 'cross-site' }),
        ]) {
          expect(corsHeaders(r), path).to.deep.equal({ vary: 'Origin' });
        }
      }
    });
  });
});
