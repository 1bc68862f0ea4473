import type { AuthRouteOptions } from './api/auth-routes.js';
import type { ExternalAuthOptions } from './api/external-auth-routes.js';
import type { Metrics } from './api/metrics.js';
import { AuditCoalescer } from './audit/coalescer.js';
import { auditDraft } from './audit/drafts.js';
import type { ResolvedConfig } from './config.js';
import { specOf } from './kinds/descriptor.js';
import type { User } from './kinds/generated/types.js';
import type { KindRegistry } from './kinds/registry.js';
import { durationMs } from './lib/duration.js';
import type { ResourceService } from './resources/service.js';
import type { SecretBox } from './secrets/secret-box.js';
import { ReadCache } from './storage/read-cache.js';
import type { Envelope, Store } from './storage/store.js';
import { API_TOKEN_KIND, ApiTokens } from './auth/api-tokens.js';
import type { Authenticator } from './auth/authenticator.js';
import type { AuthzTarget, Principal } from './access/authorizer.js';
import type { ExternalProvider } from './auth/provider.js';
import { unverifiedIssuer } from './auth/token-issuer.js';
import type { KeyRing } from './auth/keys.js';
import { AuthService } from './auth/login.js';
import type { PasswordHasher } from './access/passwords.js';
import { groupGrants, principalGroups } from './auth/provider-groups.js';
import { RbacAuthorizer, type Permission } from './auth/rbac.js';
import { SignUpLimit } from './auth/sign-up-limit.js';
import { SESSION_KIND, SessionStore } from './auth/sessions.js';
import { TokenAuthenticator } from './auth/token-authenticator.js';
import { TokenService } from './auth/tokens.js';
import { UpstreamRefresher } from './auth/upstream-refresh.js';
import { principalUser } from './auth/user-sync.js';

/** What authentication on (`security.enable_auth`) adds to the server. */
export interface AuthParts {
  authenticator: Authenticator;
  authorizer: RbacAuthorizer;
  auth: Omit<AuthRouteOptions, 'service'>;
  external?: Omit<ExternalAuthOptions, 'service'>;
  sessions: SessionStore;
  apiTokens: ApiTokens;
  /** Where denials and failed logins are recorded, repeats counted: stop it before the store closes. */
  audit: AuditCoalescer;
}

/**
 * Builds the authentication and authorization parts from the configuration: tokens, sessions,
 * API tokens, identity providers (with their groups), RBAC with its denials audited (repeats
 * counted, src/audit/coalescer.ts), logins.
 * `service` is read at request time (it is built after these parts).
 */
