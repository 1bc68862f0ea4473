/**
 * Sign-ins through an identity provider in the audit log (issue 20: "every login, failed login …
 * kept in the store"), against a real OpenID provider (`oidc-provider`, test/helpers/oidc-provider.ts):
 * every refused attempt (web callback with a bad state or code, the provider's own error, a refused
 * device code, refused client credentials, an unreachable provider) records exactly one
 * `login-failed` entry with the provider, the client address and a reason, as native failures do;
 * the device flow's pending and slow_down polls record nothing; no presented secret, code, state or
 * device code reaches the log (the store or the audit file). Also RFC 6749 §5.2: client
 * credentials refused after HTTP Basic authentication answer 401 with a Basic challenge.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bearer, loginAdmin, startAuthServer } from './helpers/auth.js';
import { Browser, browserLoginUntilCallback, startOidcProvider, type TestOidcProvider } from './helpers/oidc-provider.js';
import { tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

type Entry = Record<string, any>;

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});
const path = (slug: string, route: string) => `/api/auth/providers/oidc/${slug}/${route}`;
const canary = (what: string) => `${what}-${randomBytes(8).toString('hex')}`;

/** A loopback port nothing listens on (an unreachable provider). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One line per sign-in entry: what each test checks exactly. */
const line = (e: Entry) => `${e.action} ${e.user} [${e.provider}${e.reason !== undefined ? `: ${e.reason}` : ''}]`;

