import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Authenticator } from '../auth/authenticator.js';
import { ANONYMOUS, type Principal } from '../access/authorizer.js';
import { AUTH_COOKIES, parseCookies } from '../auth/cookies.js';
import type { ResolvedConfig } from '../config.js';
import { ApiError, badRequest, forbidden, missingJwt, notFound, unauthorized } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { durationMs } from '../lib/duration.js';
import type { ResourceService } from '../resources/service.js';
import { SCHEMAS_DIR } from '../paths.js';
import type { Store } from '../storage/store.js';
import { registerAuditRoutes, type AuditRouteOptions } from './audit-routes.js';
import { registerAuthRoutes, type AuthRouteOptions } from './auth-routes.js';
import { registerBackupRoutes } from './backup-routes.js';
import { registerBodyParsers } from './body-parsers.js';
import { bodyLimitsOf } from './body-limits.js';
import { registerExternalAuthRoutes, type ExternalAuthOptions } from './external-auth-routes.js';
import type { Watcher } from '../controllers/watcher.js';
import { CorsPolicy } from './cors.js';
import { registerErrorHandler } from './error-handler.js';
import { LongStreams } from './long-streams.js';
import { registerMetrics, type Metrics } from './metrics.js';
import { registerProfileRoutes } from './profile-routes.js';
import { registerProvisioningRoutes, type ProvisioningRouteOptions } from './provisioning-routes.js';
import type { MountedRoute } from './openapi/document.js';
import { registerOpenApiRoutes } from './openapi-routes.js';
import { registerMigrateRoutes } from './migrate-routes.js';
import { Offload } from './offload.js';
import { registerProxyRoutes, type ProxyRouteOptions } from './proxy-routes.js';
import { VERSION_HEADER } from './headers.js';
import { LazyChildLogger, type RequestLines, requestLinesOf } from './log-destination.js';
import { registerSchemaRoutes } from './schema-routes.js';
import { registerResourceRoutes } from './resource-router.js';
import { routeMethods } from './route-methods.js';
import { registerStaticRoutes, type StaticRouteOptions } from './static-routes.js';
import type { BuildInfo } from '../build-info.js';
import { registerSystemRoutes } from './system-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyInstance {
    /** Every route as mounted (method, URL template, config), in mounting order: the OpenAPI document's source. */
    routeTable: readonly MountedRoute[];
  }
}

/** Most query parameters one request may carry. */
const MAX_QUERY_PARAMS = 100;

export interface AppOptions {
  config: Readonly<ResolvedConfig>;
  registry: KindRegistry;
  plugins: PluginRegistry;
  service: ResourceService;
  store: Store;
  authenticator: Authenticator;
  proxy: ProxyRouteOptions;
  watcher: Watcher;
  metrics: Metrics;
  /** The audit log route. */
  audit: Omit<AuditRouteOptions, 'streams'>;
  /** The provisioning status route. */
  provisioning: Pick<ProvisioningRouteOptions, 'status'>;
  /** External identity providers (auth on and providers configured). */
  external?: ExternalAuthOptions;
  /** Login, refresh, logout, whoami, permissions: present when auth is on. */
  auth?: AuthRouteOptions;
  build: BuildInfo;
  /** The built web UI, served at / (absent: no UI routes). */
  ui?: StaticRouteOptions;
  /** A pino logger, a pino configuration, or false. */
  logger: boolean | Record<string, unknown> | Logger;
}

/** The status logged for a request whose client left before any answer (nginx's "client closed request"). */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * What a finished request leaves behind: its one log line (who, what (the route template), its
 * status and how long it took) and its observation in the request histogram. With the server's
 * logger the line goes straight to the batched writer in a fixed shape (RequestLines: a request's
 * child logger and pino's serialiser were most of the line's cost); with another logger (tests, a
 * pino configuration) through `request.log`.
 */
