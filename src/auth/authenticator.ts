import type { IncomingHttpHeaders } from 'node:http';
import { ANONYMOUS, type Principal } from './authorizer.js';

/** Turns request credentials into a Principal, or throws Unauthorized (issue 3 adds tokens). */
export interface Authenticator {
  authenticate(headers: IncomingHttpHeaders): Promise<Principal>;
}

/** With `security.enable_auth` off: everyone is the anonymous principal. */
export const anonymousAuthenticator: Authenticator = Object.freeze({
  authenticate: async () => ANONYMOUS,
});
