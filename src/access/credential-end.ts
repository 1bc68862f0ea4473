import { unauthorized } from '../errors.js';
import { StreamEnd } from '../lib/stream-end.js';
import type { Principal } from './authorizer.js';

/** setTimeout's longest delay (about 24.8 days): a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How a stream opened by `p` ends when its credential expires. */
function expiredEnd(p: Principal): StreamEnd {
  const at = new Date(p.expiresAt ?? 0).toISOString();
  if (p.token) return new StreamEnd('Unauthorized', `the API token of this stream expired at ${at}`, 'use a token that is still valid');
  if (p.sessionId)
    return new StreamEnd(
      'Unauthorized',
      `the access token of this stream expired at ${at}`,
      'refresh it (POST /api/auth/refresh) or sign in again',
    );
  return new StreamEnd('Unauthorized', `the access token of this stream expired at ${at}`, 'get a new one from the identity provider');
}

/** How a stream opened by `p` ends when its credential is revoked (logout, revoked token, changed password, deleted user). */
export function revokedEnd(p: Principal): StreamEnd {
  if (p.token)
    return new StreamEnd(
      'Unauthorized',
      'the API token of this stream was revoked, or its owner deleted',
      'use a token that is still valid',
    );
  return new StreamEnd('Unauthorized', "this stream's session ended (logged out, revoked, or the password changed)", 'sign in again');
}

/**
 * Refuses (401) to open a long-lived response with a credential already past its expiry (checks
 * accept 30 s of clock skew): a stream that would end at once is a client's cue to reconnect
 * with the same token, while a 401 is its cue to refresh it first.
 */
export function refuseExpired(p: Principal, now: () => number = Date.now): void {
  if (p.expiresAt === undefined || p.expiresAt > now()) return;
  const end = expiredEnd(p);
  throw unauthorized(`${end.why}; ${end.fix}`);
}

/**
 * Aborts `ac` with `expiredEnd(p)` when `p`'s credential expires (never for a credential without
 * expiry); returns what cancels the timer. The stream ends at the credential's own `exp`, not
 * after the clock skew its checks allow.
 */
export function endAtExpiry(p: Principal, ac: AbortController, now: () => number = Date.now): () => void {
  if (p.expiresAt === undefined) return () => undefined;
  const at = p.expiresAt;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = at - now();
    if (left <= 0) return ac.abort(expiredEnd(p));
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
  };
  arm();
  return () => clearTimeout(timer);
}
