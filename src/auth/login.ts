import { ApiError, badRequest, unauthorized } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import { credentialStamp } from '../resources/credentials.js';
import { getPath } from '../lib/object-path.js';
import type { Envelope, ObjectStore } from '../storage/store.js';
import type { PasswordHasher } from '../access/passwords.js';
import { FailureLimiter } from './rate-limit.js';
import { CREDENTIALS_CHANGED, holdsCredential, type Session, type SessionStore } from './sessions.js';
import type { IssuedTokens, TokenService } from './tokens.js';
import type { UpstreamRefresher } from './upstream-refresh.js';
import { auditDraft, type AuditFields } from '../audit/drafts.js';
import type { AuditDraft } from '../storage/audit-types.js';
import type { Principal } from '../access/authorizer.js';

export interface LoginLimits {
  /** Failures allowed per (login, address) in a window. */
  perLogin: number;
  /** Failures allowed per address in a window. */
  perAddress: number;
  windowMs: number;
}

/** One message for unknown user and wrong password (docs/api.md §12). */
const WRONG = 'wrong login or password';

/**
 * Native login, refresh with rotation and reuse detection, logout. Failed logins are limited per
 * (login, address) and per address, so one client cannot guess at full speed, while the right
 * password from another address still works (no lockout of a user by a stranger).
 */
export class AuthService {
  private readonly perLogin: FailureLimiter;
  private readonly perAddress: FailureLimiter;
  /** Refreshes in flight by `sid:refreshId`: a concurrent duplicate shares the first one's answer. */
  private readonly inFlight = new Map<string, Promise<IssuedTokens>>();

  constructor(
    private readonly o: {
      store: ObjectStore;
      userKind: KindDescriptor;
      passwords: PasswordHasher;
      sessions: SessionStore;
      tokens: TokenService;
      refreshTtlMs: number;
      limits: LoginLimits;
      /** Records logins, failed logins and logouts (the audit log). */
      audit?: (entries: AuditDraft[]) => Promise<void>;
      /** Signs external users in again at their provider at each refresh (their groups are read again). */
      upstream?: UpstreamRefresher;
      /** Counted for metrics. */
      onFailure?: () => void;
      onRateLimited?: () => void;
    },
  ) {
    this.perLogin = new FailureLimiter(o.limits.perLogin, o.limits.windowMs);
    this.perAddress = new FailureLimiter(o.limits.perAddress, o.limits.windowMs);
  }

  /** `caller`: the anonymous principal of the request (its origin is audited). */
  async login(body: unknown, caller: Principal): Promise<IssuedTokens> {
    const address = caller.origin?.address ?? '';
    const { login, password } = (body ?? {}) as { login?: unknown; password?: unknown };
    if (typeof login !== 'string' || login === '' || typeof password !== 'string' || password === '') {
      throw badRequest('send {"login": "<user name>", "password": "<password>"}', [
        ...(typeof login !== 'string' || login === '' ? [{ path: 'login', message: 'is required' }] : []),
        ...(typeof password !== 'string' || password === '' ? [{ path: 'password', message: 'is required' }] : []),
      ]);
    }
    const loginKey = `${login}\u0000${address}`;
    const wait = Math.max(this.perLogin.retryAfter(loginKey), this.perAddress.retryAfter(address));
    if (wait > 0) this.o.onRateLimited?.();
    if (wait > 0)
      await this.record(caller, { action: 'login-failed', user: '-', provider: 'native', reason: 'too many failed logins (429)' });
    if (wait > 0)
      throw new ApiError('TooManyRequests', `too many failed logins; retry in ${wait} s`, undefined, { 'Retry-After': String(wait) });
    // Counted before the password is checked, so a burst of parallel guesses is limited too.
    this.perLogin.fail(loginKey);
    this.perAddress.fail(address);
    const user = login.length <= 75 ? await this.o.store.get({ kind: this.o.userKind.kind, project: '', name: login }) : undefined;
    const stored = user ? getPath(user, 'spec.nativeProvider.password') : undefined;
    let ok: boolean;
    try {
      ok = await this.o.passwords.verify(typeof stored === 'string' ? stored : undefined, password);
    } catch (e) {
      this.perLogin.undo(loginKey);
      this.perAddress.undo(address);
      throw e;
    }
    if (!ok || !user) {
      this.o.onFailure?.();
      // the attempted login only when it names a user: a password typed in the login field is never kept
      await this.record(caller, {
        action: 'login-failed',
        user: user ? login : '-',
        provider: 'native',
        reason: user ? 'wrong password' : 'no such user',
      });
      throw badRequest(WRONG);
    }
    this.perLogin.reset(loginKey);
    this.perAddress.undo(address);
    // bound to the password just checked: if it changes while this login runs, the session is dead
    const tokens = await this.openSession(user, 'native', '');
    await this.record(caller, { action: 'login', user: login, provider: 'native' });
    return tokens;
  }

