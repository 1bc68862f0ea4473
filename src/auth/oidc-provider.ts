import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { unauthorized } from '../errors.js';
import type { OIDCProviderConfig } from '../kinds/generated/types.js';
import { providerTimeoutS } from './provider-http.js';
import { ProtocolProvider, type TokenResponse } from './protocol-provider.js';
import { groupsFromClaims } from './provider-groups.js';
import { loginName, subjectOf, type ExternalIdentity } from './user-sync.js';

/**
 * An OpenID Connect provider: discovery from the issuer, nonces and ID tokens, the user info
 * endpoint, verified e-mails only; optionally its own access tokens accepted as Bearer tokens.
 */
export class OidcProvider extends ProtocolProvider<OIDCProviderConfig> {
  readonly kind = 'oidc';
  protected readonly defaultScopes = ['openid', 'profile', 'email'];
  protected readonly idTokens = true;
  private jwks?: JWTVerifyGetKey;

  get issuerId(): string {
    return this.c.issuer;
  }

  protected get loginClaims(): string[] {
    return [this.c.login_claim ?? 'preferred_username'];
  }

  protected urls(): string[] {
    return [this.c.issuer];
  }

  protected override usesPkce(): boolean {
    return !this.c.disable_pkce;
  }

  protected override deviceScopes(): string[] | undefined {
    return this.c.device_code?.scopes;
  }

  protected override clientCredentialScopes(): string[] | undefined {
    return this.c.client_credentials?.scopes;
  }

  protected async load(secret: string | undefined): Promise<oidc.Configuration> {
    const timeout = providerTimeoutS(this.c.http);
    const opts = {
      [oidc.customFetch]: this.fetch,
      ...(timeout !== undefined ? { timeout } : {}),
      ...(this.insecure() ? { execute: [oidc.allowInsecureRequests] } : {}),
    };
    const config = await oidc.discovery(new URL(this.c.discovery_url ?? this.c.issuer), this.c.client_id, secret, undefined, opts);
    if (timeout !== undefined) config.timeout = timeout;
    return config;
  }

  protected async profile(config: oidc.Configuration, tokens: TokenResponse, sub: string | undefined): Promise<Record<string, unknown>> {
    return config.serverMetadata().userinfo_endpoint && sub
      ? { ...(await this.protocol(() => oidc.fetchUserInfo(config, tokens.access_token, sub))) }
      : {};
  }

  /** OIDC says whether the address was verified: only a verified one counts. */
  protected unverified(verified: unknown): boolean {
    return verified !== true;
  }

  override acceptsTokenFrom(issuer: unknown): boolean {
    return !!this.c.accept_access_tokens && issuer === this.c.issuer;
  }

  /** A provider-signed access token (JWKS, audience, expiry, asymmetric algorithms only) as an identity. */
  override async verifyAccessToken(token: string): Promise<ExternalIdentity> {
    const c = this.c;
    const config = await this.configuration();
    const jwksUri = config.serverMetadata().jwks_uri;
    if (!jwksUri) throw unauthorized(`provider "${this.slug}" publishes no JWKS`);
    this.jwks ??= createRemoteJWKSet(new URL(jwksUri));
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(token, this.jwks, {
        issuer: c.issuer,
        audience: c.accept_access_tokens!.audience,
        algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
        requiredClaims: ['exp', 'sub'],
        clockTolerance: 30,
      }));
    } catch {
      throw unauthorized(`the access token from provider "${this.slug}" is invalid, expired or not meant for this server`);
    }
    const subject = subjectOf(claims.sub);
    if (!subject)
      throw unauthorized(`the access token from provider "${this.slug}" has no usable subject (sub must be a non-empty string)`);
    const login = claims[this.loginClaims[0]] ?? claims.client_id ?? claims.azp;
    return {
      login: loginName(login, subject),
      issuer: c.issuer,
      subject,
      ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      expiresAt: (claims.exp as number) * 1000,
      // a token without the claim leaves the groups of the user's last sign-in
      ...(this.groups && claims[this.groups.claim] !== undefined ? { groups: groupsFromClaims(claims, this.groups) } : {}),
    };
  }
}
