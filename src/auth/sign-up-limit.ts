import type { Principal } from '../access/authorizer.js';
import { ApiError } from '../errors.js';
import { FailureLimiter } from './rate-limit.js';

/**
 * Self-service sign-ups allowed per client address in a window
 * (`security.authentication.sign_up_rate_limit`): every attempt counts, made or refused, and the
 * one past the limit answers 429 with Retry-After before anything is parsed further or hashed, so
 * a flood from one address neither fills the store with accounts nor queues password hashes ahead
 * of other clients' logins. In memory, per process (each replica counts its own).
 */
export class SignUpLimit {
  private readonly attempts: FailureLimiter;

  constructor(private readonly o: { perAddress: number; windowMs: number; onLimited?: () => void }) {
    this.attempts = new FailureLimiter(o.perAddress, o.windowMs);
  }

  /** Counts a sign-up by `p` (its client address); throws 429 when the address is past the limit. */
  admit(p: Principal): void {
    const address = p.origin?.address ?? '';
    const wait = this.attempts.retryAfter(address);
    if (wait > 0) {
      this.o.onLimited?.();
      throw new ApiError(
        'TooManyRequests',
        `too many sign-ups from your address (${this.o.perAddress} in ${Math.round(this.o.windowMs / 1000)} s, security.authentication.sign_up_rate_limit); retry in ${wait} s, or ask an administrator to create the user`,
        undefined,
        { 'Retry-After': String(wait) },
      );
    }
    this.attempts.fail(address);
  }
}
