import * as oidc from 'openid-client';
import { unauthorized } from '../errors.js';
import { oauthIssuer } from '../lib/issuers.js';
import type { OAuthProviderConfig } from '../kinds/generated/types.js';
import { ProtocolProvider, type TokenResponse } from './protocol-provider.js';
import { subjectOf } from './user-sync.js';

/**
 * A plain OAuth 2.0 provider (GitHub-like): configured endpoints, no ID token, the user's profile
 * from `user_infos_url`; users are bound to the authorization server's origin.
 */
export class OAuthProvider extends ProtocolProvider<OAuthProviderConfig> {
  readonly kind = 'oauth';
  protected readonly defaultScopes: string[] = [];
  protected readonly idTokens = false;

  get issuerId(): string {
    return oauthIssuer(this.c);
  }

  /** custom_login_property, else `login` then `username`, as Perses reads them. */
  protected get loginClaims(): string[] {
    return this.c.custom_login_property ? [this.c.custom_login_property] : ['login', 'username'];
  }

  protected urls(): string[] {
    return [this.c.auth_url, this.c.token_url];
  }

  protected async load(secret: string | undefined): Promise<oidc.Configuration> {
    const c = this.c;
    return this.lenient(
      new oidc.Configuration(
        {
          issuer: this.issuerId,
          authorization_endpoint: c.auth_url,
          token_endpoint: c.token_url,
          ...(c.device_auth_url ? { device_authorization_endpoint: c.device_auth_url } : {}),
        },
        c.client_id,
        secret,
      ),
    );
  }

  protected async profile(config: oidc.Configuration, tokens: TokenResponse): Promise<Record<string, unknown>> {
    const res = await this.protocol(() => oidc.fetchProtectedResource(config, tokens.access_token, new URL(this.c.user_infos_url), 'GET'));
    if (!res.ok) throw unauthorized(`provider "${this.slug}" did not return the user's profile (HTTP ${res.status})`);
    return (await res.json()) as Record<string, unknown>;
  }

  /** An OAuth profile has no verification claim: only an explicit `email_verified: false` refuses. */
  protected unverified(verified: unknown): boolean {
    return verified === false;
  }

  /**
   * A profile without `id` (some providers answer only a login or only an e-mail, which Perses
   * accepts): its login, else its e-mail address unless marked unverified. The provider must not
   * give that name or address to someone else later (docs/auth.md).
   */
  protected override fallbackSubject(all: Record<string, unknown>): string | undefined {
    const login = this.loginClaims.map((c) => subjectOf(all[c])).find((v) => v !== undefined);
    return login ?? (this.unverified(all.email_verified) ? undefined : subjectOf(all.email));
  }

  protected override subjectSources(): string {
    return `id, ${this.loginClaims.join(', ')} or email`;
  }
}
