import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseCookies, serializeCookie, type CookieOptions } from '../auth/cookies.js';
import { externalSignIn, presented, type SignInAttempt } from '../auth/external-sign-in.js';
import { OAuthError, type ExternalProvider } from '../auth/provider.js';
import type { AuthService } from '../auth/login.js';
import type { ExternalIdentity } from '../auth/user-sync.js';
import { badRequest, notFound } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { ResourceService } from '../resources/service.js';
import type { ObjectStore } from '../storage/store.js';
import { sendTokens, tokenCookies, TOKENS } from './auth-routes.js';
import { statusOf } from './error-handler.js';
import { documented, type RouteDoc } from './route-doc.js';

export interface ExternalAuthOptions {
  providers: Map<string, ExternalProvider>;
  auth: AuthService;
  service: ResourceService;
  store: ObjectStore;
  userKind: KindDescriptor;
  cookie: CookieOptions;
  /** HMAC key of the login-state cookie. */
  stateKey: Buffer;
  /** api_prefix: where this server's paths start (the callback's default URL, the page after a login). */
  prefix?: string;
}

const STATE_COOKIE = 'dashplaneLogin';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const STATE_TTL_S = 600;
/** A same-origin path: one leading slash, no second slash or backslash after it, no whitespace or controls. */
const SAFE_REDIRECT = /^\/(?![/\\])[^\s\x00-\x1f\\]*$/;

type Params = { kind: string; slug: string };

