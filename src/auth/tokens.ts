import type JsonWebToken from 'jsonwebtoken';
import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { unauthorized } from '../errors.js';
import type { KeyRing } from './keys.js';

let jwtModule: typeof JsonWebToken | undefined;
/** jsonwebtoken (with jws and semver), loaded at the first token signed or checked, not at start. */
function jwt(): typeof JsonWebToken {
  jwtModule ??= createRequire(import.meta.url)('jsonwebtoken') as typeof JsonWebToken;
  return jwtModule;
}

/** How far clocks may disagree when checking exp and nbf. */
const CLOCK_SKEW_S = 30;

/** How many verified access tokens are remembered. */
const VERIFIED_TOKENS = 10_000;

/** Claims of an access token (Perses: sub, exp, nbf, pkd, pid; dashplane adds the session id). */
export interface AccessClaims {
  sub: string;
  /** Provider kind: native, oidc or oauth. */
  pkd: string;
  /** Provider slug ("" for native). */
  pid: string;
  sid: string;
  exp: number;
  nbf: number;
}

/** Claims of a refresh token: the session and the id of this token in its rotation chain. */
export interface RefreshClaims {
  sub: string;
  sid: string;
  jti: string;
  exp: number;
}

/** What login and refresh answer (exactly Perses's shape) plus the parts the cookies need. */
export interface IssuedTokens {
  body: { access_token: string; token_type: 'Bearer'; refresh_token: string; expiry: string; expires_in: number };
  accessMaxAge: number;
  refreshMaxAge: number;
}

/**
 * Signs and checks tokens: HS512 only, `exp` required, 30 s of clock skew. Access and refresh
 * tokens are signed with different keys, so neither passes for the other.
 */
export class TokenService {
  /**
   * The keys as KeyObjects, made once: given a Buffer, jsonwebtoken first tries to parse it as a
   * public key on every call (an exception each time), which dominated a token check's cost.
   */
  private readonly accessKey: KeyObject;
  private readonly refreshKey: KeyObject;
  /** Access tokens that passed `verify` (HMAC, base64 and JSON decoding on every request otherwise), oldest first. */
  private readonly verified = new Map<string, AccessClaims>();

  constructor(
    keys: KeyRing,
    private readonly ttl: { accessS: number; refreshS: number },
    private readonly now: () => number = Date.now,
  ) {
    this.accessKey = createSecretKey(keys.accessTokenKey);
    this.refreshKey = createSecretKey(keys.refreshTokenKey);
  }

  newRefreshId(): string {
    return randomUUID();
  }

  issue(s: { user: string; sessionId: string; provider: string; slug: string; refreshId: string }): IssuedTokens {
    const nowS = Math.floor(this.now() / 1000);
    const accessExp = nowS + this.ttl.accessS;
    const access = jwt().sign(
      { sub: s.user, pkd: s.provider, pid: s.slug, sid: s.sessionId, nbf: nowS, iat: nowS, exp: accessExp },
      this.accessKey,
      { algorithm: 'HS512', noTimestamp: true },
    );
    const refresh = jwt().sign(
      { sub: s.user, sid: s.sessionId, jti: s.refreshId, typ: 'refresh', iat: nowS, exp: nowS + this.ttl.refreshS },
      this.refreshKey,
      {
        algorithm: 'HS512',
        noTimestamp: true,
      },
    );
    return {
      body: {
        access_token: access,
        token_type: 'Bearer',
        refresh_token: refresh,
        expiry: new Date(accessExp * 1000).toISOString(),
        expires_in: this.ttl.accessS,
      },
      accessMaxAge: this.ttl.accessS,
      refreshMaxAge: this.ttl.refreshS,
    };
  }

  verifyAccess(token: string): AccessClaims {
    // a token that verified once verifies again, byte for byte, until it expires
    const known = this.verified.get(token);
    if (known && Math.floor(this.now() / 1000) < known.exp + CLOCK_SKEW_S) return known;
    const c = this.verify(token, this.accessKey, 'access token');
    if (typeof c.sid !== 'string' || typeof c.pkd !== 'string')
      throw unauthorized('the access token is not one this server issued; log in again');
    if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
    const claims = Object.freeze(c) as unknown as AccessClaims;
    this.verified.set(token, claims);
    return claims;
  }

  verifyRefresh(token: string): RefreshClaims {
    const c = this.verify(token, this.refreshKey, 'refresh token');
    if (c.typ !== 'refresh' || typeof c.sid !== 'string' || typeof c.jti !== 'string')
      throw unauthorized('the refresh token is not one this server issued; log in again');
    return c as unknown as RefreshClaims;
  }

  private verify(token: string, key: KeyObject, what: string): Record<string, unknown> {
    let claims: unknown;
    try {
      claims = jwt().verify(token, key, {
        algorithms: ['HS512'],
        clockTolerance: CLOCK_SKEW_S,
        clockTimestamp: Math.floor(this.now() / 1000),
      });
    } catch (e) {
      const expired = e instanceof jwt().TokenExpiredError;
      throw unauthorized(
        expired
          ? `the ${what} has expired; ${what === 'access token' ? 'refresh it or ' : ''}log in again`
          : `the ${what} is invalid; log in again`,
      );
    }
    const c = claims as Record<string, unknown>;
    if (typeof c !== 'object' || typeof c.exp !== 'number' || typeof c.sub !== 'string')
      throw unauthorized(`the ${what} has no expiry or subject; log in again`);
    return c;
  }
}