  /** An audit entry for `caller` (logins, failures, logouts). */
  async record(caller: Principal, fields: AuditFields): Promise<void> {
    await this.o.audit?.([auditDraft(caller, fields)]);
  }

  /**
   * Exchanges a refresh token for a new pair. A token that is no longer the session's current one
   * was stolen or replayed: the whole session is revoked. Two concurrent uses of the same token
   * (two tabs) get the same new pair.
   */
  refresh(token: string | undefined): Promise<IssuedTokens> {
    // a 400 as in Perses: the Perses web UI sends the user to sign in on a 400 from refresh (on a 401 it refreshes again)
    if (!token)
      return Promise.reject(badRequest('no refresh token: send {"refresh_token": ...} or the jwtRefreshToken cookie; sign in again'));
    const claims = this.o.tokens.verifyRefresh(token);
    const flight = `${claims.sid}:${claims.jti}`;
    let result = this.inFlight.get(flight);
    if (!result) {
      result = this.rotate(claims.sid, claims.sub, claims.jti).finally(() => this.inFlight.delete(flight));
      this.inFlight.set(flight, result);
    }
    return result;
  }

  private async rotate(sid: string, user: string, presented: string): Promise<IssuedTokens> {
    const session = await this.o.sessions.get(sid);
    if (!session || session.spec.user !== user) throw unauthorized('this session has ended (logged out, revoked or expired); log in again');
    if (session.spec.refreshId !== presented) {
      await this.o.sessions.revoke(sid);
      throw unauthorized('this refresh token was already used; the session is revoked for safety, log in again');
    }
    const account = await this.o.store.get({ kind: this.o.userKind.kind, project: '', name: user });
    if (!account || account.metadata.createdAt !== session.spec.userCreatedAt) {
      await this.o.sessions.revoke(sid);
      throw unauthorized('this user no longer exists');
    }
    // A password change landing after this check leaves the rotated session on the old stamp:
    // its new tokens are refused at their first use.
    const stamp = credentialStamp(this.o.userKind, account);
    if (!holdsCredential(session, stamp)) {
      await this.o.sessions.revoke(sid);
      throw unauthorized(CREDENTIALS_CHANGED);
    }
    const next = this.o.tokens.newRefreshId();
    const rotated = await this.o.sessions.rotate(session, next, this.o.refreshTtlMs, stamp);
    if (!rotated) throw unauthorized('this refresh token was just used by another request; use the tokens that request received');
    // after the rotation, so only the request that won it uses the provider's (single-use) refresh token
    if (rotated.spec.upstream && this.o.upstream) await this.refreshUpstream(rotated);
    return this.issue(session, next);
  }

  /** The provider signs the user in again (groups read again); a refusal ends the session. */
  private async refreshUpstream(s: Session): Promise<void> {
    let upstream: string;
    try {
      upstream = await this.o.upstream!.refresh(s);
    } catch (e) {
      if (e instanceof ApiError && (e.reason === 'Unauthorized' || e.reason === 'Forbidden')) await this.o.sessions.revoke(s.metadata.name);
      throw e;
    }
    if (upstream !== s.spec.upstream) await this.o.sessions.setUpstream(s, upstream);
  }

  /** A session for `user` as read when it signed in (natively, or vouched for by an external provider). */
  async openSession(user: Envelope, provider: string, slug: string, upstreamRefreshToken?: string): Promise<IssuedTokens> {
    const refreshId = this.o.tokens.newRefreshId();
    const upstream =
      upstreamRefreshToken && this.o.upstream ? { upstream: this.o.upstream.seal(user.metadata.name, upstreamRefreshToken) } : {};
    const spec = {
      user: user.metadata.name,
      userCreatedAt: user.metadata.createdAt,
      credential: credentialStamp(this.o.userKind, user),
      provider,
      slug,
      refreshId,
      ...upstream,
    };
    const session = await this.o.sessions.open(spec, this.o.refreshTtlMs);
    return this.issue(session, refreshId);
  }

  async logout(caller: Principal): Promise<void> {
    if (caller.sessionId) await this.o.sessions.revoke(caller.sessionId);
    await this.record(caller, { action: 'logout' });
  }

  private issue(session: Session, refreshId: string): IssuedTokens {
    return this.o.tokens.issue({
      user: session.spec.user,
      sessionId: session.metadata.name,
      provider: session.spec.provider,
      slug: session.spec.slug,
      refreshId,
    });
  }
}
