import type { FastifyInstance, FastifyReply } from 'fastify';
import { AUTH_COOKIES, COOKIE_PAYLOAD, COOKIE_REFRESH, COOKIE_SIGNATURE, parseCookies, serializeCookie, type CookieOptions } from '../auth/cookies.js';
import type { AuthService } from '../auth/login.js';
import type { RbacAuthorizer } from '../auth/rbac.js';
import type { IssuedTokens } from '../auth/tokens.js';
import { forbidden, notFound } from '../errors.js';
import { mask } from '../resources/masking.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import { assertName } from '../resources/names.js';
import type { ResourceService } from '../resources/service.js';
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

/** Login, refresh, logout, whoami and permissions (API.md §2, §12); only mounted with auth on. */
export function registerAuthRoutes(app: FastifyInstance, o: AuthRouteOptions): void {
  const anonymous = { config: { anonymous: true } };

  if (o.enableNative) {
    app.post('/api/auth/providers/native/login', anonymous, async (req, reply) => sendTokens(reply, await o.auth.login(req.body, req.principal), o.cookie));
  }

  app.post('/api/auth/refresh', anonymous, async (req, reply) => {
    const fromBody = (req.body as { refresh_token?: unknown } | undefined)?.refresh_token;
    const token = typeof fromBody === 'string' ? fromBody : parseCookies(req.headers).get(COOKIE_REFRESH);
    return sendTokens(reply, await o.auth.refresh(token), o.cookie);
  });

  app.get('/api/auth/logout', async (req, reply) => {
    await o.auth.logout(req.principal);
    void reply.header('set-cookie', AUTH_COOKIES.map((name) => serializeCookie(name, '', { ...o.cookie, httpOnly: name !== COOKIE_PAYLOAD, maxAge: 0 })));
    return reply.code(204).send();
  });

  app.get('/api/v1/user/whoami', async (req) => {
    const s = req.principal.subject;
    if (!s) return o.service.get(req.principal, o.userKind, '', req.principal.name);
    // a service account (API token): its own object, whatever it may read
    const found = await o.tokens.store.get({ kind: s.kind, project: s.project ?? '', name: s.name });
    if (!found) throw notFound(`${s.kind} "${s.name}" no longer exists`);
    return mask(o.tokens.registry.byName(s.kind)!, found);
  });

  registerTokenRoutes(app, { ...o.tokens, service: o.service });

  app.get<{ Params: { name: string } }>('/api/v1/users/:name/permissions', async (req) => {
    assertName(req.params.name, 'name in the URL path');
    if (req.params.name !== req.principal.name) throw forbidden('you can only read your own permissions');
    return o.rbac.permissionsOf(req.principal);
  });
}

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
