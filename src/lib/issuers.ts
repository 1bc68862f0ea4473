/** The identity providers of a configuration, as far as the issuers their users are bound to go. */
interface Providers {
  authentication?: { providers?: { oidc?: readonly { issuer: string }[]; oauth?: readonly { auth_url: string }[] } };
}

/** The issuer users of a plain OAuth 2.0 provider are bound to: its authorization server's origin. */
export function oauthIssuer(c: { auth_url: string }): string {
  return new URL(c.auth_url).origin;
}

/** The issuers of every configured identity provider (OIDC: `issuer`; OAuth: see oauthIssuer), as users are bound to them. */
export function configuredIssuers(security: Providers | undefined): string[] {
  const providers = security?.authentication?.providers;
  return [...(providers?.oidc ?? []).map((c) => c.issuer), ...(providers?.oauth ?? []).map(oauthIssuer)];
}
