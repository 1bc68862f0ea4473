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

/**
 * The most problems an error answer lists: a real object has a few, a hostile one may have a
 * hundred thousand, and listing them all made answers of 50 MB (COST-02). The message counts them all.
 */
export const MAX_DETAILS = 100;

/**
 * A validation failure: the message counts and summarises, `details` lists the problems with their
 * paths (every one, up to MAX_DETAILS). `moreThan`: the problems were not all counted, validation
 * stopped after that many.
 */
export function invalid(details: ErrorDetail[], what?: string, moreThan?: number): ApiError {
  const first = details[0];
  const count = moreThan === undefined ? `${details.length} problems` : `more than ${moreThan} problems`;
  const listed =
    details.length > MAX_DETAILS || moreThan !== undefined ? ` (the first ${Math.min(details.length, MAX_DETAILS)} are listed)` : '';
  const summary =
    details.length === 1 && moreThan === undefined
      ? `${first.path}: ${first.message}`
      : `${count}${listed}, first: ${first.path}: ${first.message}`;
  return new ApiError(
    'Invalid',
    what ? `invalid ${what}: ${summary}` : summary,
    details.length > MAX_DETAILS ? details.slice(0, MAX_DETAILS) : details,
  );
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
export const missingJwt = (help: string, where = 'Authorization') =>
  new ApiError('Unauthorized', 'missing or malformed jwt', [{ path: where, message: help }]);
export const internal = (message = 'internal server error') => new ApiError('Internal', message);
export const unavailable = (message: string) => new ApiError('Unavailable', message);

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
