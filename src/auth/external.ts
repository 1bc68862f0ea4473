/**
 * The configured identity providers (security.authentication.providers): each an OidcProvider or
 * an OAuthProvider, both ExternalProviders (provider.ts).
 */
import { readFileSync } from 'node:fs';
import type { OAuthProviderConfig, OIDCProviderConfig } from '../kinds/generated/types.js';
import { OAuthProvider } from './oauth-provider.js';
import { OidcProvider } from './oidc-provider.js';
import type { ExternalProvider, ProviderKind } from './provider.js';

/** Hosts where a provider may be reached over plain http (a provider on this machine, as in tests). */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** Validates the provider list at start: unique slugs, URLs, a readable secret file. */
export function buildProviders(
  oidcList: readonly OIDCProviderConfig[] = [],
  oauthList: readonly OAuthProviderConfig[] = [],
): Map<string, ExternalProvider> {
  const out = new Map<string, ExternalProvider>();
  const add = (
    kind: ProviderKind,
    c: OIDCProviderConfig | OAuthProviderConfig,
    urls: readonly string[],
    where: string,
    make: () => ExternalProvider,
  ) => {
    if (out.has(`${kind}/${c.slug_id}`)) throw new Error(`${where}: slug_id "${c.slug_id}" is used twice`);
    if (c.client_secret && c.client_secret_file) throw new Error(`${where}: set client_secret or client_secret_file, not both`);
    if (c.client_secret_file) {
      try {
        readFileSync(c.client_secret_file, 'utf8');
      } catch (e) {
        throw new Error(`${where}.client_secret_file: ${(e as Error).message}`);
      }
    }
    for (const u of urls) {
      const url = new URL(u);
      if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
        throw new Error(`${where}: ${u} must use https (http is only accepted for loopback addresses)`);
    }
    out.set(`${kind}/${c.slug_id}`, make());
  };
  oidcList.forEach((c, i) => {
    const where = `security.authentication.providers.oidc[${i}]`;
    add('oidc', c, [c.issuer], where, () => new OidcProvider(c, where));
  });
  oauthList.forEach((c, i) => {
    const where = `security.authentication.providers.oauth[${i}]`;
    add('oauth', c, [c.auth_url, c.token_url, c.user_infos_url], where, () => new OAuthProvider(c, where));
  });
  return out;
}
