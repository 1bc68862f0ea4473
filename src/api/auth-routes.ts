import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  AUTH_COOKIES,
  COOKIE_PAYLOAD,
  COOKIE_REFRESH,
  COOKIE_SIGNATURE,
  parseCookies,
  serializeCookie,
  type CookieOptions,
} from '../auth/cookies.js';
import type { AuthService } from '../auth/login.js';
import type { RbacAuthorizer } from '../auth/rbac.js';
import type { IssuedTokens } from '../auth/tokens.js';
import { forbidden, notFound } from '../errors.js';
import { mask } from '../resources/masking.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import { assertName, nameProblem } from '../lib/names.js';
import type { ResourceService } from '../resources/service.js';
import { documented, type ResponseDoc } from './route-doc.js';
import { registerTokenRoutes, type TokenRouteOptions } from './token-routes.js';

export interface AuthRouteOptions {
  auth: AuthService;
  rbac: RbacAuthorizer;
  service: ResourceService;
  userKind: KindDescriptor;
  cookie: CookieOptions;
  enableNative: boolean;
  /** API token routes (service accounts, personal access tokens). */
  tokens: Omit<TokenRouteOptions, 'service'>;
}

/** Login, refresh, logout, whoami and permissions (docs/api.md §2, §12); only mounted with auth on. */
export function registerAuthRoutes(app: FastifyInstance, o: AuthRouteOptions): void {
  if (o.enableNative) {
    app.post(
      '/api/auth/providers/native/login',
      documented(
        {
          tag: 'Authentication',
          summary: 'Signs in with a user name and password: a token pair and the session cookies',
          body: { description: '`{"login", "password"}`', schema: 'LoginRequest', required: true },
          responses: {
            200: TOKENS,
            400: { description: 'Wrong login or password (one message for both)', schema: 'Error' },
            429: { description: 'Too many failed logins; `Retry-After` says when to try again', schema: 'Error' },
          },
        },
        true,
      ),
      async (req, reply) => sendTokens(reply, await o.auth.login(req.body, req.principal), o.cookie),
    );
  }

  app.post(
    '/api/auth/refresh',
    documented(
      {
        tag: 'Authentication',
        summary: 'A new token pair for a refresh token (from the body or the jwtRefreshToken cookie); the old one is spent',
        body: {
          description: '`{"refresh_token"}`, or no body with the cookie',
          schema: { type: 'object', properties: { refresh_token: { type: 'string' } } },
        },
        responses: {
          200: TOKENS,
          401: { description: 'Unknown, expired, revoked or already used refresh token (a reuse revokes the session)', schema: 'Error' },
        },
      },
      true,
    ),
    async (req, reply) => {
      const fromBody = (req.body as { refresh_token?: unknown } | undefined)?.refresh_token;
      const fromCookie = parseCookies(req.headers).get(COOKIE_REFRESH);
      const token = typeof fromBody === 'string' ? fromBody : fromCookie;
      try {
        return sendTokens(reply, await o.auth.refresh(token), o.cookie);
      } catch (e) {
        // A refresh cookie that failed is dead: clear the cookies, so the next refresh a browser
        // makes has none and gets the 400 that sends the Perses web UI to its sign-in page (it
        // answers every 401, including a refresh's own, with another refresh).
        if (fromCookie !== undefined && token === fromCookie) void reply.header('set-cookie', clearedCookies(o.cookie));
        throw e;
      }
    },
  );

  app.get(
    '/api/auth/logout',
    documented({
      tag: 'Authentication',
      summary: 'Ends the session on the server and clears the cookies',
      responses: {
        204: { description: 'Signed out' },
        302: { description: 'Signed out; a browser navigating here (Accept: text/html) goes to / (as with Perses)' },
      },
    }),
    async (req, reply) => {
      await o.auth.logout(req.principal);
      void reply.header('set-cookie', clearedCookies(o.cookie));
      // the Perses UI signs out by navigating to this URL, and Perses answers with a redirect home
      if (/\btext\/html\b/.test(String(req.headers.accept ?? ''))) return reply.redirect('/', 302);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/user/whoami',
    documented({
      tag: 'Authentication',
      summary: 'The signed-in user (password masked), or the service account an API token stands for',
      responses: { 200: { description: 'The User (or ServiceAccount)', schema: 'User' } },
    }),
    async (req) => {
      // the caller's own object (a User, or the service account an API token stands for), whatever
      // it may read: a token narrowed to dashboards still says whom it signs in as
      const s = req.principal.subject ?? { kind: o.userKind.kind, name: req.principal.name };
      const found = await o.tokens.store.get({ kind: s.kind, project: s.project ?? '', name: s.name });
      if (!found) throw notFound(`${s.kind} "${s.name}" no longer exists`);
      return mask(o.tokens.registry.byName(s.kind)!, found);
    },
  );

  registerTokenRoutes(app, { ...o.tokens, service: o.service });

  app.get<{ Params: { name: string } }>(
    '/api/v1/users/:name/permissions',
    documented({
      tag: 'Authentication',
      summary: "The caller's own permissions by project (`*` = global)",
      params: { name: "The caller's own user name" },
      responses: {
        200: {
          description: '`{"<project or *>": [{actions, scopes}]}`',
          schema: { type: 'object', additionalProperties: { type: 'array', items: { $ref: '#/components/schemas/Permission' } } },
        },
        403: { description: "Another user's permissions", schema: 'Error' },
      },
    }),
    async (req) => {
      // a user name from a delegating provider may hold ":" (Kubernetes' "kube:admin"); anything else a name may not is a 400
      if (nameProblem(req.params.name.replace(/:/g, '-')) !== undefined) assertName(req.params.name, 'name in the URL path');
      if (req.params.name !== req.principal.name) throw forbidden('you can only read your own permissions');
      return o.rbac.permissionsOf(req.principal);
    },
  );
}

/** Set-Cookie lines that remove the session cookies. */
function clearedCookies(cookie: AuthRouteOptions['cookie']): string[] {
  return AUTH_COOKIES.map((name) => serializeCookie(name, '', { ...cookie, httpOnly: name !== COOKIE_PAYLOAD, maxAge: 0 }));
}

/** The answer of every route that signs in. */
export const TOKENS: ResponseDoc = {
  description: 'Signed in: the Perses token body, and the cookies jwtPayload, jwtSignature (HttpOnly) and jwtRefreshToken (HttpOnly)',
  schema: 'Tokens',
  headers: { 'Set-Cookie': 'The three session cookies' },
};

/** The three cookies of a token pair: header.payload readable by scripts, the rest HttpOnly. */
export function tokenCookies(t: IssuedTokens, cookie: CookieOptions): string[] {
  const [header, payload, signature] = t.body.access_token.split('.');
  return [
    serializeCookie(COOKIE_PAYLOAD, `${header}.${payload}`, { ...cookie, httpOnly: false, maxAge: t.accessMaxAge }),
    serializeCookie(COOKIE_SIGNATURE, signature, { ...cookie, httpOnly: true, maxAge: t.accessMaxAge }),
    serializeCookie(COOKIE_REFRESH, t.body.refresh_token, { ...cookie, httpOnly: true, maxAge: t.refreshMaxAge }),
  ];
}

/** The exact Perses body, and the cookies. */
export function sendTokens(reply: FastifyReply, t: IssuedTokens, cookie: CookieOptions) {
  void reply.header('set-cookie', tokenCookies(t, cookie));
  return reply.code(200).send(t.body);
}
