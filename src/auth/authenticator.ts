import type { IncomingHttpHeaders } from 'node:http';
import { ANONYMOUS, type Principal, type Revocation } from '../access/authorizer.js';

/**
 * Turns request credentials into a Principal: undefined when the request carries none,
 * ApiError Unauthorized when they are invalid.
 */
export interface Authenticator {
  /** `origin`: the request's id and client address (kept on the principal for the audit log). */
  authenticate(headers: IncomingHttpHeaders, origin?: Principal['origin']): Promise<Principal | undefined>;
  /** For long requests (watch streams): which stored changes may end a principal's authentication, and whether it still holds. */
  readonly revocation?: Revocation;
}

/** With `security.enable_auth` off: everyone is the anonymous principal. */
export const anonymousAuthenticator: Authenticator = Object.freeze({
  authenticate: async () => ANONYMOUS,
});
