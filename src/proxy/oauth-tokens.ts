import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import { Cut, type Upstream, type UpstreamTarget, type UpstreamTls } from './upstream.js';

/** A Secret's `oauth` block with its client secret read: what a token request needs. */
export interface OAuthClient {
  /** The Secret's identity (kind/project/name): the cache key, and what the log names. */
  id: string;
  /** The Secret's stored version: a changed Secret gets a new token. */
  version: number;
  clientID: string;
  clientSecret: string;
  tokenURL: string;
  scopes: string[];
  endpointParams: Record<string, string[]>;
  /** Go's oauth2.AuthStyle, as Perses: 0 auto-detect (HTTP Basic, then the form body), 1 the form body, 2 HTTP Basic. */
  authStyle: number;
}

/** Where a failure is logged: the secret's identity and what went wrong, never a credential. */
export type TokenLog = (fields: Record<string, unknown>, message: string) => void;

const TOKEN_ENDPOINT: UpstreamTarget = { url: "the Secret's oauth.tokenURL", peer: 'the OAuth token endpoint' };
/** A token is fetched again this long before it expires (at most half its lifetime), as Go's oauth2 does. */
const EXPIRY_MARGIN_MS = 10_000;
/** How long a token whose answer gives no expires_in is used before fetching another. */
const NO_EXPIRY_REUSE_MS = 5 * 60_000;
/** The largest token answer read. */
const MAX_ANSWER_BYTES = 256 * 1024;
/** Secrets whose token is kept (the oldest goes first). */
const MAX_ENTRIES = 1000;
/** The error codes of RFC 6749 §5.2: the only part of a refusal repeated to the caller. */
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);
const ACCESS_TOKEN_RE = /^[\x21-\x7e]+$/;
const TOKEN_TYPE_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface Token {
  authorization: string;
  refreshAt: number;
}
interface Entry {
  fingerprint: string;
  token?: Token | undefined;
  pending?: Promise<Token> | undefined;
  /** The client authentication that worked, when the Secret asks for auto-detection (authStyle 0). */
  style?: 1 | 2;
}

/** `application/x-www-form-urlencoded` encoding of one value (RFC 6749 §2.3.1 for HTTP Basic). */
const formEncode = (s: string) => new URLSearchParams([['', s]]).toString().slice(1);

/**
 * OAuth 2.0 client-credentials tokens (RFC 6749 §4.4) for datasources whose Secret has `oauth`:
 * fetched through the proxy's own Upstream (denied networks, timeouts, concurrency cap, no
 * redirects), kept per Secret and version until shortly before they expire, one fetch at a time
 * per Secret. The client secret goes only to the token endpoint; neither it nor a token is logged
 * or answered.
 */
