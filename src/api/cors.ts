import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedCorsConfig } from '../kinds/generated/types.js';

/** The longest Origin matched against wildcard entries (a host name is at most 253 characters). */
const MAX_PATTERN_ORIGIN = 253 + '://'.length + ':65535'.length;

/**
 * Cross-origin resource sharing as Perses' `security.cors` configures it, with Perses' answers:
 * a preflight (any OPTIONS request) is answered 204 before authentication, with
 * Access-Control-Allow-* headers only for an allowed origin; an actual request from an allowed
 * origin gets Access-Control-Allow-Origin (and -Credentials, -Expose-Headers); a request from
 * any other origin gets no CORS header and is served as if it came from nowhere (the browser
 * keeps its answer from the page).
 */
export class CorsPolicy {
  private readonly any: boolean;
  private readonly patterns: RegExp[];

  constructor(
    private readonly c: ResolvedCorsConfig,
    /** The methods a path is served with (the route table). */
    private readonly methodsOf: (path: string) => string[],
  ) {
    this.any = c.allow_origins.includes('*');
    this.patterns = c.allow_origins.filter((o) => o !== '*').map(originPattern);
  }

  /** The Access-Control-Allow-Origin an origin is answered with, undefined when it is not allowed. */
  allowedOrigin(origin: string): string | undefined {
    if (this.any) return '*';
    if (origin.length > MAX_PATTERN_ORIGIN || !origin.includes('://')) return undefined;
    return this.patterns.some((p) => p.test(origin)) ? origin : undefined;
  }

  /**
   * Whether cookie-authenticated writes from `origin` are the operator's choice: credentials are
   * allowed and the origin is listed (a `*` entry never is; the configuration refuses it with
   * credentials).
   */
  trustsCredentialsFrom(origin: string): boolean {
    return this.c.allow_credentials && this.allowedOrigin(origin) !== undefined;
  }

  /**
   * Sets the CORS headers of a request's answer. True when the request is a preflight, which the
   * caller answers 204 at once (a browser's preflight carries no credentials: authentication
   * must not see it).
   */
  apply(request: FastifyRequest, reply: FastifyReply): boolean {
    void reply.header('Vary', 'Origin');
    const preflight = request.method === 'OPTIONS';
    const path = request.url.split('?')[0];
    const served = preflight ? routerList(this.methodsOf(path)) : undefined;
    if (served) void reply.header('Allow', served);
    const origin = request.headers.origin;
    const allowed = origin === undefined ? undefined : this.allowedOrigin(origin);
    if (allowed === undefined) return preflight;
    void reply.header('Access-Control-Allow-Origin', allowed);
    if (this.c.allow_credentials) void reply.header('Access-Control-Allow-Credentials', 'true');
    if (!preflight) {
      if (this.c.expose_headers.length > 0) void reply.header('Access-Control-Expose-Headers', this.c.expose_headers.join(','));
      return false;
    }
    void reply.header('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    void reply.header('Access-Control-Allow-Methods', this.methods(served));
    const asked = request.headers['access-control-request-headers'];
    const headers = this.c.allow_headers.length > 0 ? this.c.allow_headers.join(',') : asked;
    if (headers) void reply.header('Access-Control-Allow-Headers', headers);
    if (this.c.max_age !== 0) void reply.header('Access-Control-Max-Age', String(Math.max(0, this.c.max_age)));
    return true;
  }

  /** allow_methods as configured, else the path's own methods, else (a path not served) Perses' default list. */
  private methods(served: string | undefined): string {
    if (this.c.allow_methods.length > 0) return this.c.allow_methods.join(',');
    return served ?? 'GET,HEAD,PUT,PATCH,POST,DELETE';
  }
}

/** The order Perses' router (echo) lists a path's methods in, after OPTIONS. */
const ROUTER_ORDER = ['CONNECT', 'DELETE', 'GET', 'PATCH', 'POST', 'PUT', 'TRACE'];

/**
 * A path's methods as Perses' router lists them ("OPTIONS, GET, POST"), undefined for a path not
 * served. HEAD is left out: it comes with every GET route here, and is a method browsers send
 * without asking.
 */
function routerList(methods: string[]): string | undefined {
  const listed = ROUTER_ORDER.filter((m) => methods.includes(m));
  return listed.length > 0 ? ['OPTIONS', ...listed].join(', ') : undefined;
}

/** An allow_origins entry as an anchored pattern: `*` any characters, `?` one, the rest literal. */
function originPattern(entry: string): RegExp {
  const body = entry
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
