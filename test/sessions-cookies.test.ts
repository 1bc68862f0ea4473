/**
 * Security checklist (docs/security.md) rows SESS-01..07 for native login (the OIDC
 * variants are not covered here): cookie attributes, refresh-token rotation and reuse detection,
 * logout, concurrent refreshes, CSRF (content type, Origin, Sec-Fetch-Site) and CORS; and a
 * changed password ending the user's other sessions.
 */
import { expect } from 'chai';
import http from 'node:http';
import { bearer, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { cookieHeader, setCookies } from './helpers/client.js';
import type { ApiResponse, TestServer } from './helpers/server.js';

const LOGIN = '/api/auth/providers/native/login';
const REFRESH = '/api/auth/refresh';
const EVIL = 'http://evil.localhost';

/** Attributes of one Set-Cookie line: lower-case name -> value ('' for flags). */
function attributes(line: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of line.split(';').slice(1)) {
    const i = part.indexOf('=');
    out.set((i < 0 ? part : part.slice(0, i)).trim().toLowerCase(), i < 0 ? '' : part.slice(i + 1).trim());
  }
  return out;
}

/** A native login that returns the response (body and Set-Cookie). */
async function loginResponse(s: TestServer, login: string, password: string): Promise<ApiResponse> {
  const r = await s.api('POST', LOGIN, { login, password });
  expect(r.status, r.text).to.equal(200);
  return r;
}

/** Cookie header with the access-token cookies (and the refresh cookie) a browser would send after `r`. */
const browserCookies = (r: ApiResponse) => ({ cookie: cookieHeader(setCookies(r.headers).values()) });

const refresh = (s: TestServer, token: string) => s.api('POST', REFRESH, { refresh_token: token });
const whoami = (s: TestServer, t: Tokens | string) => s.api('GET', '/api/v1/user/whoami', undefined, bearer(t));

const dashboard = (name: string, text = 'hello') => ({
  kind: 'Dashboard',
  metadata: { name, project: 'p' },
  spec: {
    display: { name },
    panels: { p1: { kind: 'Panel', spec: { display: { name: 'Notes' }, plugin: { kind: 'Markdown', spec: { text } } } } },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 6, content: { $ref: '#/spec/panels/p1' } }] } }],
  },
});

