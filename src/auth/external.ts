import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { readFileSync } from 'node:fs';
import { ApiError, badRequest, forbidden, unauthorized } from '../errors.js';
import type { OAuthProviderConfig, OIDCProviderConfig } from '../kinds/generated/types.js';
import { groupPolicy, groupsFromClaims, type GroupPolicy } from './provider-groups.js';
import { loginName, subjectOf, type ExternalIdentity } from './user-sync.js';

export type ProviderKind = 'oidc' | 'oauth';

/** What a flow needs to send the user to the provider and back. */
export interface LoginStart {
  url: string;
  state: string;
  nonce?: string;
  verifier?: string;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/**
 * One configured OIDC or OAuth 2.0 provider, with openid-client doing the protocol: discovery
 * (OIDC), PKCE S256, state and nonce checks, ID token validation, device and client-credentials
 * grants. http is allowed only for loopback issuers (tests, local providers).
 */
export class ExternalProvider {
  private config?: Promise<oidc.Configuration>;
  private jwks?: JWTVerifyGetKey;
  /** What groups_claim, groups_prefix, allowed_groups and role_mappings say (undefined: no groups read). */
  readonly groups: GroupPolicy | undefined;

  constructor(
    readonly kind: ProviderKind,
    private readonly c: OIDCProviderConfig | OAuthProviderConfig,
    where = `security.authentication.providers.${kind}`,
  ) {
    this.groups = groupPolicy(c, where);
  }

  get slug(): string {
    return this.c.slug_id;
  }

  /** The callback URL registered at the provider. */
  redirectUri(origin: string): string {
    return this.c.redirect_uri ?? `${origin}/api/auth/providers/${this.kind}/${this.slug}/callback`;
  }