describe('sign-ins through an identity provider in the audit log (issue 20)', function () {
  this.timeout(60_000);

  let idp: TestOidcProvider;
  let s: TestServer;
  let admin: Record<string, string>;
  let dir: ReturnType<typeof tempDir>;
  let file: string;
  /** Every secret, code, state and device code presented in these tests: none may reach the log. */
  const presented: string[] = [];

  /** The sign-in entries (login, login-failed) recorded after id `since`, oldest first, after checking what every entry carries. */
  async function entriesSince(since: number): Promise<Entry[]> {
    const r = await s.api('GET', `/api/v1/audit?limit=1000`, undefined, admin);
    expect(r.status, r.text).to.equal(200);
    const entries = (r.body as Entry[]).filter((e) => e.id > since && e.action.startsWith('login') && e.user !== 'admin').reverse();
    for (const e of entries) {
      expect(e.source, line(e)).to.equal('127.0.0.1');
      expect(e.requestId, line(e)).to.be.a('string').that.is.not.empty;
    }
    for (const c of presented) expect(r.text, 'a presented secret in the audit log').to.not.include(c);
    return entries;
  }
  const lastId = async () => ((await s.api('GET', '/api/v1/audit?limit=1', undefined, admin)).body as Entry[])[0]?.id ?? 0;

  before(async () => {
    dir = tempDir('dashplane-idp-audit-');
    file = join(dir.path, 'audit.jsonl');
    idp = await startOidcProvider({
      accounts: [
        { sub: 'u-carla', preferred_username: 'carla', email: 'carla@corp.example', email_verified: true },
        { sub: 'u-devon', preferred_username: 'devon', email: 'devon@corp.example', email_verified: true },
      ],
    });
    const entry = (slug: string, extra: Record<string, unknown> = {}) => ({
      slug_id: slug,
      name: slug,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      issuer: idp.issuer,
      ...extra,
    });
    s = await startAuthServer({
      DASHPLANE_AUDIT_FILE: file,
      // each refused attempt its own entry: these tests read what one refusal records (repeats are
      // counted in one entry per window otherwise: VOLUME-01, audit-volume.test.ts)
      DASHPLANE_AUDIT_COALESCE_WINDOW: '0s',
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
        entry('corp', { device_code: { scopes: ['openid', 'profile', 'email'] } }),
        // prompt=none without a session at the provider: the provider answers the login with an error
        entry('silent', { url_params: { prompt: 'none' } }),
        { ...entry('down'), issuer: `http://127.0.0.1:${await closedPort()}` },
      ]),
    });
    idp.allowRedirectUri(`${s.url}${path('corp', 'callback')}`, `${s.url}${path('silent', 'callback')}`);
    admin = bearer(await loginAdmin(s));
  });

  after(async () => {
    await s?.stop();
    await idp?.stop();
    dir?.remove();
  });

  it('client credentials: a refused secret records one login-failed entry (naming the client once it is a user) and answers 401 with a Basic challenge (RFC 6749 §5.2)', async () => {
    const since = await lastId();
    const token = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      s.raw('POST', path('corp', 'token'), form(fields), { ...FORM, ...headers });
    const guesses = [canary('guess'), canary('guess')];
    presented.push(...guesses);

    const wrong = await token({ grant_type: 'client_credentials' }, basic(idp.robotId, guesses[0]));
    expect(wrong.status, wrong.text).to.equal(401);
    expect(wrong.headers.get('www-authenticate'), 'the challenge of the scheme the client used').to.match(/^Basic realm="[^"]+"$/);
    expect(wrong.body.error).to.equal('invalid_client');
    // no HTTP Basic: the OAuth error stays a 400 without a challenge
    const none = await token({ grant_type: 'client_credentials' });
    expect(none.status, none.text).to.equal(400);
    expect(none.headers.get('www-authenticate')).to.equal(null);
    expect(none.body.error).to.equal('invalid_client');
    expect((await token({ grant_type: 'client_credentials' }, basic(idp.robotId, idp.robotSecret))).status).to.equal(200);
    const again = await token({ grant_type: 'client_credentials' }, basic(idp.robotId, guesses[1]));
    expect(again.status, again.text).to.equal(401);
    // a secret sent as typed rather than form-encoded (a bare %) is refused like any wrong secret
    const typed = await token(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${Buffer.from(`${idp.robotId}:${guesses[1]}%`).toString('base64')}` },
    );
    expect(typed.status, typed.text).to.equal(401);
    // another client's id with the robot's secret: the robot's user is not named, nor the secret kept
    presented.push(idp.robotSecret);
    expect((await token({ grant_type: 'client_credentials' }, basic(idp.clientId, idp.robotSecret))).status).to.equal(401);
    const unsupported = await token({ grant_type: 'password', username: 'carla', password: guesses[0] });
    expect(unsupported.status, unsupported.text).to.equal(400);

    expect((await entriesSince(since)).map(line)).to.deep.equal([
      'login-failed - [oidc/corp: invalid_client: client authentication failed]',
      'login-failed - [oidc/corp: invalid_client: send the client id and secret with HTTP Basic authentication]',
      'login robot [oidc/corp]',
      'login-failed robot [oidc/corp: invalid_client: client authentication failed]',
      'login-failed robot [oidc/corp: invalid_client: client authentication failed]',
      'login-failed - [oidc/corp: invalid_client: client authentication failed]',
      'login-failed - [oidc/corp: unsupported_grant_type: grant_type must be urn:ietf:params:oauth:grant-type:device_code or client_credentials]',
    ]);
  });

  it("web callback: a missing or replayed login state, a bogus code and the provider's own error each record one login-failed entry; a completed login records its login", async () => {
    const since = await lastId();
    const [code, state] = [canary('code'), canary('state')];
    presented.push(code, state);
    // no login state at all (what `curl .../callback?code=abc&state=xyz` sends)
    const stray = await new Browser().fetch(`${s.url}${path('corp', 'callback')}?code=${code}&state=${state}`);
    expect(stray.status, stray.text).to.equal(400);

    // a real login state, and a code the provider never issued
    const forged = await browserLoginUntilCallback(`${s.url}${path('corp', 'login')}`, 'u-carla');
    const forgedUrl = new URL(forged.callbackUrl);
    presented.push(forgedUrl.searchParams.get('code')!, forgedUrl.searchParams.get('state')!);
    forgedUrl.searchParams.set('code', code);
    const bogus = await forged.browser.fetch(forgedUrl.href);
    expect(bogus.status, bogus.text).to.equal(400);

    // the provider refuses the login itself and redirects back with an error
    const silent = await browserLoginUntilCallback(`${s.url}${path('silent', 'login')}`, 'u-carla');
    expect(new URL(silent.callbackUrl).searchParams.get('error')).to.equal('login_required');
    presented.push(new URL(silent.callbackUrl).searchParams.get('state')!);
    const refused = await silent.browser.fetch(silent.callbackUrl);
    expect(refused.status, refused.text).to.equal(400);

    // a completed login, then its callback sent again with the same login state cookie
    const good = await browserLoginUntilCallback(`${s.url}${path('corp', 'login')}`, 'u-carla');
    const goodUrl = new URL(good.callbackUrl);
    presented.push(goodUrl.searchParams.get('code')!, goodUrl.searchParams.get('state')!);
    const stateCookie = good.browser.cookieHeader(good.callbackUrl);
    expect((await good.browser.fetch(good.callbackUrl)).status).to.equal(302);
    const replay = await fetch(good.callbackUrl, { headers: { cookie: stateCookie }, redirect: 'manual' });
    expect(replay.status, await replay.text()).to.equal(400);

    const lines = (await entriesSince(since)).map(line);
    expect(lines).to.have.length(5);
    expect(lines[0]).to.equal('login-failed - [oidc/corp: the login has expired or was started elsewhere; start it again]');
    expect(lines[1]).to.match(/^login-failed - \[oidc\/corp: invalid_grant: .+\]$/);
    expect(lines[2]).to.match(/^login-failed - \[oidc\/silent: login_required: .+\]$/);
    expect(lines.slice(3)).to.deep.equal([
      'login carla [oidc/corp]',
      'login-failed - [oidc/corp: this login response was already used; start the login again]',
    ]);
  });

  it('device flow: pending and slow_down polls record nothing; a refused device code records one login-failed entry; the approved device records its login', async () => {
    const since = await lastId();
    const dc = await s.raw('POST', path('corp', 'device/code'));
    expect(dc.status, dc.text).to.equal(200);
    presented.push(dc.body.device_code);
    const poll = (deviceCode: string) =>
      s.raw('POST', path('corp', 'token'), form({ grant_type: DEVICE_GRANT, device_code: deviceCode }), FORM);
    const waiting: string[] = [];
    for (let i = 0; i < 4; i++) {
      if (i === 2) idp.slowDown(2); // the provider asks for slower polling twice
      const r = await poll(dc.body.device_code);
      expect(r.status, r.text).to.equal(400);
      waiting.push(r.body.error);
    }
    expect(waiting, 'the polls before the approval').to.deep.equal([
      'authorization_pending',
      'authorization_pending',
      'slow_down',
      'slow_down',
    ]);
    const bogus = canary('device');
    presented.push(bogus);
    const refused = await poll(bogus);
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.error).to.equal('invalid_grant');

    await idp.approveDevice(dc.body.user_code, 'u-devon');
    await waitFor(
      'the device token',
      async () => {
        const r = await poll(dc.body.device_code);
        if (r.status === 400 && ['authorization_pending', 'slow_down'].includes(r.body?.error)) return undefined;
        expect(r.status, r.text).to.equal(200);
        return r;
      },
      20_000,
      250,
    );
    const lines = (await entriesSince(since)).map(line);
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^login-failed - \[oidc\/corp: invalid_grant: .+\]$/);
    expect(lines[1]).to.equal('login devon [oidc/corp]');
  });

  it('a provider that cannot be reached: the sign-in fails (502) and records one login-failed entry saying so', async () => {
    const since = await lastId();
    const secret = canary('secret');
    presented.push(secret);
    const r = await s.raw('POST', path('down', 'token'), form({ grant_type: 'client_credentials' }), {
      ...FORM,
      ...basic('robot', secret),
    });
    expect(r.status, r.text).to.equal(502);
    const lines = (await entriesSince(since)).map(line);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^login-failed - \[oidc\/down: identity provider "down" cannot be reached \(.+\)\]$/);
  });

  it('the audit file holds the same sign-in entries, and none of the presented secrets, codes, states or device codes', async () => {
    const stored = await entriesSince(0);
    const shipped = await waitFor('the file to hold every entry', () => {
      if (!existsSync(file)) return undefined;
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const byId = new Map(lines.map((l) => JSON.parse(l) as Entry).map((e) => [e.id, e]));
      return stored.every((e) => byId.has(e.id)) ? { byId, raw: lines.join('\n') } : undefined;
    });
    expect(stored.filter((e) => e.action === 'login-failed')).to.have.length(12);
    for (const e of stored) expect(shipped!.byId.get(e.id)).to.deep.equal({ kind: 'AuditEvent', ...e });
    for (const c of presented) expect(shipped!.raw).to.not.include(c);
  });
});