export class OAuthTokens {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly upstream: Upstream,
    private readonly now: () => number = Date.now,
  ) {}

  /** The Authorization header for a request through the datasource. */
  async authorization(c: OAuthClient, tls: UpstreamTls | undefined, log: TokenLog): Promise<string> {
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([c, tls ?? null]))
      .digest('base64');
    let entry = this.entries.get(c.id);
    if (entry?.fingerprint !== fingerprint) {
      entry = { fingerprint };
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(c.id, entry);
    }
    if (entry.token && this.now() < entry.token.refreshAt) return entry.token.authorization;
    const e = entry;
    e.pending ??= this.fetch(c, e, tls, log)
      .then((t) => (e.token = t))
      .finally(() => (e.pending = undefined));
    return (await e.pending).authorization;
  }

  /** Drops the Secret's token (the datasource refused it): the next request fetches another. */
  forget(c: OAuthClient): void {
    const e = this.entries.get(c.id);
    if (e) e.token = undefined;
  }

  /** A new token; with authStyle 0, HTTP Basic first, then the form body, and the one that worked is kept (as Go's oauth2). */
  private async fetch(c: OAuthClient, e: Entry, tls: UpstreamTls | undefined, log: TokenLog): Promise<Token> {
    const auto = c.authStyle !== 1 && c.authStyle !== 2;
    let answer = await this.request(c, tls, auto ? (e.style ?? 2) : (c.authStyle as 1 | 2));
    if (auto && !e.style) {
      if (answer.status >= 400) answer = await this.request(c, tls, 1);
      if (answer.status < 300) e.style = answer.style;
    }
    const { status, type, text } = answer;
    if (status < 200 || status > 299) {
      const code = errorCode(type, text);
      log({ secret: c.id, status, error: code }, 'the OAuth token endpoint refused a token request');
      throw new ApiError(
        'BadGateway',
        `the OAuth token endpoint refused the Secret's client credentials (HTTP ${status}${code ? `, ${code}` : ''}); check its oauth.clientID, clientSecret, scopes and authStyle`,
      );
    }
    const token = parseToken(type, text, this.now());
    if (!token) {
      log({ secret: c.id, status }, 'the OAuth token endpoint answered without a usable access_token');
      throw new ApiError(
        'BadGateway',
        "the OAuth token endpoint answered without a usable access_token; check the Secret's oauth.tokenURL",
      );
    }
    return token;
  }

  /** One token request (RFC 6749 §4.4.2), the client authenticated in the form body (1) or with HTTP Basic (2). */
  private async request(
    c: OAuthClient,
    tls: UpstreamTls | undefined,
    style: 1 | 2,
  ): Promise<{ status: number; type: string; text: string; style: 1 | 2 }> {
    const url = URL.canParse(c.tokenURL) ? new URL(c.tokenURL) : undefined;
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
      throw new ApiError('BadGateway', "the Secret's oauth.tokenURL is not an http(s) URL; correct it");
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (c.scopes.length) form.set('scope', c.scopes.join(' '));
    for (const [k, values] of Object.entries(c.endpointParams)) {
      if (k !== 'grant_type' && form.has(k))
        throw new ApiError('BadGateway', `the Secret's oauth.endpointParams may not set "${k}"; remove it`);
      form.delete(k);
      for (const v of values) form.append(k, v);
    }
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (style === 1) {
      form.set('client_id', c.clientID);
      if (c.clientSecret) form.set('client_secret', c.clientSecret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${formEncode(c.clientID)}:${formEncode(c.clientSecret)}`).toString('base64')}`;
    }
    const body = Buffer.from(form.toString());
    headers['content-length'] = String(body.length);
    const res = await this.upstream.send(url, {
      method: 'POST',
      headers,
      body: Readable.from([body]),
      cut: new Cut(),
      target: TOKEN_ENDPOINT,
      ...(tls ? { tls } : {}),
    });
    const type = String(res.headers['content-type'] ?? '')
      .split(';', 1)[0]
      .trim()
      .toLowerCase();
    return { status: res.statusCode, type, text: await readAnswer(res.body), style };
  }
}

/** The answer's text, at most MAX_ANSWER_BYTES. */
async function readAnswer(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES)
        throw new ApiError('BadGateway', `the OAuth token endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    body.destroy();
    throw e instanceof ApiError ? e : new ApiError('BadGateway', "the OAuth token endpoint's answer broke off");
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The fields of a token answer: JSON, or a form for the two types Go's oauth2 reads as one. */
function fields(type: string, text: string): Record<string, unknown> | undefined {
  if (type === 'application/x-www-form-urlencoded' || type === 'text/plain') return Object.fromEntries(new URLSearchParams(text));
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A refusal's RFC 6749 error code, when it is one of the registered ones. */
function errorCode(type: string, text: string): string | undefined {
  const code = fields(type, text)?.error;
  return typeof code === 'string' && OAUTH_ERRORS.has(code) ? code : undefined;
}

/** The Authorization header and refresh time of a successful answer (RFC 6749 §5.1); undefined when it is not usable. */
function parseToken(type: string, text: string, now: number): Token | undefined {
  const f = fields(type, text);
  const access = f?.access_token;
  if (typeof access !== 'string' || !ACCESS_TOKEN_RE.test(access)) return undefined;
  const given = typeof f!.token_type === 'string' ? f!.token_type : '';
  if (given !== '' && !TOKEN_TYPE_RE.test(given)) return undefined;
  const tokenType =
    ({ '': 'Bearer', bearer: 'Bearer', mac: 'MAC', basic: 'Basic' } as Record<string, string>)[given.toLowerCase()] ?? given;
  const seconds = Number(f!.expires_in);
  const lifetime = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  const refreshAt = lifetime ? now + lifetime - Math.min(EXPIRY_MARGIN_MS, lifetime / 2) : now + NO_EXPIRY_REUSE_MS;
  return { authorization: `${tokenType} ${access}`, refreshAt };
}