/** What the provider routes share in the OpenAPI document. */
const PROVIDER: Pick<RouteDoc, 'tag' | 'params'> = {
  tag: 'Authentication',
  params: { kind: '`oidc` or `oauth`', slug: "The provider's `slug_id` in the configuration" },
};
const OAUTH_ERROR = {
  description: 'OAuth error body `{error, error_description}` (e.g. authorization_pending)',
  schema: { type: 'object', properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
};

/**
 * Web (authorization code + PKCE), device-code and client-credentials logins through configured
 * OIDC and OAuth 2.0 providers (docs/api.md §2, §12). All anonymous routes: they create sessions.
 */
export function registerExternalAuthRoutes(app: FastifyInstance, o: ExternalAuthOptions): void {
  const used = new Map<string, number>(); // states already consumed (replays), until they expire

  app.get<{ Params: Params; Querystring: { redirect?: string } }>(
    '/api/auth/providers/:kind/:slug/login',
    documented(
      {
        ...PROVIDER,
        summary: 'Starts a browser login at the provider (authorization code with PKCE S256, state, nonce)',
        query: [{ name: 'redirect', description: 'A same-origin path to return to after the login (anything else becomes /)' }],
        responses: {
          302: {
            description: 'To the provider; the login state is kept in a signed HttpOnly cookie',
            headers: { Location: "The provider's authorization URL" },
          },
        },
      },
      true,
    ),
    async (req, reply) => {
      const p = provider(o, req.params);
      const start = await p.startLogin(origin(req, o.prefix));
      const redirect = typeof req.query.redirect === 'string' && SAFE_REDIRECT.test(req.query.redirect) ? req.query.redirect : '/';
      const state = sign(o.stateKey, {
        ...start,
        url: undefined,
        redirect,
        slug: `${p.kind}/${p.slug}`,
        exp: Date.now() + STATE_TTL_S * 1000,
      });
      void reply.header(
        'set-cookie',
        serializeCookie(STATE_COOKIE, state, { ...o.cookie, sameSite: 'lax', httpOnly: true, maxAge: STATE_TTL_S }),
      );
      return reply.redirect(start.url, 302);
    },
  );

  app.get<{ Params: Params; Querystring: Record<string, string> }>(
    '/api/auth/providers/:kind/:slug/callback',
    documented(
      {
        ...PROVIDER,
        summary: "The provider's redirect back: checks state, exchanges the code, syncs the user, sets the session cookies",
        query: [
          { name: 'code', description: 'From the provider' },
          { name: 'state', description: 'From the provider' },
        ],
        responses: {
          302: {
            description: 'Signed in: to the saved same-origin path',
            headers: { Location: 'The path the login started from', 'Set-Cookie': 'The session cookies' },
          },
          400: { description: 'Expired, foreign, mismatched or replayed login state', schema: 'Error' },
          403: { description: 'The provider identity may not use this user', schema: 'Error' },
        },
      },
      true,
    ),
    async (req, reply) => {
      const p = provider(o, req.params);
      const clear = serializeCookie(STATE_COOKIE, '', { ...o.cookie, sameSite: 'lax', httpOnly: true, maxAge: 0 });
      void reply.header('set-cookie', clear);
      const saved = verify(o.stateKey, parseCookies(req.headers).get(STATE_COOKIE));
      const attempt = { presented: [...presented(req.query), saved?.state, saved?.nonce, saved?.verifier] };
      const tokens = await externalSignIn(o, p, req.principal, attempt, async () => {
        if (!saved || saved.slug !== `${p.kind}/${p.slug}` || saved.exp < Date.now())
          throw badRequest('the login has expired or was started elsewhere; start it again');
        if (typeof req.query.state !== 'string' || req.query.state !== saved.state)
          throw badRequest('the login state does not match; start the login again');
        if (used.has(saved.state)) throw badRequest('this login response was already used; start the login again');
        used.set(saved.state, saved.exp);
        for (const [s, exp] of used) if (exp < Date.now()) used.delete(s);
        return p.finishLogin(origin(req, o.prefix), req.query, saved);
      });
      void reply.header('set-cookie', [clear, ...tokenCookies(tokens, o.cookie)]);
      // signed in, so the login state was good
      const back = saved?.redirect;
      return reply.redirect(back && SAFE_REDIRECT.test(back) ? back : `${o.prefix ?? ''}/`, 302);
    },
  );

  // The OAuth endpoints take forms (RFC 6749), as curl -d and OAuth clients send them.
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.route<{ Params: Params }>({
      method: ['GET', 'POST'],
      url: '/api/auth/providers/:kind/:slug/device/code',
      ...documented(
        {
          ...PROVIDER,
          summary: 'Starts a device-code login (RFC 8628) for command-line clients',
          responses: {
            200: {
              description: "The provider's answer: device_code, user_code, verification_uri, interval, expires_in",
              schema: { type: 'object' },
            },
            400: OAUTH_ERROR,
          },
        },
        true,
      ),
      handler: async (req, reply) => oauthErrors(reply, () => provider(o, req.params).deviceCode()),
    });
    scope.route<{ Params: Params; Body: Record<string, string> | undefined; Querystring: Record<string, string> }>({
      method: ['GET', 'POST'],
      url: '/api/auth/providers/:kind/:slug/token',
      ...documented(
        {
          ...PROVIDER,
          summary: 'Finishes a device-code login, or signs in a client with client credentials: dashplane tokens',
          description:
            'A form (or query) with `grant_type` = `urn:ietf:params:oauth:grant-type:device_code` and `device_code`, or `client_credentials` with the client id and secret as HTTP Basic authentication.',
          body: {
            description: 'The OAuth form',
            types: ['application/x-www-form-urlencoded'],
            schema: { type: 'object', properties: { grant_type: { type: 'string' }, device_code: { type: 'string' } } },
          },
          responses: {
            200: TOKENS,
            400: OAUTH_ERROR,
            401: {
              ...OAUTH_ERROR,
              description: 'Client credentials sent with HTTP Basic authentication and refused (`invalid_client`, RFC 6749 §5.2)',
              headers: { 'WWW-Authenticate': 'Basic realm="dashplane"' },
            },
          },
        },
        true,
      ),
      handler: async (req, reply) => {
        const p = provider(o, req.params);
        const form = { ...(req.query ?? {}), ...(req.body ?? {}) };
        const basic = basicCredentials(req.headers.authorization);
        const client = basic ?? (form.client_id && form.client_secret ? { id: form.client_id, secret: form.client_secret } : undefined);
        const clientCredentials = form.grant_type === 'client_credentials';
        const attempt: SignInAttempt = {
          presented: [...presented(form), basic?.encoded, basic?.id, basic?.secret],
          ...(clientCredentials && client?.id ? { claimed: p.clientIdentity(client.id) } : {}),
        };
        // RFC 6749 §5.2: a client refused after authenticating with HTTP Basic is answered 401 with a Basic challenge
        return oauthErrors(
          reply,
          async () => sendTokens(reply, await externalSignIn(o, p, req.principal, attempt, () => exchange(p, form, client)), o.cookie),
          clientCredentials && !!basic,
        );
      },
    });
  });
}

