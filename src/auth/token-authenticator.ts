import type { IncomingHttpHeaders } from 'node:http';
import { missingJwt, unauthorized } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import { credentialStamp } from '../resources/credentials.js';
import type { Envelope, ObjectStore } from '../storage/store.js';
import { API_TOKEN_PREFIX, type ApiTokens } from './api-tokens.js';
import type { Authenticator } from './authenticator.js';
import type { Principal, Revocation } from '../access/authorizer.js';
import { COOKIE_PAYLOAD, COOKIE_SIGNATURE, parseCookies } from './cookies.js';
import { CREDENTIALS_CHANGED, holdsCredential, SESSION_KIND, type Reads, type SessionStore } from './sessions.js';
import { API_TOKEN_KIND } from './api-tokens.js';
import type { TokenService } from './tokens.js';

/**
 * Access tokens from `Authorization: Bearer` or the jwtPayload + jwtSignature cookies (never from
 * the URL). Every request also checks that the token's session is alive and its user still the
 * same user with the same credentials, so logout, refresh-token reuse, user deletion and a
 * password change take effect at once.
 */
export class TokenAuthenticator implements Authenticator {
  constructor(
    private readonly o: {
      tokens: TokenService;
      sessions: SessionStore;
      store: ObjectStore;
      /** Reads sessions' users (a ReadCache in the server). */
      reads: Reads;
      userKind: KindDescriptor;
      /** Access tokens signed by a configured provider (issuer-verified), when any accepts them. */
      providerToken?: (token: string) => Promise<Principal | undefined>;
      /** API tokens (`dp_...` Bearer tokens). */
      apiTokens?: ApiTokens;
      /** The provider groups and mapped roles of a user (from what its providers last reported). */
      groupsOf?: (user: Envelope) => Pick<Principal, 'groups' | 'roles'>;
    },
  ) {}

  /** A watch stream ends when its session is revoked (logout, reuse), its user deleted or re-created, its password changed, or its API token revoked. */
  readonly revocation: Revocation = {
    concerns: (p, changed) =>
      (changed.kind === SESSION_KIND && changed.metadata.name === p.sessionId) ||
      (changed.kind === API_TOKEN_KIND && changed.metadata.name === p.token?.id) ||
      (changed.kind === this.o.userKind.kind && changed.metadata.name === p.name && !p.subject),
    stillValid: async (p) => {
      if (p.token) return (await this.o.apiTokens?.isLive(p.token.id)) === true;
      if (!p.sessionId) return true;
      // the store itself: the change that woke the caller may not have reached the caches yet
      const session = await this.o.sessions.get(p.sessionId, { store: true });
      if (!session || session.spec.user !== p.name) return false;
      const user = await this.o.store.get({ kind: this.o.userKind.kind, project: '', name: p.name });
      return (
        user !== undefined &&
        user.metadata.createdAt === session.spec.userCreatedAt &&
        holdsCredential(session, credentialStamp(this.o.userKind, user))
      );
    },
  };

  async authenticate(headers: IncomingHttpHeaders, origin?: Principal['origin']): Promise<Principal | undefined> {
    const found = credentials(headers);
    if (!found) return undefined;
    if (!found.viaCookie && this.o.apiTokens && found.token.startsWith(API_TOKEN_PREFIX)) return this.apiToken(found.token, origin);
    if (!found.viaCookie && this.o.providerToken) {
      const external = await this.o.providerToken(found.token);
      if (external) return external;
    }
    const claims = this.o.tokens.verifyAccess(found.token);
    // one sync for both reads: a logout or deletion on any replica before this request holds
    await this.o.store.sync();
    const session = await this.o.sessions.get(claims.sid, { synced: true });
    if (!session || session.spec.user !== claims.sub)
      throw unauthorized('this session has ended (logged out, revoked or expired); log in again');
    const user = await this.o.reads.get({ kind: this.o.userKind.kind, project: '', name: claims.sub }, { synced: true });
    if (!user || user.metadata.createdAt !== session.spec.userCreatedAt) throw unauthorized('this user no longer exists; log in again');
    if (!holdsCredential(session, credentialStamp(this.o.userKind, user))) throw unauthorized(CREDENTIALS_CHANGED);
    return {
      name: claims.sub,
      anonymous: false,
      sessionId: claims.sid,
      viaCookie: found.viaCookie,
      expiresAt: claims.exp * 1000,
      ...this.o.groupsOf?.(user),
      synced: true,
    };
  }

  /** A `dp_` token: checked against the store as of now (a revocation on any replica holds); its use recorded at most once a minute. */
  private async apiToken(token: string, origin: Principal['origin']): Promise<Principal> {
    await this.o.store.sync();
    const found = await this.o.apiTokens!.authenticate(token);
    const principal = origin ? { ...found.principal, origin } : found.principal;
    // not awaited: the request does not wait for this write (failures leave the last time as it was)
    void this.o.apiTokens!.touch(found.record, principal).catch(() => undefined);
    return principal;
  }
}

function credentials(headers: IncomingHttpHeaders): { token: string; viaCookie: boolean } | undefined {
  const auth = headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw missingJwt('the Authorization header must be "Bearer <access token>"');
    return { token: m[1], viaCookie: false };
  }
  const cookies = parseCookies(headers);
  const payload = cookies.get(COOKIE_PAYLOAD);
  const signature = cookies.get(COOKIE_SIGNATURE);
  if (payload === undefined && signature === undefined) return undefined;
  if (!payload || !signature) throw missingJwt('the jwtPayload and jwtSignature cookies must both be present; log in again', 'Cookie');
  return { token: `${payload}.${signature}`, viaCookie: true };
}
