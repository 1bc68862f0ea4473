import * as oidc from 'openid-client';
import { readFileSync } from 'node:fs';
import { ApiError, badRequest, forbidden, unauthorized } from '../errors.js';
import type { OAuthProviderConfig, OIDCProviderConfig } from '../kinds/generated/types.js';
import { OAuthError, type ExternalProvider, type LoginStart, type ProviderKind } from './provider.js';
import { providerFetch, providerTimeoutS } from './provider-http.js';
import { groupPolicy, groupsFromClaims, type GroupPolicy } from './provider-groups.js';
import { loginName, subjectOf, type ExternalIdentity } from './user-sync.js';

/** A token endpoint response, with openid-client's helpers. */
export type TokenResponse = oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;

/**
 * What OIDC and OAuth 2.0 providers share, with openid-client doing the protocol: PKCE S256, state
 * checks, code, refresh, device and client-credentials grants, the identity made of the token's
 * claims and the user's profile. A subclass says what differs: how the configuration is loaded
 * (discovery or explicit endpoints), the issuer, where the profile comes from, the login claim,
 * nonces and ID tokens, e-mail verification. http is allowed only for loopback issuers.
 */
export abstract class ProtocolProvider<C extends OIDCProviderConfig | OAuthProviderConfig> implements ExternalProvider {
  abstract readonly kind: ProviderKind;
  private config?: Promise<oidc.Configuration> | undefined;
  readonly groups: GroupPolicy | undefined;

  constructor(
    protected readonly c: C,
    where: string,
  ) {
    this.groups = groupPolicy(c, where);
    this.fetch = providerFetch(c.http);
  }

  /** The issuer users of this provider are bound to. */
  abstract get issuerId(): string;
  /** Scopes asked for when the configuration names none. */
  protected abstract readonly defaultScopes: readonly string[];
  /** A nonce and an ID token are part of the code flow (OIDC). */
  protected abstract readonly idTokens: boolean;
  /** The claims (or profile fields) the user's login name is read from, the first present wins. */
  protected abstract readonly loginClaims: readonly string[];
  /** The URLs this provider is reached at (http only for loopback ones). */
  protected abstract urls(): string[];
  /** The protocol configuration: discovery, or the configured endpoints. */
  protected abstract load(secret: string | undefined): Promise<oidc.Configuration>;
  /** The user's profile for a token response (`sub`: the subject known so far). */
  protected abstract profile(config: oidc.Configuration, tokens: TokenResponse, sub: string | undefined): Promise<Record<string, unknown>>;
  /** Whether an address the provider reports must be refused as unverified. */
  protected abstract unverified(verified: unknown): boolean;
  /** The subject of a profile without `sub` or `id` (undefined: refused). */
  protected fallbackSubject(_all: Record<string, unknown>): string | undefined {
    return undefined;
  }
  /** PKCE in the code flow (on unless the configuration turns it off). */
  protected usesPkce(): boolean {
    return true;
  }
  /** Scopes of the device grant, when the configuration names some. */
  protected deviceScopes(): string[] | undefined {
    return undefined;
  }
  /** Scopes of the client-credentials grant, when the configuration names some. */
  protected clientCredentialScopes(): string[] | undefined {
    return undefined;
  }

  get slug(): string {
    return this.c.slug_id;
  }

  redirectUri(origin: string): string {
    return this.c.redirect_uri ?? `${origin}/api/auth/providers/${this.kind}/${this.slug}/callback`;
  }

