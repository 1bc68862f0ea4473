/**
 * Security checklist (docs/security.md) rows LOGIN-01..03, plus the rate-limit window and
 * password storage/logging (docs/api.md §12). Every test runs against a real server on 127.0.0.1; a
 * "second client" connects from another loopback source address (127.0.0.2), since the server
 * limits failed logins per (login, address) and per address.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { cookieHeader, quantile, request, setCookies, type ClientResponse } from './helpers/client.js';
import { spawnServer } from './helpers/process.js';
import { tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const LOGIN = '/api/auth/providers/native/login';
const OTHER_CLIENT = '127.0.0.2';

/** Rate limits so high they never interfere with a timing or load test. */
const NO_LIMITS = {
  DASHPLANE_SECURITY_AUTHENTICATION_LOGIN_RATE_LIMIT_PER_LOGIN_AND_ADDRESS: '1000000',
  DASHPLANE_SECURITY_AUTHENTICATION_LOGIN_RATE_LIMIT_PER_ADDRESS: '1000000',
};
/** The production default scrypt cost (log2 N = 15): the KDF dominates a login's time. */
const DEFAULT_COST = { DASHPLANE_SECURITY_AUTHENTICATION_PASSWORD_HASH_COST: '15' };

const median = (v: number[]) => quantile(v, 0.5);

function loginFrom(s: TestServer, body: unknown, o: { localAddress?: string; agent?: http.Agent } = {}): Promise<ClientResponse> {
  return request(s.url, LOGIN, { method: 'POST', json: body, ...o });
}

function expectRetryAfter(r: ClientResponse, maxSeconds: number): number {
  const v = r.headers['retry-after'];
  expect(v, `429 without Retry-After: ${r.text}`).to.be.a('string');
  expect(v).to.match(/^\d+$/);
  const n = Number(v);
  expect(n).to.be.within(1, maxSeconds);
  return n;
}

