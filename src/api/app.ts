import Fastify, { type FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import type { Principal } from '../auth/authorizer.js';
import type { ServerConfig } from '../config.js';
import { badRequest } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { parseDuration } from '../resources/duration.js';
import type { ResourceService } from '../resources/service.js';
import type { Store } from '../storage/store.js';
import { registerBodyParsers } from './body-parsers.js';
import { registerErrorHandler } from './error-handler.js';
import { registerResourceRoutes } from './resource-router.js';
import { registerSystemRoutes, type BuildInfo } from './system-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** Most query parameters one request may carry. */
const MAX_QUERY_PARAMS = 100;

export interface AppOptions {
  config: Readonly<ServerConfig>;
  registry: KindRegistry;
  plugins: PluginRegistry;
  service: ResourceService;
  store: Store;
  authenticator: Authenticator;
  build: BuildInfo;
  /** A pino logger configuration or false. */
  logger: boolean | Record<string, unknown>;
}

/** Builds the Fastify application: hygiene hooks, parsers, error handler, routes. */
export function buildApp(o: AppOptions): FastifyInstance {
  const http = o.config.http!;
  const app = Fastify({
    logger: o.logger as never,
    bodyLimit: http.body_limit,
    routerOptions: { caseSensitive: false, maxParamLength: 1000, ignoreTrailingSlash: true, querystringParser: parseQuery },
    // Against slowloris: headers must arrive within headers_timeout, the whole request within request_timeout.
    http: { headersTimeout: parseDuration(http.headers_timeout!) },
    requestTimeout: parseDuration(http.request_timeout!),
  });
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Cache-Control', 'no-store');
    if ((request.query as Record<symbol, unknown>)[TOO_MANY_PARAMS]) throw badRequest(`the URL has more than ${MAX_QUERY_PARAMS} query parameters`);
    request.principal = await o.authenticator.authenticate(request.headers);
  });
  registerErrorHandler(app);
  registerBodyParsers(app, http.max_json_depth!);
  registerSystemRoutes(app, o);
  registerResourceRoutes(app, o.registry, o.service, o.config);
  return app;
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