export function composeAuth(o: {
  config: Readonly<ResolvedConfig>;
  registry: KindRegistry;
  store: Store;
  keys: KeyRing;
  secrets: SecretBox;
  passwords: PasswordHasher;
  metrics: Metrics;
  service: () => ResourceService;
  /** The configured identity providers (`buildProviders`, loaded by the caller only when some are configured). */
  providers: Map<string, ExternalProvider>;
  /** Where an audit entry that could not be written is reported. */
  warn: (e: unknown) => void;
}): AuthParts {
  const { config, registry, store, keys } = o;
  const security = config.security;
  const authn = security.authentication;
  const accessTtlMs = durationMs(authn.access_token_ttl);
  const refreshTtlMs = durationMs(authn.refresh_token_ttl);
  const tokens = new TokenService(keys, { accessS: Math.round(accessTtlMs / 1000), refreshS: Math.round(refreshTtlMs / 1000) });
  const userKind = registry.all().find((d) => d.isPrincipal)!;
  // every authenticated request reads its session (or API token) and principal: from memory until they change
  const principalKinds = registry
    .all()
    .filter((d) => d.subject === 'principal')
    .map((d) => d.kind);
  const reads = new ReadCache(store, [SESSION_KIND, API_TOKEN_KIND, ...principalKinds]);
  const sessions = new SessionStore(store, reads);
  const providers = o.providers;
  const all = [...providers.values()];
  const policies = new Map(all.flatMap((p) => (p.groups ? [[p.issuerId, p.groups] as const] : [])));
  const groupsOf = (user: Envelope) => principalGroups(policies, specOf<User>(user));
  const apiTokens = new ApiTokens({
    store,
    reads,
    registry,
    maxPerOwner: authn.max_tokens_per_owner,
    principalOf: (owner) => (owner.kind === userKind.kind ? groupsOf(owner) : {}),
  });
  const authenticator = new TokenAuthenticator({
    apiTokens,
    tokens,
    sessions,
    store,
    reads,
    userKind,
    ...(policies.size ? { groupsOf } : {}),
    // only with providers configured: decoding every bearer token for its issuer costs
    ...(all.length > 0
      ? {
          providerToken: async (token: string) => {
            const issuer = unverifiedIssuer(token);
            const p = all.find((x) => x.acceptsTokenFrom(issuer));
            if (!p) return undefined;
            const id = await p.verifyAccessToken(token);
            const user = await principalUser(id, { store, service: o.service(), userKind });
            // the token's own groups claim, when it has one: what the provider says now
            return {
              name: user.metadata.name,
              anonymous: false,
              ...(id.expiresAt !== undefined ? { expiresAt: id.expiresAt } : {}),
              ...(p.groups && id.groups ? groupGrants(id.groups, p.groups) : groupsOf(user)),
            };
          },
        }
      : {}),
  });
  // a caller repeating a refused request must not fill the audit log (VOLUME-01)
  const audit = new AuditCoalescer({
    append: (entries) => store.appendAudit(entries),
    windowMs: durationMs(config.audit.coalesce_window),
    warn: o.warn,
  });
  const onDenied = async (p: Principal, action: string, t: AuthzTarget, reason: string) => {
    const target = {
      kind: t.kind,
      ...(t.project !== undefined ? { project: t.project } : {}),
      ...(t.name !== undefined ? { name: t.name } : {}),
    };
    // the 403 is answered even if the entry cannot be written
    await audit.record([auditDraft(p, { action: 'denied', deniedAction: action, ...target, reason })]).catch(o.warn);
  };
  const signUpLimit = authn.sign_up_rate_limit;
  const signUps = new SignUpLimit({
    perAddress: signUpLimit.per_address,
    windowMs: durationMs(signUpLimit.window),
    onLimited: () => o.metrics.signUpRateLimited.inc(),
  });
  const authorizer = new RbacAuthorizer({
    store,
    registry,
    guest: security.authorization.guest_permissions as Permission[],
    config,
    onDenied,
    signUps,
  });
  const limits = authn.login_rate_limit;
  const upstream =
    providers.size > 0 ? new UpstreamRefresher({ providers, box: o.secrets, store, service: o.service, userKind }) : undefined;
  const authService = new AuthService({
    store,
    userKind,
    passwords: o.passwords,
    sessions,
    tokens,
    refreshTtlMs,
    audit: (entries) => audit.record(entries),
    ...(upstream ? { upstream } : {}),
    limits: { perLogin: limits.per_login_and_address, perAddress: limits.per_address, windowMs: durationMs(limits.window) },
    onFailure: () => o.metrics.loginFailures.inc(),
    onRateLimited: () => o.metrics.loginRateLimited.inc(),
  });
  const cookie = { sameSite: security.cookie.same_site, secure: security.cookie.secure };
  const auth = {
    auth: authService,
    rbac: authorizer,
    userKind,
    cookie,
    enableNative: authn.providers.enable_native !== false,
    tokens: {
      tokens: apiTokens,
      registry,
      store,
      maxTtl: authn.max_token_ttl,
      maxTtlMs: durationMs(authn.max_token_ttl),
      knownScopes: new Set(registry.scopes.keys()),
    },
  };
  const external = providers.size > 0 ? { providers, auth: authService, store, userKind, cookie, stateKey: keys.loginStateKey } : undefined;
  return { authenticator, authorizer, auth, ...(external ? { external } : {}), sessions, apiTokens, audit };
}
