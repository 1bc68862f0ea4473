import type * as oidc from 'openid-client';
import { readFileSync } from 'node:fs';
import type { SecureVersion } from 'node:tls';
import type { OAuthProviderConfig } from '../kinds/generated/types.js';
import { parseDuration } from '../lib/duration.js';
import { lenientFetch, lenientFetchVia } from './lenient-fetch.js';

type HttpConfig = NonNullable<OAuthProviderConfig['http']>;
type TlsConfig = NonNullable<HttpConfig['tls_config']>;

const TLS_VERSIONS: Record<string, SecureVersion> = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' };

/** The timeout of each request to a provider, in seconds (openid-client's unit), when `http.timeout` sets one. */
export function providerTimeoutS(http: HttpConfig | undefined): number | undefined {
  const ms = http?.timeout === undefined ? undefined : parseDuration(http.timeout);
  return ms === undefined ? undefined : Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The fetch a provider's protocol runs on: lenientFetch, through a connection pool with the
 * provider's TLS settings (Perses' `http.tls_config`: a private CA, a client certificate, a server
 * name) when it has some. Files are read once, at the first request.
 */
export function providerFetch(http: HttpConfig | undefined): oidc.CustomFetch {
  const tls = http?.tls_config;
  if (!tls) return lenientFetch;
  let via: Promise<typeof fetch> | undefined;
  return async (url, options) => {
    via ??= tlsFetch(tls);
    return lenientFetchVia(await via, url, options);
  };
}

async function tlsFetch(tls: TlsConfig): Promise<typeof fetch> {
  const undici = await import('undici');
  const pem = (inline: string | undefined, file: string | undefined) => inline ?? (file ? readFileSync(file, 'utf8') : undefined);
  const ca = pem(tls.ca, tls.ca_file);
  const cert = pem(tls.cert, tls.cert_file);
  const key = pem(tls.key, tls.key_file);
  const agent = new undici.Agent({
    connect: {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(tls.server_name ? { servername: tls.server_name } : {}),
      ...(tls.min_version ? { minVersion: TLS_VERSIONS[tls.min_version] } : {}),
      ...(tls.max_version ? { maxVersion: TLS_VERSIONS[tls.max_version] } : {}),
      rejectUnauthorized: tls.insecure_skip_verify !== true,
    },
  });
  return ((url: string, init: RequestInit) =>
    undici.fetch(url, { ...(init as object), dispatcher: agent } as never)) as unknown as typeof fetch;
}
