/**
 * Identity providers for the OIDC / OAuth 2.0 tests (issue 6), all on 127.0.0.1 with random ports:
 *
 * - `startOidcProvider`: the real `oidc-provider` (v9) with a web client `dashplane` (authorization
 *   code + PKCE S256 required, refresh token, device code), a `robot` client (client credentials),
 *   an in-memory account store (its `groups` claim released with the `groups` scope; refresh
 *   tokens with `offline_access` and `prompt=consent`) and minimal login / consent pages of our own (devInteractions off):
 *   the login page is a form whose `login` field names the account, so an HTTP client chooses who
 *   logs in by filling it in. Device codes are approved through the provider's own /device pages.
 * - `startFakeOidcProvider`: a small hand-written OpenID provider whose token endpoint can forge
 *   the ID token (wrong nonce / aud / iss, expired, no nonce). oidc-provider always signs correct
 *   ID tokens, so the OIDC-03 checks need a provider that misbehaves on purpose.
 * - `Browser` / `browserLogin`: a cookie-jar HTTP client (fetch, manual redirects) that follows
 *   the redirects between dashplane and a provider and submits the provider's HTML forms.
 *
 * Clients are served through an adapter reading a mutable registry, so the redirect URIs of a
 * dashplane started after the provider (its port is only known then) can be added later with
 * `allowRedirectUri`.
 */