/** The provider's side of a token request: a device code redeemed, or the caller's client credentials checked. */
async function exchange(
  p: ExternalProvider,
  form: Record<string, string>,
  client: { id: string; secret: string } | undefined,
): Promise<ExternalIdentity> {
  if (form.grant_type === DEVICE_GRANT) {
    if (!form.device_code) throw new OAuthError('invalid_request', 'device_code is required');
    return p.deviceToken(form.device_code);
  }
  if (form.grant_type === 'client_credentials') {
    if (!client?.id || !client.secret)
      throw new OAuthError('invalid_client', 'send the client id and secret with HTTP Basic authentication');
    return p.clientCredentials(client.id, client.secret);
  }
  throw new OAuthError('unsupported_grant_type', `grant_type must be ${DEVICE_GRANT} or client_credentials`);
}

/** HTTP Basic credentials: the client id and secret, form-encoded inside as RFC 6749 §2.3.1 says (a value that is not is taken as sent). */
function basicCredentials(header: string | undefined): { encoded: string; id: string; secret: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const [id = '', secret = ''] = Buffer.from(m[1], 'base64').toString('utf8').split(/:(.*)/s, 2);
  const decoded = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  return { encoded: m[1], id: decoded(id), secret: decoded(secret) };
}

function provider(o: ExternalAuthOptions, params: Params): ExternalProvider {
  const p = o.providers.get(`${params.kind}/${params.slug}`);
  if (!p) throw notFound(`no ${params.kind} provider "${params.slug}" is configured`);
  return p;
}

/**
 * OAuth protocol errors answered the OAuth way (`{error, error_description}`), others as usual;
 * `basicAuth`: the caller authenticated its client with HTTP Basic, so a refused client is a 401
 * with a Basic challenge (RFC 6749 §5.2).
 */
async function oauthErrors<T>(reply: FastifyReply, fn: () => Promise<T>, basicAuth = false): Promise<T | FastifyReply> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    const challenge = basicAuth && e.code === 'invalid_client';
    if (challenge) void reply.header('www-authenticate', 'Basic realm="dashplane"');
    return reply.code(statusOf(challenge ? 'Unauthorized' : e.reason)).send({ error: e.code, error_description: e.message });
  }
}

/** Where this server's paths start as the caller reaches it (scheme, host and api_prefix). */
function origin(req: FastifyRequest, prefix = ''): string {
  return `${req.protocol}://${req.headers.host ?? 'localhost'}${prefix}`;
}

interface SavedLogin {
  state: string;
  nonce?: string;
  verifier?: string;
  redirect: string;
  slug: string;
  exp: number;
}

function sign(key: Buffer, value: object): string {
  const body = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

function verify(key: Buffer, cookie: string | undefined): SavedLogin | undefined {
  if (!cookie) return undefined;
  const [body, mac] = cookie.split('.');
  if (!body || !mac) return undefined;
  const want = createHmac('sha256', key).update(body).digest();
  const got = Buffer.from(mac, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SavedLogin;
  } catch {
    return undefined;
  }
}