describe('sessions and cookies (SESS-01..07)', function () {
  this.timeout(30_000);

  describe('SESS-01: cookie attributes after native login', () => {
    it('secure=true, same_site=lax (default): jwtSignature/jwtRefreshToken HttpOnly; Secure; SameSite=Lax; Path=/, jwtPayload Secure without HttpOnly', async () => {
      const s = await startAuthServer({ DASHPLANE_SECURITY_COOKIE_SECURE: 'true' });
      try {
        const check = (r: ApiResponse, what: string) => {
          const t = r.body as Tokens;
          const cookies = setCookies(r.headers);
          expect([...cookies.keys()].sort(), what).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
          for (const name of ['jwtSignature', 'jwtRefreshToken']) {
            const a = attributes(cookies.get(name)!);
            expect(a.has('httponly'), `${what}: ${name} HttpOnly`).to.equal(true);
            expect(a.has('secure'), `${what}: ${name} Secure`).to.equal(true);
            expect(a.get('samesite'), `${what}: ${name} SameSite`).to.equal('Lax');
            expect(a.get('path'), `${what}: ${name} Path`).to.equal('/');
            expect(a.has('domain'), `${what}: ${name} is a host-only cookie`).to.equal(false);
          }
          const p = attributes(cookies.get('jwtPayload')!);
          expect(p.has('httponly'), `${what}: jwtPayload must be readable by scripts`).to.equal(false);
          expect(p.has('secure'), `${what}: jwtPayload Secure`).to.equal(true);
          expect(p.get('samesite')).to.equal('Lax');
          expect(p.get('path')).to.equal('/');
          // The cookies carry exactly the tokens of the body: header.payload | signature | refresh.
          const [h, pl, sig] = t.access_token.split('.');
          const value = (name: string) =>
            decodeURIComponent(
              cookies
                .get(name)!
                .split(';')[0]
                .slice(name.length + 1),
            );
          expect(value('jwtPayload')).to.equal(`${h}.${pl}`);
          expect(value('jwtSignature')).to.equal(sig);
          expect(value('jwtRefreshToken')).to.equal(t.refresh_token);
          expect(Number(attributes(cookies.get('jwtSignature')!).get('max-age'))).to.equal(t.expires_in);
        };
        const r = await loginResponse(s, 'admin', 'admin-password');
        check(r, 'login');
        const again = await refresh(s, (r.body as Tokens).refresh_token);
        expect(again.status, again.text).to.equal(200);
        check(again, 'refresh');

        // Logout clears all three with the same attributes.
        const out = await s.api('GET', '/api/auth/logout', undefined, bearer(again.body as Tokens));
        expect(out.status).to.equal(204);
        const cleared = setCookies(out.headers);
        expect([...cleared.keys()].sort()).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
        for (const [name, line] of cleared) {
          const a = attributes(line);
          expect(a.get('max-age'), name).to.equal('0');
          expect(a.has('secure'), name).to.equal(true);
          expect(a.get('path'), name).to.equal('/');
          expect(a.has('httponly'), name).to.equal(name !== 'jwtPayload');
        }
      } finally {
        await s.stop();
      }
    });

    it('same_site=strict gives SameSite=Strict on every cookie; same_site=none always adds Secure', async () => {
      for (const [sameSite, expected] of [
        ['strict', 'Strict'],
        ['none', 'None'],
      ]) {
        const s = await startAuthServer({ DASHPLANE_SECURITY_COOKIE_SAME_SITE: sameSite });
        try {
          const cookies = setCookies((await loginResponse(s, 'admin', 'admin-password')).headers);
          expect(cookies.size).to.equal(3);
          for (const [name, line] of cookies) {
            const a = attributes(line);
            expect(a.get('samesite'), `${sameSite}: ${name}`).to.equal(expected);
            // Browsers drop SameSite=None cookies without Secure; with strict and secure=false there is none.
            expect(a.has('secure'), `${sameSite}: ${name} Secure`).to.equal(sameSite === 'none');
            expect(a.has('httponly'), `${sameSite}: ${name} HttpOnly`).to.equal(name !== 'jwtPayload');
          }
        } finally {
          await s.stop();
        }
      }
    });
  });

  describe('token lifecycle', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer();
      await signUp(s, 'uma', 'uma-password');
    });
    after(() => s.stop());
    const loginUma = async () => (await loginResponse(s, 'uma', 'uma-password')).body as Tokens;

    it('SESS-02: reusing a rotated refresh token answers 401 and revokes the whole session (R2 and its access token)', async () => {
      const t1 = await loginUma();
      const r2 = await refresh(s, t1.refresh_token);
      expect(r2.status, r2.text).to.equal(200);
      const t2 = r2.body as Tokens;
      expect(t2.refresh_token).to.not.equal(t1.refresh_token);
      expect((await whoami(s, t2)).status).to.equal(200);

      const reuse = await refresh(s, t1.refresh_token);
      expect(reuse.status, reuse.text).to.equal(401);
      expect(reuse.headers.getSetCookie()).to.deep.equal([]);

      const r3 = await refresh(s, t2.refresh_token);
      expect(r3.status, `R2 must be revoked: ${r3.text}`).to.equal(401);
      expect((await whoami(s, t2)).status, 'the access token issued with R2 must be revoked').to.equal(401);
      expect((await whoami(s, t1)).status, 'the first access token too').to.equal(401);

      // The reuse is detected through the cookie as well, and another session of the same user is untouched.
      const other = await loginUma();
      const o2 = await refresh(s, other.refresh_token);
      expect(o2.status).to.equal(200);
      const viaCookie = await s.api('POST', REFRESH, undefined, { cookie: `jwtRefreshToken=${encodeURIComponent(other.refresh_token)}` });
      expect(viaCookie.status, viaCookie.text).to.equal(401);
      expect((await refresh(s, (o2.body as Tokens).refresh_token)).status).to.equal(401);
      const fresh = await loginUma();
      expect((await whoami(s, fresh)).status).to.equal(200);
    });

    it('SESS-03: after logout the old refresh token and access token are refused (401 both)', async () => {
      // Logout with the bearer token.
      const t = await loginUma();
      const out = await s.api('GET', '/api/auth/logout', undefined, bearer(t));
      expect(out.status, out.text).to.equal(204);
      expect((await refresh(s, t.refresh_token)).status, 'refresh after logout').to.equal(401);
      expect((await whoami(s, t)).status, 'access token after logout').to.equal(401);

      // Logout with the cookies (as the browser does), then replay the old cookies.
      const r = await loginResponse(s, 'uma', 'uma-password');
      const cookies = browserCookies(r);
      expect((await s.api('GET', '/api/v1/user/whoami', undefined, cookies)).status).to.equal(200);
      expect((await s.api('GET', '/api/auth/logout', undefined, cookies)).status).to.equal(204);
      expect((await s.api('GET', '/api/v1/user/whoami', undefined, cookies)).status, 'old cookies after logout').to.equal(401);
      const replay = await s.api('POST', REFRESH, undefined, cookies);
      expect(replay.status, replay.text).to.equal(401);
      // no new token: the dead cookies are cleared (so the browser's next refresh carries none)
      const cleared = setCookies(replay.headers);
      expect([...cleared.keys()].sort()).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
      for (const line of replay.headers.getSetCookie()) expect(line, line).to.match(/^jwt\w+=;.*Max-Age=0/);
      expect((await whoami(s, r.body as Tokens)).status).to.equal(401);
      // the Perses web UI refreshes on every 401, its own refresh's too: without a cookie the answer
      // is the 400 that sends it to sign in (as Perses answers), so the loop ends
      const next = await s.api('POST', REFRESH, undefined, { 'content-type': 'application/json' });
      expect(next.status, next.text).to.equal(400);
      expect(next.body.message).to.include('no refresh token');

      // The Perses UI signs out by navigating to the URL: the browser is sent home, as Perses does.
      const nav = browserCookies(await loginResponse(s, 'uma', 'uma-password'));
      const page = await fetch(`${s.url}/api/auth/logout`, {
        headers: { ...nav, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
        redirect: 'manual',
      });
      expect(page.status).to.equal(302);
      expect(page.headers.get('location')).to.equal('/');
      expect(
        page.headers
          .getSetCookie()
          .map((c) => c.split('=')[0])
          .sort(),
      ).to.deep.equal(['jwtPayload', 'jwtRefreshToken', 'jwtSignature']);
      expect((await s.api('GET', '/api/v1/user/whoami', undefined, nav)).status, 'signed out').to.equal(401);
    });

    it('SESS-04: two concurrent refreshes with the same token: the same new pair or one 401, never two live refresh tokens', async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < 6; round++) {
        const t = await loginUma();
        const [a, b] = await Promise.all([refresh(s, t.refresh_token), refresh(s, t.refresh_token)]);
        const statuses = [a.status, b.status].sort();
        const what = `round ${round}: ${a.status} ${a.text.slice(0, 120)} | ${b.status} ${b.text.slice(0, 120)}`;
        if (statuses[0] === 200 && statuses[1] === 200) {
          expect(a.text, `both 200 must carry the same pair (${what})`).to.equal(b.text);
          outcomes.push('same pair');
        } else {
          expect(statuses, what).to.deep.equal([200, 401]);
          outcomes.push('one 401');
        }
        // After the race at most one refresh token still works (two families would both work).
        const issued = [...new Set([a, b].filter((r) => r.status === 200).map((r) => (r.body as Tokens).refresh_token))];
        let working = 0;
        for (const token of issued) if ((await refresh(s, token)).status === 200) working++;
        expect(working, `live refresh tokens after the race (${what})`).to.be.at.most(1);
        expect(issued.length, what).to.equal(1);
      }
      expect(outcomes).to.have.length(6);
    });

    it('SESS-04: eight refreshes with the same token that reach the server together (eight open connections) all get the same new pair, and the session lives on', async () => {
      // connections opened beforehand, so the eight requests reach the server together, as from a
      // client already talking to it; a request sent after the rotation finished is a reuse (SESS-02)
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const post = (token: string) =>
        new Promise<{ status: number; text: string; body: Tokens }>((resolve, reject) => {
          const payload = JSON.stringify({ refresh_token: token });
          const req = http.request(
            `${s.url}${REFRESH}`,
            { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (c: string) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, text, body: res.statusCode === 200 ? JSON.parse(text) : {} }));
            },
          );
          req.on('error', reject);
          req.end(payload);
        });
      const warm = () =>
        Promise.all(
          Array.from(
            { length: 8 },
            () =>
              new Promise<void>((resolve, reject) => {
                http.get(`${s.url}/api/v1/health`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
              }),
          ),
        );
      try {
        for (let round = 0; round < 5; round++) {
          const t = await loginUma();
          await warm();
          const all = await Promise.all(Array.from({ length: 8 }, () => post(t.refresh_token)));
          const what = `round ${round}: ${all.map((r) => `${r.status} ${r.text.slice(0, 80)}`).join(' | ')}`;
          expect(
            all.map((r) => r.status),
            what,
          ).to.deep.equal(Array(8).fill(200));
          expect(new Set(all.map((r) => r.body.refresh_token)).size, what).to.equal(1);
          const next = all[0].body;
          expect((await whoami(s, next)).status, `the new access token works (${what})`).to.equal(200);
          expect((await refresh(s, next.refresh_token)).status, `the new refresh token works (${what})`).to.equal(200);
        }
      } finally {
        agent.destroy();
      }
    });
  });

  describe('a changed password ends the other sessions', () => {
    let s: TestServer;
    let admin: Tokens;
    before(async () => {
      s = await startAuthServer();
      admin = (await loginResponse(s, 'admin', 'admin-password')).body as Tokens;
    });
    after(() => s.stop());

    /** A fresh user `name` with password `${name}-old` and two sessions: "this browser" and "another device". */
    async function twoSessions(name: string): Promise<{ mine: Tokens; other: Tokens }> {
      await signUp(s, name, `${name}-old`);
      return {
        mine: (await loginResponse(s, name, `${name}-old`)).body as Tokens,
        other: (await loginResponse(s, name, `${name}-old`)).body as Tokens,
      };
    }
    /** PUT of the user with `spec` as `by`; asserts 200. */
    async function putUser(name: string, spec: unknown, by: Tokens, tags?: string[]): Promise<void> {
      const r = await s.api(
        'PUT',
        `/api/v1/users/${name}`,
        { kind: 'User', metadata: { name, ...(tags ? { tags } : {}) }, spec },
        bearer(by),
      );
      expect(r.status, r.text).to.equal(200);
    }
    /** Whether the access token and the refresh token of `t` still work (the refresh rotates: its new pair is returned). */
    async function alive(t: Tokens): Promise<{ access: number; refresh: number; next?: Tokens }> {
      const access = (await whoami(s, t)).status;
      const r = await refresh(s, t.refresh_token);
      return { access, refresh: r.status, ...(r.status === 200 ? { next: r.body as Tokens } : {}) };
    }
    /** [access status, refresh status] of `t`. */
    const statuses = async (t: Tokens) => {
      const a = await alive(t);
      return [a.access, a.refresh];
    };

    it("a user changing their own password: the other session's access and refresh tokens are 401 at once, the caller's session lives on", async () => {
      const { mine, other } = await twoSessions('sam');
      expect((await whoami(s, other)).status, 'control: the other session works before').to.equal(200);
      await putUser('sam', { nativeProvider: { password: 'sam-new' } }, mine);
      expect(await statuses(other), 'the other device: access, refresh').to.deep.equal([401, 401]);
      const m = await alive(mine);
      expect([m.access, m.refresh], 'this browser: access, refresh').to.deep.equal([200, 200]);
      expect((await whoami(s, m.next!)).status, "the caller's refreshed tokens").to.equal(200);
      expect((await s.api('POST', LOGIN, { login: 'sam', password: 'sam-old' })).status).to.equal(400);
      expect((await loginResponse(s, 'sam', 'sam-new')).status).to.equal(200);
    });

    it("an administrator resetting a user's password, or removing it, ends every session of that user (not the administrator's)", async () => {
      const reset = await twoSessions('tess');
      await putUser('tess', { nativeProvider: { password: 'tess-reset' } }, admin);
      for (const [what, t] of Object.entries(reset)) expect(await statuses(t), `${what} after the reset`).to.deep.equal([401, 401]);
      const removed = await twoSessions('ugo');
      await putUser('ugo', { nativeProvider: { password: null } }, admin);
      for (const [what, t] of Object.entries(removed))
        expect(await statuses(t), `${what} after the password was removed`).to.deep.equal([401, 401]);
      expect((await whoami(s, admin)).status, "the administrator's own session").to.equal(200);
    });

    it('a PUT that leaves the password out (absent or "", as Perses clients send a profile change) keeps it; a sign-up without one is a 400', async () => {
      const { other } = await twoSessions('wes');
      for (const spec of [{ firstName: 'Wes' }, { lastName: 'W', nativeProvider: { password: '' } }]) {
        await putUser('wes', spec, admin);
        expect((await loginResponse(s, 'wes', 'wes-old')).status, `the password is kept after ${JSON.stringify(spec)}`).to.equal(200);
      }
      expect(await statuses(other), 'no session ended').to.deep.equal([200, 200]);
      const shown = (await s.api('GET', '/api/v1/users/wes', undefined, bearer(admin))).body;
      expect(shown.spec).to.deep.equal({ lastName: 'W', nativeProvider: { password: '<secret>' } });
      for (const spec of [{}, { nativeProvider: { password: '' } }, { nativeProvider: {} }]) {
        const r = await s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'nopw' }, spec });
        expect(r.status, JSON.stringify(spec)).to.equal(400);
        expect(r.body.details, JSON.stringify(spec)).to.deep.equal([
          { path: 'spec.nativeProvider.password', message: 'is required (it cannot be empty)' },
        ]);
      }
      expect((await s.api('GET', '/api/v1/users/nopw', undefined, bearer(admin))).status, 'nothing stored').to.equal(404);
    });

    it('a PUT that keeps the password ("<secret>" sent back, tags and names changed) ends no session', async () => {
      const { mine, other } = await twoSessions('vic');
      const shown = (await whoami(s, mine)).body;
      expect(shown.spec.nativeProvider.password).to.equal('<secret>');
      await putUser('vic', { ...shown.spec, firstName: 'Vic' }, mine, ['team-a']);
      await putUser('vic', { ...shown.spec, lastName: 'Admin-edited' }, admin, ['team-b']);
      for (const [what, t] of Object.entries({ mine, other })) {
        const a = await alive(t);
        expect([a.access, a.refresh], what).to.deep.equal([200, 200]);
        expect((await whoami(s, a.next!)).status, `${what}: refreshed tokens`).to.equal(200);
      }
    });

    it('a refresh or a login with the old password in flight during the change gets no session that survives it', async () => {
      for (let round = 0; round < 4; round++) {
        const name = `wes${round}`;
        const { mine, other } = await twoSessions(name);
        const [put, refreshed, loggedIn] = await Promise.all([
          s.api(
            'PUT',
            `/api/v1/users/${name}`,
            { kind: 'User', metadata: { name }, spec: { nativeProvider: { password: `${name}-new` } } },
            bearer(mine),
          ),
          refresh(s, other.refresh_token),
          s.api('POST', LOGIN, { login: name, password: `${name}-old` }),
        ]);
        expect(put.status, put.text).to.equal(200);
        for (const [what, r] of Object.entries({ refreshed, loggedIn })) {
          if (r.status !== 200) continue;
          expect(await statuses(r.body as Tokens), `round ${round}: the tokens ${what} in flight`).to.deep.equal([401, 401]);
        }
        expect(await statuses(other), `round ${round}: the other session`).to.deep.equal([401, 401]);
      }
    });
  });

  describe('CSRF and CORS', () => {
    let s: TestServer;
    let admin: Tokens;
    let cookies: { cookie: string };
    let origin: string;
    before(async () => {
      s = await startAuthServer();
      const r = await loginResponse(s, 'admin', 'admin-password');
      admin = r.body as Tokens;
      cookies = { cookie: cookieHeader([...setCookies(r.headers)].filter(([n]) => n !== 'jwtRefreshToken').map(([, l]) => l)) };
      origin = s.url;
      expect(
        (await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }, bearer(admin))).status,
      ).to.equal(200);
      expect((await s.api('POST', '/api/v1/projects/p/dashboards', dashboard('d'), bearer(admin))).status).to.equal(200);
    });
    after(() => s.stop());

    /** Runs fn and asserts the store revision and the dashboard did not change. */
    async function unchanged(fn: () => Promise<void>): Promise<void> {
      const rev = await s.server.store.revision();
      const before = JSON.stringify(await s.server.store.get({ kind: 'Dashboard', project: 'p', name: 'd' }));
      await fn();
      expect(await s.server.store.revision(), 'the store changed').to.equal(rev);
      expect(JSON.stringify(await s.server.store.get({ kind: 'Dashboard', project: 'p', name: 'd' }))).to.equal(before);
    }

    it('SESS-05: a cookie-authenticated POST with text/plain or form encoding is 415 and changes nothing', async () => {
      // The cookies alone do authenticate (control).
      expect((await s.api('GET', '/api/v1/user/whoami', undefined, cookies)).status).to.equal(200);
      const body = JSON.stringify({ kind: 'Project', metadata: { name: 'csrf' }, spec: {} });
      await unchanged(async () => {
        for (const [type, payload] of [
          ['text/plain', body],
          ['text/plain;charset=UTF-8', body],
          ['application/x-www-form-urlencoded', `${encodeURIComponent(body)}=`],
          ['application/x-www-form-urlencoded', 'kind=Project&metadata%5Bname%5D=csrf'],
          ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n${body}\r\n--x--\r\n`],
        ]) {
          for (const path of ['/api/v1/projects', '/api/v1/projects/p/dashboards', '/api/v1/users']) {
            const r = await s.raw('POST', path, payload, { ...cookies, 'content-type': type });
            expect(r.status, `POST ${path} as ${type}: ${r.text}`).to.equal(415);
          }
          // Refresh through the cookie is a state change too (it rotates the session's token).
          const refreshCookie = { cookie: `jwtRefreshToken=${encodeURIComponent(admin.refresh_token)}` };
          const r = await s.raw('POST', REFRESH, payload, { ...refreshCookie, 'content-type': type });
          expect(r.status, `POST ${REFRESH} as ${type}: ${r.text}`).to.equal(415);
        }
        // No Content-Type at all (fetch with a Blob body, no-cors) is refused too.
        const bare = await s.raw('POST', '/api/v1/projects', Buffer.from(body), cookies);
        expect(bare.status, `POST without Content-Type: ${bare.text}`).to.equal(415);
      });
      expect((await s.api('GET', '/api/v1/projects/csrf', undefined, bearer(admin))).status).to.equal(404);
      // The admin's refresh token was not rotated by the refused requests.
      const r = await refresh(s, admin.refresh_token);
      expect(r.status, r.text).to.equal(200);
      admin = r.body as Tokens;
    });

    it('SESS-06: cookie-authenticated PUT/DELETE/POST from another origin or cross-site is 403; bearer without Origin and same-origin cookies work', async () => {
      const path = '/api/v1/projects/p/dashboards/d';
      const current = async () => (await s.api('GET', path, undefined, bearer(admin))).body;
      const changed = async (text: string) => ({ ...(await current()), spec: dashboard('d', text).spec });
      const json = { 'content-type': 'application/json' };
      await unchanged(async () => {
        const hostiles: Record<string, string>[] = [
          { origin: EVIL },
          { origin: 'null' },
          { 'sec-fetch-site': 'cross-site' },
          { origin: EVIL, 'sec-fetch-site': 'cross-site' },
          // Another port on the same host is the same *site* (SameSite cookies are sent) but another origin.
          { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
        ];
        for (const hostile of hostiles) {
          const what = JSON.stringify(hostile);
          const put = await s.api('PUT', path, await changed('evil'), { ...cookies, ...hostile });
          expect(put.status, `PUT ${what}: ${put.text}`).to.equal(403);
          const del = await s.api('DELETE', path, undefined, { ...cookies, ...hostile });
          expect(del.status, `DELETE ${what}: ${del.text}`).to.equal(403);
          const post = await s.raw('POST', '/api/v1/projects', JSON.stringify({ kind: 'Project', metadata: { name: 'evil' }, spec: {} }), {
            ...cookies,
            ...json,
            ...hostile,
          });
          expect(post.status, `POST ${what}: ${post.text}`).to.equal(403);
        }
      });
      expect((await s.api('GET', '/api/v1/projects/evil', undefined, bearer(admin))).status).to.equal(404);

      // A bearer-token client (no Origin) is not affected.
      const viaBearer = await s.api('PUT', path, await changed('bearer'), bearer(admin));
      expect(viaBearer.status, viaBearer.text).to.equal(200);
      // A cookie request from the server's own origin (the UI) works, as does one with Sec-Fetch-Site: same-origin.
      const sameOrigin = await s.api('PUT', path, await changed('ui'), { ...cookies, origin, 'sec-fetch-site': 'same-origin' });
      expect(sameOrigin.status, `${origin}: ${sameOrigin.text}`).to.equal(200);
      expect((await current()).spec.panels.p1.spec.plugin.spec.text).to.equal('ui');
      const del = await s.api('DELETE', path, undefined, { ...cookies, origin });
      expect(del.status, del.text).to.equal(204);
      expect((await s.api('POST', '/api/v1/projects/p/dashboards', dashboard('d'), { ...cookies, origin })).status).to.equal(200);
    });

    it('SESS-07: preflight and GET from another origin never get Access-Control-Allow-Origin: evil with Allow-Credentials: true', async () => {
      const permits = (r: ApiResponse) => {
        const allow = r.headers.get('access-control-allow-origin');
        return (allow === EVIL || allow === '*') && r.headers.get('access-control-allow-credentials') === 'true';
      };
      for (const path of ['/api/v1/projects/p/dashboards/d', '/api/v1/projects', LOGIN, REFRESH, '/api/v1/user/whoami']) {
        for (const method of ['PUT', 'POST', 'DELETE', 'GET']) {
          const pre = await s.raw('OPTIONS', path, undefined, {
            origin: EVIL,
            'access-control-request-method': method,
            'access-control-request-headers': 'content-type',
          });
          expect(pre.status, `OPTIONS ${path} (${method})`).to.be.below(500);
          expect(permits(pre), `preflight ${path} ${method}: ${JSON.stringify([...pre.headers])}`).to.equal(false);
          expect(pre.headers.get('access-control-allow-origin'), `preflight ${path} ${method}`).to.not.equal(EVIL);
        }
        const get = await s.raw('GET', path, undefined, { ...cookies, origin: EVIL, 'sec-fetch-site': 'cross-site' });
        expect(permits(get), `GET ${path}: ${JSON.stringify([...get.headers])}`).to.equal(false);
        expect(get.headers.get('access-control-allow-origin'), `GET ${path}`).to.not.equal(EVIL);
      }
    });
  });
});
