/**
 * The one error type of dashplane. Every layer throws `ApiError`; only `api/error-handler.ts`
 * knows which HTTP status a reason maps to.
 */

/** Stable machine words a client can switch on (also the `reason` field of error bodies). */
export type Reason =
  | 'BadRequest'
  | 'Invalid'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'AlreadyExists'
  | 'Conflict'
  | 'PreconditionFailed'
  | 'Gone'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'HeaderFieldsTooLarge'
  | 'Internal'
  | 'BadGateway'
  | 'GatewayTimeout'
  | 'Unavailable'
  | 'InsufficientStorage'
  | 'LoopDetected';

/** One problem at one JSON path (dotted, with [i] for array items). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error a user can act on: a reason, a message naming the field and the fix, optional details. */
export class ApiError extends Error {
  readonly reason: Reason;
  readonly details?: ErrorDetail[];
  /** Extra response headers (e.g. Retry-After). */
  readonly headers?: Record<string, string>;

  constructor(reason: Reason, message: string, details?: ErrorDetail[], headers?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.reason = reason;
    if (details && details.length > 0) this.details = details;
    if (headers) this.headers = headers;
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new ApiError('BadRequest', message, details);

/** A validation failure: the message summarises, `details` lists every problem with its path. */
export function invalid(details: ErrorDetail[], what?: string): ApiError {
  const first = details[0];
  const summary = details.length === 1 ? `${first.path}: ${first.message}` : `${details.length} problems, first: ${first.path}: ${first.message}`;
  return new ApiError('Invalid', what ? `invalid ${what}: ${summary}` : summary, details);
}

export const notFound = (message: string) => new ApiError('NotFound', message);
export const alreadyExists = (message: string) => new ApiError('AlreadyExists', message);
export const conflict = (message: string) => new ApiError('Conflict', message);
export const preconditionFailed = (message: string) => new ApiError('PreconditionFailed', message);
export const forbidden = (message: string) => new ApiError('Forbidden', message);
export const unauthorized = (message: string) => new ApiError('Unauthorized', message);

/**
 * A request without usable credentials: the message is exactly Perses' (its Go client and tests
 * match it), the help a user acts on is in `details` at `where` (the header or cookies to send).
 */
export const missingJwt = (help: string, where = 'Authorization') => new ApiError('Unauthorized', 'missing or malformed jwt', [{ path: where, message: help }]);
export const internal = (message = 'internal server error') => new ApiError('Internal', message);
export const unavailable = (message: string) => new ApiError('Unavailable', message);

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
