import type { ApiClient } from './api-client.js';
import { CliError } from './errors.js';

/** What `GET /api/config` tells about authentication. */
export interface AuthInfo {
  enabled: boolean;
  native: boolean;
  /** slug -> `oidc` or `oauth`. */
  providers: Map<string, 'oidc' | 'oauth'>;
}

/** Whether the server authenticates, and how (anonymous `GET /api/config`, as Perses serves it). */
export async function authInfo(api: ApiClient): Promise<AuthInfo> {
  const { body } = await api.call('GET', '/api/config', { auth: false });
  const security = body?.security ?? {};
  const p = security.authentication?.providers ?? {};
  const providers = new Map<string, 'oidc' | 'oauth'>();
  for (const kind of ['oidc', 'oauth'] as const)
    for (const x of Array.isArray(p[kind]) ? p[kind] : []) if (x?.slug_id) providers.set(String(x.slug_id), kind);
  return { enabled: security.enable_auth === true, native: p.enable_native !== false, providers };
}

/** `/api/auth/providers/{oidc|oauth}/{slug}`, or a clear error naming the providers the server has. */
export function providerPath(info: AuthInfo, slug: string): string {
  const kind = info.providers.get(slug);
  if (!kind) {
    const known = [...info.providers.keys()];
    throw new CliError(
      `the server has no identity provider "${slug}"${known.length ? `; it has ${known.join(', ')}` : ' (none is configured)'}`,
    );
  }
  return `/api/auth/providers/${kind}/${encodeURIComponent(slug)}`;
}