function recordRequest(
  lines: RequestLines | undefined,
  metrics: Metrics,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  abandoned?: true,
): void {
  const route = request.routeOptions.url ?? 'unmatched';
  const line = {
    user: request.principal?.name,
    method: request.method,
    route,
    status,
    ms: Math.round(reply.elapsedTime * 10) / 10,
    ...(abandoned ? { abandoned } : {}),
  };
  if (lines) lines.write({ reqId: request.id, ...line });
  else request.log.info(line, 'request');
  metrics.observeRequest(route, request.method, status, reply.elapsedTime / 1000);
}

/** Set on a request whose path is outside api_prefix: answered 404 before anything else. */
const OUTSIDE_PREFIX = Symbol('outsidePrefix');
/** Kept at the root under api_prefix too, for scrapers configured with the usual path. */
const ROOT_PATHS = /^\/metrics(?:[/?]|$)/;

/**
 * api_prefix (Perses' key): every route is served under the prefix, which is taken off before
 * routing; a path outside it is marked to be answered 404 (/metrics aside).
 */
function prefixRewrite(prefix: string | undefined): ((req: { url?: string | undefined }) => string) | undefined {
  if (!prefix) return undefined;
  return (req) => {
    const url = req.url ?? '/';
    if (url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`))
      return url.slice(prefix.length).replace(/^(?!\/)/, '/');
    if (!ROOT_PATHS.test(url)) (req as Record<symbol, unknown>)[OUTSIDE_PREFIX] = true;
    return url;
  };
}

/** Builds the Fastify application: hygiene hooks, parsers, error handler, routes. */
export function buildApp(o: AppOptions): FastifyInstance {
  const http = o.config.http;
  const rewriteUrl = prefixRewrite(o.config.api_prefix);
  const lines = requestLinesOf(o.logger);
  const app = Fastify({
    ...(rewriteUrl ? { rewriteUrl } : {}),
    ...(isLogger(o.logger) ? { loggerInstance: o.logger as unknown as FastifyBaseLogger } : { logger: o.logger as never }),
    // a request's own logger is made only when something logs through it
    ...(lines
      ? {
          childLoggerFactory: (logger, bindings, options) =>
            new LazyChildLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger,
        }
      : {}),
    bodyLimit: http.body_limit,
    routerOptions: { caseSensitive: false, maxParamLength: 1000, ignoreTrailingSlash: true, querystringParser: parseQuery },
    // Against slowloris: headers must arrive within headers_timeout, the whole request within request_timeout.
    // Node checks those timeouts every connectionsCheckingInterval (30 s by default): check often.
    http: { headersTimeout: durationMs(http.headers_timeout), connectionsCheckingInterval: 1000 } as never,
    requestTimeout: durationMs(http.request_timeout),
    // One log line per request (written in onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: requestId,
  });
  app.decorateRequest('principal', null as unknown as Principal);
  // The route table, for the OpenAPI document: every route, in every plugin scope, as mounted.
  const routes: MountedRoute[] = [];
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (r) => {
    routes.push({ method: r.method, url: r.url, config: (r.config ?? {}) as MountedRoute['config'] });
  });
  // Shutting down: answers close their connections, so in-flight keep-alive clients do not hold
  // the server open until the grace period ends.
  let closing = false;
  // The per-request hooks take a callback: an async hook costs a promise and a turn of the
  // microtask queue on every request (P1).
  app.addHook('onResponse', (request, reply, done) => {
    recordRequest(lines, o.metrics, request, reply, reply.statusCode);
    if (closing) app.server.closeIdleConnections();
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('Connection', 'close');
    done(null, payload);
  });
  const cors = o.config.security.cors.enable ? new CorsPolicy(o.config.security.cors, routeMethods(routes)) : undefined;
  app.addHook('onRequest', async (request, reply) => {
    if ((request.raw as unknown as Record<symbol, unknown>)[OUTSIDE_PREFIX]) {
      throw notFound(
        `no route for ${request.method} ${request.url.split('?')[0]}: this server answers under ${o.config.api_prefix}/ (api_prefix)`,
      );
    }
    // A request its client gave up on (a watch closed by the browser, a query it cancelled) ends
    // without 'finish', so Fastify runs no onResponse hook: its log line and metric are written here.
    reply.raw.on('close', () => {
      if (reply.raw.writableFinished || reply.raw.errored) return; // answered (or failed): onResponse has it
      recordRequest(lines, o.metrics, request, reply, reply.raw.headersSent ? reply.statusCode : CLIENT_CLOSED_REQUEST, true);
    });
    void reply.header('X-Request-Id', request.id);
    void reply.header(VERSION_HEADER, o.build.version);
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Cache-Control', 'no-store');
    // a preflight is answered before authentication (browsers send it without credentials)
    if (cors?.apply(request, reply)) return reply.code(204).send();
    if ((request.query as Record<symbol, unknown>)[TOO_MANY_PARAMS])
      throw badRequest(`the URL has more than ${MAX_QUERY_PARAMS} query parameters`);
    request.principal = await authenticate(o.authenticator, request);
    refuseCrossSite(request, cors);
  });
  registerErrorHandler(app);
  registerMetrics(app, o.metrics);
  // work that grows with a body (reading large YAML, migrating) runs in a worker thread
  const offload = new Offload(durationMs(http.worker_timeout));
  app.addHook('onClose', () => offload.close());
  registerBodyParsers(app, bodyLimitsOf(http), offload);
  registerSystemRoutes(app, o);
  registerMigrateRoutes(app, { ...o, offload });
  const watch = o.config.watch;
  // a stream whose client vanished is noticed at its next BOOKMARK at the latest
  const bookmarkMs = durationMs(watch.bookmark_interval);
  const streams = new LongStreams({
    maxPerUser: watch.max_streams_per_user,
    graceMs: bookmarkMs,
    retryAfterS: Math.max(1, Math.ceil(bookmarkMs / 1000)),
  });
  registerResourceRoutes(app, o.registry, o.service, o.store, o.config, o.watcher, streams);
  registerAuditRoutes(app, { ...o.audit, streams });
  registerProfileRoutes(app, { registry: o.registry, service: o.service });
  registerSchemaRoutes(app, { registry: o.registry, plugins: o.plugins, schemasDir: SCHEMAS_DIR });
  // Connections on which nothing has arrived yet (clients open spare ones: browsers preconnect,
  // undici opens one per queued request): Node does not count them idle (their headers timeout
  // runs from the connect), so closeIdleConnections leaves them, and each held a close for the
  // whole shutdown grace (10 s). One that has received no byte carries no request: closed at once.
  // Tracked per connection and forgotten lazily (a listener on every socket, or on every request,
  // cost P1 measurably): a socket that has read a byte or closed can never be one of them.
  const spare = new Set<Socket>();
  const forgetUsed = () => {
    for (const socket of spare) if (socket.destroyed || socket.bytesRead > 0) spare.delete(socket);
  };
  app.server.on('connection', (socket: Socket) => {
    if (spare.size >= 256) forgetUsed();
    spare.add(socket);
  });
  app.addHook('preClose', async () => {
    closing = true;
    streams.closeAll();
    forgetUsed();
    for (const socket of spare) socket.destroy();
  });
  if (o.auth) registerAuthRoutes(app, o.auth);
  if (o.external) registerExternalAuthRoutes(app, o.external);
  registerProxyRoutes(app, o.proxy);
  registerBackupRoutes(app, { registry: o.registry, service: o.service, store: o.store, version: o.build.version });
  registerProvisioningRoutes(app, { service: o.service, status: () => o.provisioning.status() });
  registerOpenApiRoutes(app, {
    routes,
    registry: o.registry,
    build: o.build,
    schemasDir: SCHEMAS_DIR,
    authEnabled: o.config.security?.enable_auth === true,
  });
  if (o.ui) registerStaticRoutes(app, o.ui);
  return app;
}

/**
 * Authentication runs first, before any lookup, so an anonymous caller learns nothing. Routes
 * marked `anonymous` (login, health, sign-up, ...) also serve callers without valid credentials.
 */
async function authenticate(authenticator: Authenticator, request: FastifyRequest): Promise<Principal> {
  const config = request.routeOptions.config as { anonymous?: boolean | ((url: string) => boolean); unauthenticated?: string } | undefined;
  const flag = config?.anonymous;
  const anonymousRoute = typeof flag === 'function' ? flag(request.url) : flag === true;
  const origin = { requestId: request.id, address: request.ip };
  try {
    const principal = await authenticator.authenticate(request.headers, origin);
    if (principal) return principal.origin ? principal : { ...principal, origin };
  } catch (e) {
    if (!anonymousRoute) throw e;
    return { ...ANONYMOUS, origin };
  }
  if (anonymousRoute) return { ...ANONYMOUS, origin };
  if (config?.unauthenticated) throw unauthorized(config.unauthenticated);
  throw missingJwt('sign in first, and send "Authorization: Bearer <access token>" (POST /api/auth/providers/native/login gives one)');
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const OWN_PAGES =
  "requests authenticated by cookies must come from this server's own pages, or from an origin security.cors trusts with credentials";
const BODY_TYPES = /^(?:application\/(?:[\w.-]+\+)?json|application\/(?:x-)?yaml|text\/(?:x-)?yaml)\s*(?:;.*)?$/i;

/**
 * A browser sends our cookies with cross-site requests too: a state-changing request carrying
 * them must come from our own origin (or one the operator trusts with credentials through
 * security.cors) and send JSON or YAML (no form or text/plain posts). Bearer-token clients are
 * not affected.
 */
function refuseCrossSite(request: FastifyRequest, cors: CorsPolicy | undefined): void {
  if (!UNSAFE_METHODS.has(request.method) || request.headers.authorization !== undefined) return;
  const cookies = parseCookies(request.headers);
  if (!AUTH_COOKIES.some((c) => cookies.has(c))) return;
  const origin = request.headers.origin;
  const trusted = origin !== undefined && cors?.trustsCredentialsFrom(origin) === true;
  if (request.headers['sec-fetch-site'] === 'cross-site' && !trusted) throw forbidden(`cross-site request refused: ${OWN_PAGES}`);
  if (origin !== undefined && !trusted && originHost(origin) !== request.headers.host)
    throw forbidden(`request from origin ${origin} refused: ${OWN_PAGES}`);
  const type = request.headers['content-type'];
  const proxied = (request.routeOptions.config as { proxy?: boolean } | undefined)?.proxy === true; // datasource APIs take forms
  if (type !== undefined && !proxied && !BODY_TYPES.test(type)) {
    throw new ApiError('UnsupportedMediaType', 'requests authenticated by cookies must send application/json or application/yaml');
  }
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** The caller's X-Request-Id when it is a plain token (it goes into logs), else a new UUID. */
function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** Marks a query that had more than MAX_QUERY_PARAMS parameters (the parser must not throw). */
const TOO_MANY_PARAMS = Symbol('tooManyParams');

/** URLSearchParams semantics, at most MAX_QUERY_PARAMS parameters, repeated keys as arrays. */
function parseQuery(text: string): Record<string, string | string[]> {
  const out: Record<string | symbol, string | string[] | boolean> = Object.create(null);
  if (text === '') return out as Record<string, string | string[]>;
  let count = 0;
  for (const [k, v] of new URLSearchParams(text)) {
    if (++count > MAX_QUERY_PARAMS) {
      out[TOO_MANY_PARAMS] = true;
      break;
    }
    const prev = out[k] as string | string[] | undefined;
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out as Record<string, string | string[]>;
}

function isLogger(v: AppOptions['logger']): v is Logger {
  return typeof v === 'object' && typeof (v as { child?: unknown }).child === 'function';
}