  async startLogin(origin: string): Promise<LoginStart> {
    const config = await this.configuration();
    const state = oidc.randomState();
    const verifier = this.usesPkce() ? oidc.randomPKCECodeVerifier() : undefined;
    const nonce = this.idTokens ? oidc.randomNonce() : undefined;
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

  async finishLogin(
    origin: string,
    query: Record<string, string>,
    saved: { state: string; nonce?: string; verifier?: string },
  ): Promise<ExternalIdentity> {
    const config = await this.configuration();
    const current = new URL(this.redirectUri(origin));
    current.search = new URLSearchParams(query).toString();
    const tokens = await this.protocol(() =>
      oidc.authorizationCodeGrant(
        config,
        current,
        {
          expectedState: saved.state,
          ...(saved.nonce ? { expectedNonce: saved.nonce } : {}),
          ...(saved.verifier ? { pkceCodeVerifier: saved.verifier } : {}),
          idTokenExpected: this.idTokens,
        },
        { redirect_uri: this.redirectUri(origin) },
      ),
    );
    return this.identity(config, tokens);
  }

  async refresh(refreshToken: string, subject: string): Promise<ExternalIdentity> {
    const config = await this.configuration();
    const tokens = await this.protocol(() => oidc.refreshTokenGrant(config, refreshToken));
    const id = await this.identity(config, tokens, subject);
    return id.upstreamRefreshToken ? id : { ...id, upstreamRefreshToken: refreshToken };
  }

  /** The configuration of the device-code flow: the provider's, or device_code's own client (Perses' override). */
  private async deviceConfiguration(): Promise<oidc.Configuration> {
    const base = await this.configuration();
    const d = this.c.device_code;
    if (!d?.client_id) return base;
    const secret = d.client_secret ?? (d.client_secret_file ? readFileSync(d.client_secret_file, 'utf8').trim() : undefined);
    return this.lenient(new oidc.Configuration(base.serverMetadata(), d.client_id, secret || undefined));
  }

  async deviceCode(): Promise<Record<string, unknown>> {
    const config = await this.deviceConfiguration();
    if (!config.serverMetadata().device_authorization_endpoint)
      throw badRequest(`provider "${this.slug}" has no device authorization endpoint`);
    const scopes = this.deviceScopes();
    return { ...(await this.protocol(() => oidc.initiateDeviceAuthorization(config, { scope: scopes?.join(' ') ?? this.scopes() }))) };
  }

  async deviceToken(deviceCode: string): Promise<ExternalIdentity> {
    const config = await this.deviceConfiguration();
    const tokens = await this.protocol(() =>
      oidc.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:device_code', { device_code: deviceCode }),
    );
    return this.identity(config, tokens);
  }

  async clientCredentials(clientId: string, clientSecret: string): Promise<ExternalIdentity> {
    const base = await this.configuration();
    const config = this.lenient(new oidc.Configuration(base.serverMetadata(), clientId, clientSecret));
    const scopes = this.clientCredentialScopes();
    await this.protocol(() => oidc.clientCredentialsGrant(config, scopes?.length ? { scope: scopes.join(' ') } : {}));
    return this.clientIdentity(clientId);
  }

  clientIdentity(clientId: string): ExternalIdentity {
    return { login: loginName(clientId, clientId), issuer: this.issuerId, subject: `client:${clientId}` };
  }

  acceptsTokenFrom(_issuer: unknown): boolean {
    return false;
  }

  async verifyAccessToken(_token: string): Promise<ExternalIdentity> {
    throw unauthorized(`provider "${this.slug}" does not accept its access tokens here`);
  }

  /** The identity of a token response; `expected`: the subject a refresh must still be (its response may hold no ID token). */
  private async identity(config: oidc.Configuration, tokens: TokenResponse, expected?: string): Promise<ExternalIdentity> {
    const claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
    const info = await this.profile(config, tokens, typeof claims.sub === 'string' ? claims.sub : expected);
    const all = { ...info, ...claims };
    const subject = subjectOf(all.sub ?? all.id) ?? this.fallbackSubject(all);
    if (!subject)
      throw unauthorized(
        `provider "${this.slug}" returned no usable subject for the user (${this.subjectSources()} must be a non-empty string or an integer)`,
      );
    if (expected !== undefined && subject !== expected)
      throw unauthorized(`provider "${this.slug}" answered the refresh for another user; log in again`);
    const email = typeof all.email === 'string' ? all.email : undefined;
    this.checkDomain(email, all.email_verified);
    const [first, ...rest] = typeof all.name === 'string' ? all.name.split(' ') : [];
    return {
      login: loginName(this.loginClaims.map((c) => all[c]).find((v) => v !== undefined) ?? this.emailLogin(email), subject),
      issuer: this.issuerId,
      subject,
      ...(email ? { email } : {}),
      ...(typeof all.given_name === 'string' ? { firstName: all.given_name } : first ? { firstName: first } : {}),
      ...(typeof all.family_name === 'string' ? { lastName: all.family_name } : rest.length ? { lastName: rest.join(' ') } : {}),
      ...(this.groups ? { groups: groupsFromClaims(all, this.groups) } : {}),
      ...(tokens.refresh_token ? { upstreamRefreshToken: tokens.refresh_token } : {}),
    };
  }

  /** Where a subject is read from, for the message of a profile without one. */
  protected subjectSources(): string {
    return 'sub or id';
  }

  /**
   * The login of a user the provider knows only by e-mail: the address's local part when the
   * provider admits a single domain (every user's address ends in it, so the local part names one
   * person), else none (the whole address, as the subject, names the user: alice@evil.example
   * never takes the name alice, nor what is granted to it).
   */
  private emailLogin(email: string | undefined): string | undefined {
    const domains = this.c.allowed_email_domains ?? [];
    const [local, domain] = email?.split('@') ?? [];
    return domains.length === 1 && local && domain?.toLowerCase() === domains[0].toLowerCase() ? local : undefined;
  }

  private checkDomain(email: string | undefined, verified: unknown): void {
    const domains = this.c.allowed_email_domains;
    if (!domains?.length) return;
    const domain = email?.split('@')[1]?.toLowerCase();
    if (!domain || this.unverified(verified) || !domains.map((d) => d.toLowerCase()).includes(domain)) {
      throw forbidden(`provider "${this.slug}" only admits users with a verified e-mail in ${domains.join(', ')}`);
    }
  }

  private scopes(): string {
    return (this.c.scopes ?? this.defaultScopes).join(' ');
  }

  protected insecure(): boolean {
    return this.urls().some((u) => new URL(u).protocol === 'http:');
  }

  /**
   * A configuration reading provider answers as Perses does (lenientFetch), with the provider's
   * http settings (timeout, TLS), over http for loopback providers.
   */
  protected lenient(config: oidc.Configuration): oidc.Configuration {
    config[oidc.customFetch] = this.fetch;
    const timeout = providerTimeoutS(this.c.http);
    if (timeout !== undefined) config.timeout = timeout;
    if (this.insecure()) oidc.allowInsecureRequests(config);
    return config;
  }

  /** The fetch of every request to the provider (discovery included). */
  protected readonly fetch: oidc.CustomFetch;

  private secret(): string {
    if (this.c.client_secret) return this.c.client_secret;
    if (this.c.client_secret_file) return readFileSync(this.c.client_secret_file, 'utf8').trim();
    return '';
  }

  /** Discovery (OIDC) or the explicit endpoints (OAuth), once; a failure is retried next time. */
  protected configuration(): Promise<oidc.Configuration> {
    this.config ??= this.load(this.secret() || undefined).catch((e: unknown) => {
      this.config = undefined;
      throw e instanceof ApiError
        ? e
        : new ApiError('BadGateway', `identity provider "${this.slug}" cannot be reached (${(e as Error).message})`);
    });
    return this.config;
  }

  /** Provider errors as API errors: OAuth errors keep their code (device polling needs it). */
  protected async protocol<T>(fn: () => Promise<T>): Promise<T> {
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
