import { ApiError } from '../errors.js';
import type { GroupPolicy } from './provider-groups.js';
import type { ExternalIdentity } from './user-sync.js';

export type ProviderKind = 'oidc' | 'oauth';

/** What a flow needs to send the user to the provider and back. */
export interface LoginStart {
  url: string;
  state: string;
  nonce?: string;
  verifier?: string;
}

/**
 * One configured identity provider: an OpenID Connect one (oidc-provider.ts) or a plain OAuth 2.0
 * one (oauth-provider.ts). Routes, sessions and token checks use only this interface.
 */
export interface ExternalProvider {
  readonly kind: ProviderKind;
  readonly slug: string;
  /** What groups_claim, groups_prefix, allowed_groups and role_mappings say (undefined: no groups read). */
  readonly groups: GroupPolicy | undefined;
  /** The issuer users of this provider are bound to. */
  readonly issuerId: string;
  /** The callback URL registered at the provider. */
  redirectUri(origin: string): string;
  startLogin(origin: string): Promise<LoginStart>;
  /** Code exchange with every check, then the identity. */
  finishLogin(
    origin: string,
    query: Record<string, string>,
    saved: { state: string; nonce?: string; verifier?: string },
  ): Promise<ExternalIdentity>;
  /**
   * A new sign-in from the provider's refresh token (kept, encrypted, with the session): the
   * groups it reports now. The provider refusing the token (the user was removed or lost access)
   * is an OAuthError `invalid_grant`; the identity must still be `subject`.
   */
  refresh(refreshToken: string, subject: string): Promise<ExternalIdentity>;
  /** The provider's device authorization (device code, user code, verification URL). */
  deviceCode(): Promise<Record<string, unknown>>;
  /** One poll of the device grant: the identity once approved, an OAuth error while pending. */
  deviceToken(deviceCode: string): Promise<ExternalIdentity>;
  /** Client credentials of the caller's own client at the provider: the user is that client. */
  clientCredentials(clientId: string, clientSecret: string): Promise<ExternalIdentity>;
  /** Who client credentials for `clientId` would sign in as, before the provider checked them. */
  clientIdentity(clientId: string): ExternalIdentity;
  /** Whether this provider accepts its own access tokens as Bearer tokens, and for this token's issuer. */
  acceptsTokenFrom(issuer: unknown): boolean;
  /** A provider-signed access token as an identity (only where `acceptsTokenFrom`). */
  verifyAccessToken(token: string): Promise<ExternalIdentity>;
}

/** An OAuth protocol error (authorization_pending, invalid_grant, ...), answered as `{error, error_description}`. */
export class OAuthError extends ApiError {
  constructor(
    readonly code: string,
    description: string,
  ) {
    super('BadRequest', description);
  }
}