import { createHash, generateKeyPairSync, randomBytes, sign as rsaSign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account at the identity provider (the claims it releases). */
export interface IdpAccount {
  sub: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  picture?: string;
  name?: string;
  /** Released with the `groups` scope (any shape: tests send malformed ones too). */
  groups?: unknown;
}

export interface OidcProviderOptions {
  accounts?: IdpAccount[];
  /** The web client dashplane uses (default id `dashplane`, client_secret_basic). */
  client?: { id?: string; secret?: string; redirectUris?: string[]; authMethod?: 'client_secret_basic' | 'client_secret_post' };
  /** The machine client for client credentials (default id `robot`). */
  robot?: { id?: string; secret?: string; scope?: string };
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>` */
  issuer: string;
  clientId: string;
  clientSecret: string;
  robotId: string;
  robotSecret: string;
  /** The account store, by sub; tests may change claims between logins. */
  accounts: Map<string, IdpAccount>;
  addAccount(a: IdpAccount): void;
  /** Registers more redirect URIs for the web client (e.g. a dashplane started after the provider). */
  allowRedirectUri(...uris: string[]): void;
  /**
   * Answers the next `polls` token requests with `slow_down` (RFC 8628 §3.5), as providers that
   * enforce the device polling interval do (oidc-provider never sends it).
   */
  slowDown(polls: number): void;
  /** Approves a device user code as `accountId` through the provider's /device pages. */
  approveDevice(userCode: string, accountId: string): Promise<void>;
  /** Drives a browser login through this provider (see `browserLogin`). */
  browserLogin(loginUrl: string, accountId: string, browser?: Browser): Promise<BrowserLogin>;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Browser: cookie jar + manual redirects + HTML forms
// ---------------------------------------------------------------------------------------------

export interface BrowserResponse {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  /** The Location header resolved against the request URL. */
  location?: string;
  /** The raw Location header. */
  rawLocation?: string;
  setCookie: string[];
  text: string;
}

interface StoredCookie {
  name: string;
  value: string;
  host: string;
  path: string;
  expires: number;
}

/**
 * A minimal browser: host-only cookies (ports ignored, as browsers do), Path matching, Max-Age /
 * Expires, and no automatic redirects. Secure and SameSite are not enforced (everything is
 * same-site loopback http).
 */
export class Browser {
  private jar: StoredCookie[] = [];
  readonly history: BrowserResponse[] = [];

  /** The Cookie header this browser sends to `url`. */
  cookieHeader(url: string): string {
    const u = new URL(url);
    const now = Date.now();
    this.jar = this.jar.filter((c) => c.expires > now);
    return this.jar
      .filter((c) => c.host === u.hostname && pathMatches(u.pathname, c.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The value of a stored cookie (any path) for the host of `url`. */
  cookie(url: string, name: string): string | undefined {
    const host = new URL(url).hostname;
    return this.jar.find((c) => c.host === host && c.name === name && c.expires > Date.now())?.value;
  }

  async fetch(
    url: string,
    o: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const method = o.method ?? (o.form ? 'POST' : 'GET');
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const cookie = this.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (o.form) {
      body = new URLSearchParams(o.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const setCookie = res.headers.getSetCookie();
    for (const line of setCookie) this.store(url, line);
    const rawLocation = res.headers.get('location') ?? undefined;
    const out: BrowserResponse = {
      method,
      url,
      status: res.status,
      headers: res.headers,
      setCookie,
      text,
      ...(rawLocation !== undefined && res.status >= 300 && res.status < 400
        ? { rawLocation, location: new URL(rawLocation, url).href }
        : {}),
    };
    this.history.push(out);
    return out;
  }

  private store(url: string, line: string): void {
    const u = new URL(url);
    const [pair, ...attrs] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    let path = u.pathname.lastIndexOf('/') > 0 ? u.pathname.slice(0, u.pathname.lastIndexOf('/')) : '/';
    let expires = Number.POSITIVE_INFINITY;
    for (const a of attrs) {
      const i = a.indexOf('=');
      const k = (i < 0 ? a : a.slice(0, i)).trim().toLowerCase();
      const v = i < 0 ? '' : a.slice(i + 1).trim();
      if (k === 'path' && v.startsWith('/')) path = v;
      else if (k === 'max-age') expires = Date.now() + Number(v) * 1000;
      else if (k === 'expires' && expires === Number.POSITIVE_INFINITY) expires = Date.parse(v);
    }
    this.jar = this.jar.filter((c) => !(c.name === name && c.host === u.hostname && c.path === path));
    if (expires > Date.now()) this.jar.push({ name, value, host: u.hostname, path, expires });
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

const decodeEntities = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#\d+|#x[0-9a-f]+);/gi, (all, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"' } as Record<string, string>)[e.toLowerCase()] ?? all;
  });

function attrs(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*"([^"]*)"/g)) out.set(m[1].toLowerCase(), decodeEntities(m[2]));
  return out;
}

/** The first HTML form of a page: action (absolute), method and its inputs' default values. */
export function parseForm(html: string, pageUrl: string): { action: string; method: string; fields: Record<string, string> } | undefined {
  const m = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!m) return undefined;
  const a = attrs(m[1]);
  const fields: Record<string, string> = {};
  for (const i of m[2].matchAll(/<input\b([^>]*)>/gi)) {
    const ia = attrs(i[1]);
    const name = ia.get('name');
    if (name) fields[name] = ia.get('value') ?? '';
  }
  return { action: new URL(a.get('action') ?? pageUrl, pageUrl).href, method: (a.get('method') ?? 'get').toUpperCase(), fields };
}

/**
 * Follows redirects and submits forms (filling `login` with `accountId`) from `start` until a
 * redirect target satisfies `stopAt` (returned as `next`, not requested) or a page has no form to
 * submit (returned as the final `res`).
 */
export async function drive(
  b: Browser,
  start: BrowserResponse,
  accountId: string,
  stopAt: (url: string) => boolean,
  maxSteps = 30,
): Promise<{ res: BrowserResponse; next?: string }> {
  let res = start;
  for (let step = 0; step < maxSteps; step++) {
    if (res.location) {
      if (stopAt(res.location)) return { res, next: res.location };
      res = await b.fetch(res.location);
      continue;
    }
    if (res.status !== 200 || res.text.includes('id="op-error"')) return { res };
    const form = parseForm(res.text, res.url);
    if (!form) return { res };
    const fields = { ...form.fields };
    if ('login' in fields) fields.login = accountId;
    if (form.method === 'POST') res = await b.fetch(form.action, { form: fields });
    else {
      const u = new URL(form.action);
      for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
      res = await b.fetch(u.href);
    }
  }
  throw new Error(`browser: more than ${maxSteps} steps (last ${res.status} ${res.url})`);
}

export interface BrowserLogin {
  browser: Browser;
  /** dashplane's answer to the login route (302 to the provider). */
  login: BrowserResponse;
  /** Where dashplane sent the browser (the provider's authorization request). */
  authorizeUrl: string;
  /** Where the provider sent the browser back (dashplane's callback with code and state). */
  callbackUrl: string;
}

export interface CompletedBrowserLogin extends BrowserLogin {
  /** dashplane's answer to the callback (302 to the app, Set-Cookie). */
  callback: BrowserResponse;
}

function snippet(r: BrowserResponse): string {
  return `${r.method} ${r.url} -> ${r.status} ${r.rawLocation ?? ''} ${r.text.replace(/\s+/g, ' ').slice(0, 400)}`;
}

/**
 * Starts a login at dashplane (`loginUrl`), goes through the provider as `accountId` and stops
 * when the provider redirects back to dashplane's origin: the callback URL is returned, not called.
 */
export async function browserLoginUntilCallback(loginUrl: string, accountId: string, browser = new Browser()): Promise<BrowserLogin> {
  const origin = new URL(loginUrl).origin;
  const login = await browser.fetch(loginUrl);
  if (!login.location) throw new Error(`dashplane login did not redirect: ${snippet(login)}`);
  const { res, next } = await drive(browser, login, accountId, (u) => new URL(u).origin === origin);
  if (!next) throw new Error(`the provider did not send the browser back to dashplane: ${snippet(res)}`);
  return { browser, login, authorizeUrl: login.location, callbackUrl: next };
}

/** The whole browser login: also calls dashplane's callback and returns its answer (not followed). */
export async function browserLogin(loginUrl: string, accountId: string, browser = new Browser()): Promise<CompletedBrowserLogin> {
  const l = await browserLoginUntilCallback(loginUrl, accountId, browser);
  return { ...l, callback: await browser.fetch(l.callbackUrl) };
}

// ---------------------------------------------------------------------------------------------
// oidc-provider
// ---------------------------------------------------------------------------------------------

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) => `<!DOCTYPE html><html><head><title>${esc(title)}</title></head><body>${body}</body></html>`;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function rsaJwk(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
  };
}

/** An oidc-provider storage adapter over a Map (per provider), clients from a mutable registry. */
function adapterFactory(clients: Map<string, Record<string, unknown>>) {
  const store = new Map<string, any>();
  return class MapAdapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: any): Promise<void> {
      if (this.model === 'Client') return;
      store.set(this.key(id), payload);
      if (payload.grantId) store.set(`grant:${payload.grantId}`, [...(store.get(`grant:${payload.grantId}`) ?? []), this.key(id)]);
      if (payload.userCode) store.set(`userCode:${payload.userCode}`, id);
      if (this.model === 'Session' && payload.uid) store.set(`sessionUid:${payload.uid}`, id);
    }
    async find(id: string): Promise<any> {
      if (this.model === 'Client') {
        const c = clients.get(id);
        return c && structuredClone(c);
      }
      return store.get(this.key(id));
    }
    async findByUserCode(userCode: string): Promise<any> {
      const id = store.get(`userCode:${userCode}`);
      return id && this.find(id);
    }
    async findByUid(uid: string): Promise<any> {
      const id = store.get(`sessionUid:${uid}`);
      return id && this.find(id);
    }
    async consume(id: string): Promise<void> {
      const p = store.get(this.key(id));
      if (p) p.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const k of store.get(`grant:${grantId}`) ?? []) store.delete(k);
      store.delete(`grant:${grantId}`);
    }
  };
}

export async function startOidcProvider(opts: OidcProviderOptions = {}): Promise<TestOidcProvider> {
  const clientId = opts.client?.id ?? 'dashplane';
  const clientSecret = opts.client?.secret ?? `dashplane-secret-${randomBytes(8).toString('hex')}`;
  const robotId = opts.robot?.id ?? 'robot';
  const robotSecret = opts.robot?.secret ?? `robot-secret-${randomBytes(8).toString('hex')}`;
  const accounts = new Map<string, IdpAccount>((opts.accounts ?? []).map((a) => [a.sub, { ...a }]));

  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;

  const redirectUris = new Set<string>(opts.client?.redirectUris ?? [`${issuer}/unused-redirect`]);
  const clients = new Map<string, Record<string, unknown>>();
  const registerWebClient = () =>
    clients.set(clientId, {
      client_id: clientId,
      client_secret: clientSecret,
      client_name: 'dashplane',
      redirect_uris: [...redirectUris],
      response_types: ['code'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      token_endpoint_auth_method: opts.client?.authMethod ?? 'client_secret_basic',
    });
  registerWebClient();
  clients.set(robotId, {
    client_id: robotId,
    client_secret: robotSecret,
    redirect_uris: [],
    response_types: [],
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...(opts.robot?.scope ? { scope: opts.robot.scope } : {}),
  });

  const { privateJwk } = rsaJwk('op-1');
  const provider = new Provider(issuer, {
    adapter: adapterFactory(clients),
    jwks: { keys: [privateJwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 120,
      ClientCredentials: 600,
      DeviceCode: 600,
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'given_name', 'family_name', 'picture', 'name'],
      groups: ['groups'],
    },
    async findAccount(_ctx: unknown, id: string) {
      const a = accounts.get(id);
      if (!a) return undefined;
      return { accountId: id, claims: async () => ({ ...accounts.get(id)!, sub: id }) };
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: async (ctx: any, form: string, _out: unknown, err: unknown) => {
          ctx.body = page('Device', `${err ? `<p id="op-error">${esc(String((err as Error).message ?? err))}</p>` : ''}${form}`);
        },
        userCodeConfirmSource: async (ctx: any, form: string) => {
          ctx.body = page('Confirm device', form);
        },
        successSource: async (ctx: any) => {
          ctx.body = page('Success', '<p id="device-success">Sign-in Success</p>');
        },
      },
    },
    pkce: { required: (_ctx: unknown, client: { clientId: string }) => client.clientId === clientId },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    renderError: async (ctx: any, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = page('Error', `<pre id="op-error">${esc(JSON.stringify(out))}</pre>`);
    },
    logoutSource: async (ctx: any, form: string) => {
      ctx.body = page('Logout', form);
    },
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider server_error', err));

  const callback = provider.callback();
  let slowDowns = 0;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer);
    if (slowDowns > 0 && req.method === 'POST' && url.pathname === '/token') {
      slowDowns--;
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify({ error: 'slow_down', error_description: 'you are polling too quickly and should back off at a reasonable rate' }),
      );
      return;
    }
    const m = /^\/interaction\/([^/]+)(?:\/(login|confirm))?$/.exec(url.pathname);
    if (!m) {
      callback(req, res);
      return;
    }
    void interaction(req, res, m[2]).catch((err: Error) => {
      if (!res.headersSent) {
        res.statusCode = 400;
        res.setHeader('content-type', 'text/html');
      }
      res.end(page('Error', `<pre id="op-error">${esc(String(err?.message ?? err))}</pre>`));
    });
  });

  async function interaction(req: IncomingMessage, res: ServerResponse, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const html = (status: number, body: string) => {
      res.statusCode = status;
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(page(details.prompt.name, body));
    };
    if (!action && req.method === 'GET') {
      if (details.prompt.name === 'login') {
        html(
          200,
          `<form method="post" action="/interaction/${esc(details.uid)}/login"><input type="text" name="login" value=""/><button type="submit">Sign in</button></form>`,
        );
      } else {
        html(
          200,
          `<form method="post" action="/interaction/${esc(details.uid)}/confirm"><input type="hidden" name="confirm" value="yes"/><button type="submit">Allow</button></form>`,
        );
      }
      return;
    }
    if (action === 'login' && req.method === 'POST') {
      const login = (await readForm(req)).get('login') ?? '';
      if (!accounts.has(login)) return html(400, `<p id="op-error">unknown account ${esc(login)}</p>`);
      await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
      return;
    }
    if (action === 'confirm' && req.method === 'POST') {
      await readForm(req);
      const { details: missing } = details.prompt;
      const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
      const grant = existing ?? new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      if (missing.missingOIDCScope) grant.addOIDCScope((missing.missingOIDCScope as string[]).join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims as string[]);
      for (const [indicator, scopes] of Object.entries((missing.missingResourceScopes ?? {}) as Record<string, string[]>))
        grant.addResourceScope(indicator, scopes.join(' '));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    html(405, '<p id="op-error">method not allowed</p>');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    robotId,
    robotSecret,
    accounts,
    addAccount: (a) => void accounts.set(a.sub, { ...a }),
    allowRedirectUri: (...uris) => {
      for (const u of uris) redirectUris.add(u);
      registerWebClient();
    },
    slowDown: (polls) => {
      slowDowns = polls;
    },
    async approveDevice(userCode, accountId) {
      const b = new Browser();
      const first = await b.fetch(`${issuer}/device?user_code=${encodeURIComponent(userCode)}`);
      const { res } = await drive(b, first, accountId, () => false);
      if (!res.text.includes('id="device-success"')) throw new Error(`device approval failed: ${snippet(res)}`);
    },
    browserLogin: (loginUrl, accountId, browser) => browserLogin(loginUrl, accountId, browser),
    stop: () => close(server),
  };
}

// ---------------------------------------------------------------------------------------------
// A deliberately misbehaving OpenID provider (ID token forgeries for OIDC-03)
// ---------------------------------------------------------------------------------------------

export type IdTokenForgery = 'none' | 'wrong-nonce' | 'no-nonce' | 'wrong-aud' | 'wrong-iss' | 'expired';

export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, IdpAccount>;
  /** How the next ID tokens are forged ('none': a correct ID token). */
  forgery: IdTokenForgery;
  /** Successful code exchanges at the token endpoint (to tell "rejected the ID token" from "never got that far"). */
  tokenResponses: number;
  /** Userinfo requests answered. */
  userinfoResponses: number;
  /** Signs any claims with the provider's key (RS256, as its published JWKS): for access-token tests. */
  sign(payload: Record<string, unknown>): string;
  stop(): Promise<void>;
}

/**
 * Discovery, JWKS, an authorization endpoint (a login form whose `login` field names the account;
 * remembers nonce and PKCE challenge), a token endpoint (client_secret_basic or _post, PKCE S256
 * checked, single-use codes) issuing an RS256 ID token forged as `forgery` says, and userinfo.
 */
export async function startFakeOidcProvider(o: {
  accounts: IdpAccount[];
  clientId?: string;
  clientSecret?: string;
}): Promise<FakeOidcProvider> {
  const clientId = o.clientId ?? 'dashplane';
  const clientSecret = o.clientSecret ?? `fake-secret-${randomBytes(8).toString('hex')}`;
  const accounts = new Map(o.accounts.map((a) => [a.sub, { ...a }]));
  const { privateKey, publicJwk } = rsaJwk('fake-1');
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const pending = new Map<string, Record<string, string>>();
  const codes = new Map<string, { tx: Record<string, string>; sub: string }>();
  const accessTokens = new Map<string, string>();
  const b64u = (s: string) => Buffer.from(s).toString('base64url');
  const jwt = (payload: Record<string, unknown>) => {
    const signingInput = `${b64u(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'fake-1' }))}.${b64u(JSON.stringify(payload))}`;
    return `${signingInput}.${rsaSign('sha256', Buffer.from(signingInput), privateKey).toString('base64url')}`;
  };

  const fake: FakeOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    forgery: 'none',
    tokenResponses: 0,
    userinfoResponses: 0,
    sign: jwt,
    stop: () => close(server),
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/.well-known/openid-configuration') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          grant_types_supported: ['authorization_code'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          scopes_supported: ['openid', 'profile', 'email'],
        });
      }
      if (url.pathname === '/jwks') return json(res, 200, { keys: [publicJwk] });
      if (url.pathname === '/authorize' && req.method === 'GET') {
        const p = Object.fromEntries(url.searchParams);
        if (p.client_id !== clientId || p.response_type !== 'code' || !p.redirect_uri) return json(res, 400, { error: 'invalid_request' });
        const tx = randomBytes(12).toString('hex');
        pending.set(tx, p);
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(
          page(
            'Fake login',
            `<form method="post" action="/authorize/login"><input type="hidden" name="tx" value="${tx}"/><input type="text" name="login" value=""/></form>`,
          ),
        );
      }
      if (url.pathname === '/authorize/login' && req.method === 'POST') {
        const f = await readForm(req);
        const tx = pending.get(f.get('tx') ?? '');
        const sub = f.get('login') ?? '';
        if (!tx || !accounts.has(sub)) return json(res, 400, { error: 'invalid_request' });
        pending.delete(f.get('tx')!);
        const code = randomBytes(16).toString('base64url');
        codes.set(code, { tx, sub });
        const back = new URL(tx.redirect_uri);
        back.searchParams.set('code', code);
        if (tx.state !== undefined) back.searchParams.set('state', tx.state);
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const f = await readForm(req);
        let id = f.get('client_id');
        let secret = f.get('client_secret');
        const auth = req.headers.authorization;
        if (auth?.startsWith('Basic ')) {
          const [u, s] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
          id = decodeURIComponent(u);
          secret = decodeURIComponent(s ?? '');
        }
        if (id !== clientId || secret !== clientSecret) return json(res, 401, { error: 'invalid_client' });
        const c = codes.get(f.get('code') ?? '');
        if (f.get('grant_type') !== 'authorization_code' || !c) return json(res, 400, { error: 'invalid_grant' });
        codes.delete(f.get('code')!);
        if (c.tx.redirect_uri !== f.get('redirect_uri'))
          return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
        if (c.tx.code_challenge) {
          const verifier = f.get('code_verifier') ?? '';
          if (createHash('sha256').update(verifier).digest('base64url') !== c.tx.code_challenge)
            return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE' });
        }
        const now = Math.floor(Date.now() / 1000);
        const a = accounts.get(c.sub)!;
        const claims: Record<string, unknown> = {
          ...a,
          iss: issuer,
          sub: c.sub,
          aud: clientId,
          iat: now,
          exp: now + 300,
          auth_time: now,
          nonce: c.tx.nonce,
        };
        switch (fake.forgery) {
          case 'wrong-nonce':
            claims.nonce = 'not-the-nonce-dashplane-sent';
            break;
          case 'no-nonce':
            delete claims.nonce;
            break;
          case 'wrong-aud':
            claims.aud = 'some-other-client';
            break;
          case 'wrong-iss':
            claims.iss = 'http://127.0.0.1:1';
            break;
          case 'expired':
            Object.assign(claims, { iat: now - 7200, auth_time: now - 7200, exp: now - 3600 });
            break;
          case 'none':
            break;
        }
        if (claims.nonce === undefined) delete claims.nonce;
        const accessToken = randomBytes(16).toString('base64url');
        accessTokens.set(accessToken, c.sub);
        fake.tokenResponses++;
        return json(res, 200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 300,
          scope: c.tx.scope,
          id_token: jwt(claims),
        });
      }
      if (url.pathname === '/userinfo') {
        const sub = accessTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (!sub) return json(res, 401, { error: 'invalid_token' });
        fake.userinfoResponses++;
        return json(res, 200, { ...accounts.get(sub)!, sub });
      }
      json(res, 404, { error: 'not_found' });
    })().catch((err: Error) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: String(err?.message ?? err) });
      else res.end();
    });
  });
  return fake;
}
