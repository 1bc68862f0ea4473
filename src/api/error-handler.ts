import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, MAX_DETAILS, type ErrorDetail, type Reason } from '../errors.js';
import { clip, clipPath } from '../lib/clip.js';
import { routeMethods } from './route-methods.js';

/** The only table from error reasons to HTTP status codes. */
const STATUS: Record<Reason, number> = {
  BadRequest: 400,
  Invalid: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  AlreadyExists: 409,
  Conflict: 409,
  PreconditionFailed: 412,
  Gone: 410,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  HeaderFieldsTooLarge: 431,
  Internal: 500,
  BadGateway: 502,
  Unavailable: 503,
  GatewayTimeout: 504,
  InsufficientStorage: 507,
  LoopDetected: 508,
};

/** Fastify's own errors that a client caused, as reasons. */
const FASTIFY_CODES: Record<string, Reason> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PayloadTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UnsupportedMediaType',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BadRequest',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BadRequest',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BadRequest',
};

/** Every reason an error body may carry, in the order of the status table. */
export const REASONS: readonly Reason[] = Object.freeze(Object.keys(STATUS) as Reason[]);

/** The HTTP status of a reason. */
export function statusOf(reason: Reason): number {
  return STATUS[reason];
}

/** Converts anything thrown into `{message, reason, details?}` with the mapped status. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError | Error, request, reply) => {
    const api = toApiError(error);
    const status = STATUS[api.reason];
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.debug({ reason: api.reason, message: api.message }, 'request rejected');
    if (api.headers) void reply.headers(api.headers);
    void reply
      .code(status)
      .send({ message: clip(api.message), reason: api.reason, ...(api.details ? { details: shown(api.details) } : {}) });
  });
  const methodsOf = routeMethods(app.routeTable ?? []);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // a path served for other methods is a 405 naming them (as Perses' router and Kubernetes answer)
    const allowed = methodsOf(path);
    if (allowed.length > 0) {
      void reply.code(405).header('Allow', allowed.join(', '));
      return reply.send({ message: `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`, reason: 'MethodNotAllowed' });
    }
    void reply.code(404).send({ message: `no route for ${request.method} ${path}`, reason: 'NotFound' });
  });
}

/** The details an answer lists: at most MAX_DETAILS, each clipped (`invalid` counts them all in its message). */
function shown(details: readonly ErrorDetail[]): ErrorDetail[] {
  return details.slice(0, MAX_DETAILS).map((d) => ({ path: clipPath(d.path), message: clip(d.message) }));
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as FastifyError;
  const known = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (known === 'PayloadTooLarge') return new ApiError(known, 'the request body is larger than the configured limit (http.body_limit)');
  if (known === 'UnsupportedMediaType') return new ApiError(known, 'send the body as application/json or application/yaml');
  if (known) return new ApiError(known, e.message);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('BadRequest', e.message);
  return new ApiError('Internal', 'internal server error; see the server log');
}