  async startLogin(origin: string): Promise<LoginStart> {
    const config = await this.configuration();
    const state = oidc.randomState();
    const usePkce = !(this.kind === 'oidc' && (this.c as OIDCProviderConfig).disable_pkce);
    const verifier = usePkce ? oidc.randomPKCECodeVerifier() : undefined;
    const nonce = this.kind === 'oidc' ? oidc.randomNonce() : undefined;
    const params: Record<string, string> = {
      redirect_uri: this.redirectUri(origin),
      scope: this.scopes(),
      state,
      ...(nonce ? { nonce } : {}),
      ...(verifier ? { code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' } : {}),
      ...(this.c.url_params ?? {}),
    };
    return { url: oidc.buildAuthorizationUrl(config, params).href, state, ...(nonce ? { nonce } : {}), ...(verifier ? { verifier } : {}) };
  }

  /** Code exchange with every check, then the identity (ID token claims + user info). */
  async finishLogin(origin: string, query: Record<string, string>, saved: { state: string; nonce?: string; verifier?: string }): Promise<ExternalIdentity> {
    const config = await this.configuration();
    const current = new URL(this.redirectUri(origin));
    current.search = new URLSearchParams(query).toString();
    const tokens = await this.protocol(() =>
      oidc.authorizationCodeGrant(
        config,
        current,
        { expectedState: saved.state, ...(saved.nonce ? { expectedNonce: saved.nonce } : {}), ...(saved.verifier ? { pkceCodeVerifier: saved.verifier } : {}), idTokenExpected: this.kind === 'oidc' },
        { redirect_uri: this.redirectUri(origin) },
      ),
    );
    return this.identity(config, tokens);
  }

  /**
   * A new sign-in from the provider's refresh token (kept, encrypted, with the session): the
   * groups it reports now. The provider refusing the token (the user was removed or lost access)
   * is an OAuthError `invalid_grant`; the identity must still be `subject`.
   */
  async refresh(refreshToken: string, subject: string): Promise<ExternalIdentity> {
    const config = await this.configuration();
    const tokens = await this.protocol(() => oidc.refreshTokenGrant(config, refreshToken));
    const id = await this.identity(config, tokens, subject);
    return id.upstreamRefreshToken ? id : { ...id, upstreamRefreshToken: refreshToken };
  }

  /** The provider's device authorization (device code, user code, verification URL). */
  async deviceCode(): Promise<Record<string, unknown>> {
    const config = await this.configuration();
    if (!config.serverMetadata().device_authorization_endpoint) throw badRequest(`provider "${this.slug}" has no device authorization endpoint`);
    const scopes = (this.c as OIDCProviderConfig).device_code?.scopes;
    return { ...(await this.protocol(() => oidc.initiateDeviceAuthorization(config, { scope: scopes?.join(' ') ?? this.scopes() }))) };
  }

  /** One poll of the device grant: the identity once approved, an OAuth error while pending. */
  async deviceToken(deviceCode: string): Promise<ExternalIdentity> {
    const config = await this.configuration();
    const tokens = await this.protocol(() => oidc.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:device_code', { device_code: deviceCode }));
    return this.identity(config, tokens);
  }

  /** Client credentials of the caller's own client at the provider: the user is that client. */
  async clientCredentials(clientId: string, clientSecret: string): Promise<ExternalIdentity> {
    const base = await this.configuration();
    const config = new oidc.Configuration(base.serverMetadata(), clientId, clientSecret);
    if (this.insecure()) oidc.allowInsecureRequests(config);
    const scopes = (this.c as OIDCProviderConfig).client_credentials?.scopes;
    await this.protocol(() => oidc.clientCredentialsGrant(config, scopes?.length ? { scope: scopes.join(' ') } : {}));
    return { login: loginName(clientId, clientId), issuer: this.issuer(), subject: `client:${clientId}` };
  }

  /** Whether this provider accepts its own access tokens as Bearer tokens, and for this token's issuer. */
  acceptsTokenFrom(issuer: unknown): boolean {
    return this.kind === 'oidc' && !!(this.c as OIDCProviderConfig).accept_access_tokens && issuer === (this.c as OIDCProviderConfig).issuer;
  }

  /** A provider-signed access token (JWKS, audience, expiry, asymmetric algorithms only) as an identity. */
  async verifyAccessToken(token: string): Promise<ExternalIdentity> {
    const c = this.c as OIDCProviderConfig;
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
    if (!subject) throw unauthorized(`the access token from provider "${this.slug}" has no usable subject (sub must be a non-empty string)`);
    const login = claims[c.login_claim ?? 'preferred_username'] ?? claims.client_id ?? claims.azp;
    return {
      login: loginName(login, subject),
      issuer: c.issuer,
      subject,
      ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      // a token without the claim leaves the groups of the user's last sign-in
      ...(this.groups && claims[this.groups.claim] !== undefined ? { groups: groupsFromClaims(claims, this.groups) } : {}),
    };
  }

  /** The identity of a token response; `expected`: the subject a refresh must still be (its response may hold no ID token). */
  private async identity(config: oidc.Configuration, tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, expected?: string): Promise<ExternalIdentity> {
    const claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
    let info: Record<string, unknown>;
    if (this.kind === 'oidc') {
      const sub = typeof claims.sub === 'string' ? claims.sub : expected;
      info = config.serverMetadata().userinfo_endpoint && sub ? { ...(await this.protocol(() => oidc.fetchUserInfo(config, tokens.access_token, sub))) } : {};
    } else {
      const res = await this.protocol(() => oidc.fetchProtectedResource(config, tokens.access_token, new URL((this.c as OAuthProviderConfig).user_infos_url), 'GET'));
      if (!res.ok) throw unauthorized(`provider "${this.slug}" did not return the user's profile (HTTP ${res.status})`);
      info = (await res.json()) as Record<string, unknown>;
    }
    const all = { ...info, ...claims };
    const subject = subjectOf(all.sub ?? all.id);
    if (!subject) throw unauthorized(`provider "${this.slug}" returned no usable subject for the user (sub or id must be a non-empty string or an integer)`);
    if (expected !== undefined && subject !== expected) throw unauthorized(`provider "${this.slug}" answered the refresh for another user; log in again`);
    const claim = this.kind === 'oidc' ? ((this.c as OIDCProviderConfig).login_claim ?? 'preferred_username') : ((this.c as OAuthProviderConfig).custom_login_property ?? 'login');
    const email = typeof all.email === 'string' ? all.email : undefined;
    this.checkDomain(email, all.email_verified);
    const [first, ...rest] = typeof all.name === 'string' ? all.name.split(' ') : [];
    return {
      login: loginName(all[claim], subject),
      issuer: this.issuer(),
      subject,
      ...(email ? { email } : {}),
      ...(typeof all.given_name === 'string' ? { firstName: all.given_name } : first ? { firstName: first } : {}),
      ...(typeof all.family_name === 'string' ? { lastName: all.family_name } : rest.length ? { lastName: rest.join(' ') } : {}),
      ...(this.groups ? { groups: groupsFromClaims(all, this.groups) } : {}),
      ...(tokens.refresh_token ? { upstreamRefreshToken: tokens.refresh_token } : {}),
    };
  }

  private checkDomain(email: string | undefined, verified: unknown): void {
    const domains = this.c.allowed_email_domains;
    if (!domains?.length) return;
    const domain = email?.split('@')[1]?.toLowerCase();
    // OIDC says whether the address was verified; an OAuth profile has no such claim.
    const unverified = this.kind === 'oidc' ? verified !== true : verified === false;
    if (!domain || unverified || !domains.map((d) => d.toLowerCase()).includes(domain)) {
      throw forbidden(`provider "${this.slug}" only admits users with a verified e-mail in ${domains.join(', ')}`);
    }
  }

  private scopes(): string {
    return (this.c.scopes ?? (this.kind === 'oidc' ? ['openid', 'profile', 'email'] : [])).join(' ');
  }

  /** The issuer users of this provider are bound to (OIDC issuer, or the OAuth authorization server's origin). */
  get issuerId(): string {
    return this.issuer();
  }

  private issuer(): string {
    return this.kind === 'oidc' ? (this.c as OIDCProviderConfig).issuer : new URL((this.c as OAuthProviderConfig).auth_url).origin;
  }

  private insecure(): boolean {
    const urls = this.kind === 'oidc' ? [(this.c as OIDCProviderConfig).issuer] : [(this.c as OAuthProviderConfig).auth_url, (this.c as OAuthProviderConfig).token_url];
    return urls.some((u) => new URL(u).protocol === 'http:');
  }

  private secret(): string {
    if (this.c.client_secret) return this.c.client_secret;
    if (this.c.client_secret_file) return readFileSync(this.c.client_secret_file, 'utf8').trim();
    return '';
  }

  /** Discovery (OIDC) or the explicit endpoints (OAuth), once; a failure is retried next time. */
  private configuration(): Promise<oidc.Configuration> {
    this.config ??= this.load().catch((e: unknown) => {
      this.config = undefined;
      throw e instanceof ApiError ? e : new ApiError('BadGateway', `identity provider "${this.slug}" cannot be reached (${(e as Error).message})`);
    });
    return this.config;
  }

  private async load(): Promise<oidc.Configuration> {
    const secret = this.secret();
    if (this.kind === 'oidc') {
      const c = this.c as OIDCProviderConfig;
      const opts = this.insecure() ? { execute: [oidc.allowInsecureRequests] } : {};
      return oidc.discovery(new URL(c.discovery_url ?? c.issuer), c.client_id, secret || undefined, undefined, opts);
    }
    const c = this.c as OAuthProviderConfig;
    const config = new oidc.Configuration(
      { issuer: this.issuer(), authorization_endpoint: c.auth_url, token_endpoint: c.token_url, ...(c.device_auth_url ? { device_authorization_endpoint: c.device_auth_url } : {}) },
      c.client_id,
      secret || undefined,
    );
    if (this.insecure()) oidc.allowInsecureRequests(config);
    return config;
  }

  /** Provider errors as API errors: OAuth errors keep their code (device polling needs it). */
  private async protocol<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ApiError) throw e;
      if (e instanceof oidc.ResponseBodyError) throw new OAuthError(e.error, e.error_description ?? e.error);
      if (e instanceof oidc.AuthorizationResponseError) throw new OAuthError(e.error, e.error_description ?? e.error);
      throw unauthorized(`login through "${this.slug}" failed: ${(e as Error).message}`);
    }
  }
}

/** An OAuth protocol error (authorization_pending, invalid_grant, ...), answered as `{error, error_description}`. */
export class OAuthError extends ApiError {
  constructor(readonly code: string, description: string) {
    super('BadRequest', description);
  }
}

/** The `iss` of a JWT without verifying it (to pick the provider that must verify it). */
export function unverifiedIssuer(token: string): unknown {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

/** Validates the provider list at start: unique slugs, URLs, a readable secret file. */
export function buildProviders(oidcList: readonly OIDCProviderConfig[] = [], oauthList: readonly OAuthProviderConfig[] = []): Map<string, ExternalProvider> {
  const out = new Map<string, ExternalProvider>();
  const add = (kind: ProviderKind, c: OIDCProviderConfig | OAuthProviderConfig, i: number) => {
    const where = `security.authentication.providers.${kind}[${i}]`;
    if (out.has(`${kind}/${c.slug_id}`)) throw new Error(`${where}: slug_id "${c.slug_id}" is used twice`);
    if (c.client_secret_file) {
      try {
        readFileSync(c.client_secret_file, 'utf8');
      } catch (e) {
        throw new Error(`${where}.client_secret_file: ${(e as Error).message}`);
      }
    }
    const urls = kind === 'oidc' ? [(c as OIDCProviderConfig).issuer] : [(c as OAuthProviderConfig).auth_url, (c as OAuthProviderConfig).token_url, (c as OAuthProviderConfig).user_infos_url];
    for (const u of urls) {
      const url = new URL(u);
      if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) throw new Error(`${where}: ${u} must use https (http is only accepted for loopback addresses)`);
    }
    out.set(`${kind}/${c.slug_id}`, new ExternalProvider(kind, c, where));
  };
  oidcList.forEach((c, i) => add('oidc', c, i));
  oauthList.forEach((c, i) => add('oauth', c, i));
  return out;
}