/** Every regular file under dir (recursively). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('login hardening (LOGIN-01..03, rate-limit windows, password storage)', function () {
  this.timeout(60_000);

  let agent: http.Agent;
  beforeEach(() => (agent = new http.Agent({ keepAlive: true, maxSockets: 64 })));
  afterEach(() => agent.destroy());

  it('LOGIN-01: wrong password and unknown user get the same status and body, and take the same time', async () => {
    const s = await startAuthServer({ ...DEFAULT_COST, ...NO_LIMITS });
    try {
      await signUp(s, 'alice', 'alice-right-password');
      const known = { login: 'alice', password: 'not-alices-password' };
      const unknown = { login: 'nobody-here', password: 'not-alices-password' };
      // Warm up: the first unknown-user login derives the server's dummy hash once; connections open.
      await loginFrom(s, known, { agent });
      await loginFrom(s, unknown, { agent });

      // Pairs sent together (the server derives two keys at once), so drift in machine load hits
      // both members of a pair alike.
      const N = 30;
      const a: ClientResponse[] = [];
      const u: ClientResponse[] = [];
      for (let i = 0; i < N; i++) {
        // which member goes first alternates: the first of two key derivations started together
        // tends to finish first on a loaded machine, which must not count for either kind of login
        const [wrong, nobody] =
          i % 2 === 0
            ? await Promise.all([loginFrom(s, known, { agent }), loginFrom(s, unknown, { agent })])
            : (await Promise.all([loginFrom(s, unknown, { agent }), loginFrom(s, known, { agent })])).reverse();
        a.push(wrong);
        u.push(nobody);
      }
      // A login longer than any user name (never looked up) answers the same too.
      const long = await loginFrom(s, { login: 'x'.repeat(200), password: 'p' }, { agent });

      for (const r of [...a, ...u, long]) {
        expect(r.status, r.text).to.equal(400);
        expect(r.text).to.equal(a[0].text);
        expect(r.headers['set-cookie']).to.equal(undefined);
      }
      expect(a[0].body.message).to.equal('wrong login or password');

      // The checklist's criterion is "medians differ by less than 10 %". On this loaded 2-core
      // machine (other test suites run alongside) a scrypt derivation drifts between ~120 and
      // ~300 ms over a few seconds, so the medians of the two sample sets alone differed by up to
      // 24 % between runs of an unchanged server. The bound is therefore applied robustly: both
      // members of each pair ran at the same time, so they saw the same load, and the median of
      // the per-pair ratios must be within 10 % of 1 (observed 0.98..1.05; pairs run one after the
      // other spread 0.88..1.10 and failed CI once).
      // The raw medians only get a gross check (within a factor 2): a server that skipped the KDF
      // for unknown users would answer them ~40x faster and fail both checks by far.
      const ma = median(a.map((r) => r.ms));
      const mu = median(u.map((r) => r.ms));
      const pairRatio = median(a.map((r, i) => u[i].ms / r.ms));
      const report = `median wrong-password ${ma.toFixed(1)} ms, unknown-user ${mu.toFixed(1)} ms, median pair ratio ${pairRatio.toFixed(3)}`;
      expect(ma, `the KDF must dominate a login (${report})`).to.be.greaterThan(30);
      expect(Math.abs(pairRatio - 1), report).to.be.lessThan(0.1);
      expect(mu / ma, report).to.be.within(0.5, 2);
    } finally {
      await s.stop();
    }
  });

  it('LOGIN-02: 50 wrong passwords from one address -> 429 with Retry-After after the threshold; the right password works from another client only', async () => {
    // Defaults: 10 failures per (login, address), 50 per address, 5 min window.
    const s = await startAuthServer();
    try {
      await signUp(s, 'carol', 'carol-right-password');
      const started = Date.now();
      const answers: ClientResponse[] = [];
      for (let i = 0; i < 50; i++) answers.push(await loginFrom(s, { login: 'carol', password: `guess-${i}` }, { agent }));
      expect(Date.now() - started, 'the 50 attempts must fit in 60 s').to.be.lessThan(60_000);

      const statuses = answers.map((r) => r.status);
      expect(statuses.slice(0, 10), 'the first 10 failures are ordinary 400s').to.deep.equal(Array(10).fill(400));
      expect(statuses.slice(10), 'every attempt after the threshold is 429').to.deep.equal(Array(40).fill(429));
      for (const r of answers.slice(10)) {
        expectRetryAfter(r, 300);
        expect(r.body.reason).to.equal('TooManyRequests');
      }

      // The blocked client cannot go on guessing: even the right password is refused while blocked.
      const blocked = await loginFrom(s, { login: 'carol', password: 'carol-right-password' }, { agent });
      expect(blocked.status, blocked.text).to.equal(429);
      expectRetryAfter(blocked, 300);
      expect(blocked.headers['set-cookie']).to.equal(undefined);
      expect(blocked.body.access_token).to.equal(undefined);

      // Another client (another source address) is not locked out by the stranger's guesses.
      const other = await loginFrom(s, { login: 'carol', password: 'carol-right-password' }, { localAddress: OTHER_CLIENT });
      expect(other.status, other.text).to.equal(200);
      const whoami = await s.api('GET', '/api/v1/user/whoami', undefined, bearer(other.body as Tokens));
      expect(whoami.status).to.equal(200);
      expect(whoami.body.metadata.name).to.equal('carol');

      // Still blocked afterwards from the first address.
      expect((await loginFrom(s, { login: 'carol', password: 'carol-right-password' }, { agent })).status).to.equal(429);
    } finally {
      await s.stop();
    }
  });

  it('LOGIN-02 (parallel): 50 wrong passwords sent at once are limited like sequential ones (at most the threshold is evaluated)', async () => {
    // The limit must hold for concurrent guesses too: otherwise a client sends its guesses in one
    // burst, all of them pass the "blocked?" check before the first failure is counted, and the
    // threshold (10 per login and address) only applies after the burst.
    const s = await startAuthServer();
    try {
      await signUp(s, 'ivan', 'ivan-right-password');
      const burst = new http.Agent({ keepAlive: true, maxSockets: 50 });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => loginFrom(s, { login: 'ivan', password: `guess-${i}` }, { agent: burst })),
      );
      burst.destroy();
      const count = (st: number) => answers.filter((r) => r.status === st).length;
      const summary = `400: ${count(400)}, 429: ${count(429)}, other: ${answers.filter((r) => r.status !== 400 && r.status !== 429).map((r) => r.status)}`;
      expect(count(400) + count(429), summary).to.equal(50);
      expect(count(400), `guesses evaluated in one burst (threshold 10): ${summary}`).to.be.at.most(10);
      for (const r of answers.filter((r) => r.status === 429)) expectRetryAfter(r, 300);
      expect((await loginFrom(s, { login: 'ivan', password: 'ivan-right-password' }, { agent })).status).to.equal(429);
      expect((await loginFrom(s, { login: 'ivan', password: 'ivan-right-password' }, { localAddress: OTHER_CLIENT })).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });

  it('LOGIN-01 after a flood: once the KDF queue was full, unknown users and wrong passwords still get the same answer', async () => {
    // The first unknown-user login derives the dummy hash, and then verifies against it through the
    // same bounded queue. If that happens while the queue is full, the server must not remember
    // the refusal: otherwise every later unknown-user login answers 429 while a wrong password
    // answers 400 (a user oracle). The queue is held full as a flood would hold it
    // (PasswordHasher.hold), so the probe meets it full on every run.
    const s = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_PASSWORD_HASH_COST: '13', ...NO_LIMITS });
    try {
      await signUp(s, 'henry', 'henry-right-password');
      const release = s.server.passwords.hold();
      // The very first unknown-user login of this server, while the queue is full; a wrong password alike.
      const during = await loginFrom(s, { login: 'nobody-at-all', password: 'x' }, { localAddress: OTHER_CLIENT });
      const flooder = await loginFrom(s, { login: 'henry', password: 'flood' }, { agent });
      await release();
      expect(during.status, `the probe met a full queue: ${during.text}`).to.equal(429);
      expect(flooder.status, flooder.text).to.equal(429);
      expect(during.text).to.equal(flooder.text);

      // The queue has drained: both kinds of wrong login answer alike again.
      const known = await loginFrom(s, { login: 'henry', password: 'wrong' }, { localAddress: OTHER_CLIENT });
      const unknown = await loginFrom(s, { login: 'nobody-at-all', password: 'wrong' }, { localAddress: OTHER_CLIENT });
      expect(known.status, known.text).to.equal(400);
      expect(unknown.status, `unknown user after the flood: ${unknown.text} (wrong password: ${known.status} ${known.text})`).to.equal(400);
      expect(unknown.text).to.equal(known.text);
    } finally {
      await s.stop();
    }
  });

  it('per-address limit: one address guessing across many logins is blocked for every login, other addresses are not', async () => {
    const s = await startAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_LOGIN_RATE_LIMIT_PER_LOGIN_AND_ADDRESS: '100',
      DASHPLANE_SECURITY_AUTHENTICATION_LOGIN_RATE_LIMIT_PER_ADDRESS: '5',
    });
    try {
      await signUp(s, 'frank', 'frank-right-password');
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await loginFrom(s, { login: `user-${i}`, password: 'x' }, { agent })).status);
      expect(statuses).to.deep.equal([400, 400, 400, 400, 400, 429, 429, 429]);
      const r = await loginFrom(s, { login: 'frank', password: 'frank-right-password' }, { agent });
      expect(r.status, r.text).to.equal(429);
      expectRetryAfter(r, 300);
      expect((await loginFrom(s, { login: 'frank', password: 'frank-right-password' }, { localAddress: OTHER_CLIENT })).status).to.equal(
        200,
      );
    } finally {
      await s.stop();
    }
  });

  it("LOGIN-03: a login flood (20 parallel, cost 15) does not slow other clients' reads (p99 < 500 ms) and never gets a 5xx", async () => {
    const s = await startAuthServer({ ...DEFAULT_COST, ...NO_LIMITS });
    try {
      const admin = await loginAdmin(s);
      expect(
        (await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'flood' }, spec: {} }, bearer(admin))).status,
      ).to.equal(200);
      const dashboard = {
        kind: 'Dashboard',
        metadata: { name: 'd', project: 'flood' },
        spec: {
          display: { name: 'D' },
          panels: { p1: { kind: 'Panel', spec: { display: { name: 'Notes' }, plugin: { kind: 'Markdown', spec: { text: 'hello' } } } } },
          layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 6, content: { $ref: '#/spec/panels/p1' } }] } }],
        },
      };
      expect((await s.api('POST', '/api/v1/projects/flood/dashboards', dashboard, bearer(admin))).status).to.equal(200);

      const FLOOD_MS = 3_000;
      const floodStatuses = new Map<number | string, number>();
      const count = (k: number | string) => floodStatuses.set(k, (floodStatuses.get(k) ?? 0) + 1);
      let flooding = true;
      const floodAgent = new http.Agent({ keepAlive: true, maxSockets: 20 });
      const attacker = async (w: number) => {
        for (let i = 0; flooding; i++) {
          try {
            count(
              (await loginFrom(s, { login: w % 2 ? 'admin' : `nobody-${w}`, password: `guess-${w}-${i}` }, { agent: floodAgent })).status,
            );
          } catch (e) {
            count(`error: ${(e as Error).message}`);
          }
        }
      };
      const flood = Array.from({ length: 20 }, (_, w) => attacker(w));
      // The reads start once the flood is under way: the first attempts are being hashed.
      await waitFor('the flood to be answered', () => [...floodStatuses.values()].reduce((a, b) => a + b, 0) >= 2, 10_000, 5);

      const reads: ClientResponse[] = [];
      const readerAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const until = Date.now() + FLOOD_MS;
      while (Date.now() < until) {
        const path = reads.length % 2 ? '/api/v1/projects/flood/dashboards/d' : '/api/v1/projects/flood/dashboards';
        reads.push(await request(s.url, path, { headers: bearer(admin), localAddress: OTHER_CLIENT, agent: readerAgent }));
      }
      flooding = false;
      await Promise.all(flood);
      floodAgent.destroy();
      readerAgent.destroy();

      const latencies = reads.map((r) => r.ms);
      const summary = `${reads.length} reads: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; flood answers ${JSON.stringify([...floodStatuses])}`;
      for (const r of reads) expect(r.status, `${r.text} (${summary})`).to.equal(200);
      expect(reads.length, summary).to.be.greaterThan(20);
      expect(quantile(latencies, 0.99), summary).to.be.lessThan(500);
      for (const k of floodStatuses.keys()) expect([400, 429], `flood got ${k} (${summary})`).to.include(k);
      expect(floodStatuses.get(400) ?? 0, `the flood must really exercise the KDF (${summary})`).to.be.greaterThan(10);
    } finally {
      await s.stop();
    }
  });

  it('rate-limit window: a short window expires and logins work again', async () => {
    const s = await startAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_LOGIN_RATE_LIMIT_WINDOW: '2s',
      DASHPLANE_SECURITY_AUTHENTICATION_LOGIN_RATE_LIMIT_PER_LOGIN_AND_ADDRESS: '3',
    });
    try {
      await signUp(s, 'dave', 'dave-right-password');
      const right = { login: 'dave', password: 'dave-right-password' };
      for (let i = 0; i < 3; i++) expect((await loginFrom(s, { login: 'dave', password: `guess-${i}` }, { agent })).status).to.equal(400);
      const blockedAt = Date.now();
      const blocked = await loginFrom(s, right, { agent });
      expect(blocked.status, blocked.text).to.equal(429);
      expectRetryAfter(blocked, 2);

      const seen: number[] = [];
      const ok = await waitFor(
        'the 2 s window to expire',
        async () => {
          const r = await loginFrom(s, right, { agent });
          seen.push(r.status);
          return r.status === 200 ? r : undefined;
        },
        10_000,
        100,
      );
      const blockedFor = Date.now() - blockedAt;
      expect(
        seen.slice(0, -1).every((st) => st === 429),
        `while blocked only 429: ${seen}`,
      ).to.equal(true);
      expect(seen.length, 'the first retries were still blocked').to.be.greaterThan(1);
      expect(blockedFor, 'blocked for about the window').to.be.within(500, 5_000);
      expect(ok!.body.access_token).to.be.a('string');

      // A success resets the (login, address) count: the next failures start from zero.
      for (let i = 0; i < 2; i++) expect((await loginFrom(s, { login: 'dave', password: `again-${i}` }, { agent })).status).to.equal(400);
      expect((await loginFrom(s, right, { agent })).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });

  it('passwords are stored as scrypt hashes, never as sent, and never appear in a response', async () => {
    const s = await startAuthServer();
    const secrets = ['Erin-Plain-Secret-7731', 'Erin-New-Secret-9142', 'Erin-Wrong-Guess-5521', 'admin-password'];
    const responses: { what: string; text: string; cookies: string }[] = [];
    const keep = <T extends { text: string; headers: Headers }>(what: string, r: T): T => {
      responses.push({ what, text: r.text, cookies: r.headers.getSetCookie().join('\n') });
      return r;
    };
    try {
      const created = keep(
        'sign-up',
        await s.api('POST', '/api/v1/users', {
          kind: 'User',
          metadata: { name: 'erin' },
          spec: { nativeProvider: { password: secrets[0] } },
        }),
      );
      expect(created.status, created.text).to.equal(200);
      // The older form spec.password is hashed too.
      keep(
        'sign-up (old form)',
        await s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'erin2' }, spec: { password: secrets[0] } }),
      );

      const stored = await s.server.store.get({ kind: 'User', project: '', name: 'erin' });
      const hash = (stored?.spec as any)?.nativeProvider?.password as string;
      expect(hash).to.match(/^scrypt:[A-Za-z0-9+/]+=*$/);
      const hash2 = ((await s.server.store.get({ kind: 'User', project: '', name: 'erin2' }))?.spec as any)?.nativeProvider
        ?.password as string;
      expect(hash2).to.match(/^scrypt:/);
      expect(hash2, 'a random salt: the same password hashes differently').to.not.equal(hash);
      expect(JSON.stringify(stored)).to.not.include(secrets[0]);

      const tokens = await login(s, 'erin', secrets[0]);
      const admin = await loginAdmin(s);
      keep('failed login', await s.api('POST', LOGIN, { login: 'erin', password: secrets[2] }));
      keep('whoami', await s.api('GET', '/api/v1/user/whoami', undefined, bearer(tokens)));
      keep('get user', await s.api('GET', '/api/v1/users/erin', undefined, bearer(admin)));
      keep('list users', await s.api('GET', '/api/v1/users', undefined, bearer(admin)));
      const current = await s.api('GET', '/api/v1/users/erin', undefined, bearer(admin));
      // A password change by the administrator is hashed too.
      const put = keep(
        'change password',
        await s.api('PUT', '/api/v1/users/erin', { ...current.body, spec: { nativeProvider: { password: secrets[1] } } }, bearer(admin)),
      );
      expect(put.status, put.text).to.equal(200);
      const rehashed = ((await s.server.store.get({ kind: 'User', project: '', name: 'erin' }))?.spec as any)?.nativeProvider
        ?.password as string;
      expect(rehashed).to.match(/^scrypt:/);
      expect(rehashed).to.not.equal(hash);
      keep('login with new password', await s.api('POST', LOGIN, { login: 'erin', password: secrets[1] }));
      keep('refresh', await s.api('POST', '/api/auth/refresh', { refresh_token: admin.refresh_token }));
      keep('config', await s.api('GET', '/api/config'));

      for (const r of responses) {
        for (const secret of secrets) {
          expect(r.text, `${r.what} answered a password`).to.not.include(secret);
          expect(r.cookies, `${r.what} set a cookie with a password`).to.not.include(secret);
        }
        expect(r.text, `${r.what} answered a password hash`).to.not.include('scrypt:');
      }
      const everything = JSON.stringify(await s.server.store.list({ kind: 'User' }));
      for (const secret of secrets) expect(everything).to.not.include(secret);
      // Nothing on disk holds a password either (LevelDB's log, tables, history versions).
      await s.server.close();
      for (const file of filesUnder(s.dataDir)) {
        const bytes = readFileSync(file);
        for (const secret of secrets) expect(bytes.includes(secret), `${file} contains a password`).to.equal(false);
      }
    } finally {
      await s.stop();
    }
  });

  it('no password (or token) in the server log at debug level: sign-up, login, failed login, refresh, logout', async () => {
    const dir = tempDir();
    const secrets = ['Gina-Plain-Secret-2718', 'Gina-Wrong-Guess-3141', 'admin-password'];
    const srv = await spawnServer({ dataDir: dir.path, env: { ...AUTH_ENV, DASHPLANE_LOG_LEVEL: 'debug' } });
    try {
      const call = (method: string, path: string, o: Parameters<typeof request>[2] = {}) => request(srv.url, path, { method, ...o });
      expect(
        (
          await call('POST', '/api/v1/users', {
            json: { kind: 'User', metadata: { name: 'gina' }, spec: { nativeProvider: { password: secrets[0] } } },
          })
        ).status,
      ).to.equal(200);
      const ok = await call('POST', LOGIN, { json: { login: 'gina', password: secrets[0] } });
      expect(ok.status, ok.text).to.equal(200);
      expect((await call('POST', LOGIN, { json: { login: 'gina', password: secrets[1] } })).status).to.equal(400);
      expect((await call('POST', LOGIN, { json: { login: 'nobody', password: secrets[1] } })).status).to.equal(400);
      const t1 = ok.body as Tokens;
      const viaBody = await call('POST', '/api/auth/refresh', { json: { refresh_token: t1.refresh_token } });
      expect(viaBody.status, viaBody.text).to.equal(200);
      const viaCookie = await call('POST', '/api/auth/refresh', {
        headers: { cookie: cookieHeader(setCookies(viaBody.headers).values()) },
      });
      expect(viaCookie.status, viaCookie.text).to.equal(200);
      const t3 = viaCookie.body as Tokens;
      expect((await call('GET', '/api/auth/logout', { headers: bearer(t3) })).status).to.equal(204);
      // A malformed body with a password in it (rejected before any handler) is not echoed to the log either.
      expect(
        (await call('POST', LOGIN, { body: `{"login":"gina","password":"${secrets[0]}"`, headers: { 'content-type': 'application/json' } }))
          .status,
      ).to.equal(400);

      // Wait until the log has the last request (stdout of a child is asynchronous).
      await waitFor('the log lines of every request', () => (srv.output().match(/"msg":"request"/g) ?? []).length >= 8, 10_000);
      srv.child.kill('SIGTERM');
      await srv.exited;

      const out = srv.output();
      expect(out, 'debug logging is on (the rejected login is logged)').to.include('request rejected');
      for (const secret of secrets) expect(out, `the log contains the password ${secret}`).to.not.include(secret);
      const tokens = [t1, viaBody.body as Tokens, t3].flatMap((t) => [t.refresh_token, t.access_token.split('.')[2]]);
      for (const t of tokens) expect(out, 'the log contains a token').to.not.include(t);
    } finally {
      if (srv.child.exitCode === null && srv.child.signalCode === null) {
        srv.child.kill('SIGKILL');
        await srv.exited;
      }
      dir.remove();
    }
  });
});
