import type * as oidc from 'openid-client';
import { isObj } from '../lib/is-obj.js';

/**
 * How long a device code is polled for when the provider's answer gives no `expires_in` (RFC 8628
 * requires it; some providers leave it out, and Perses relays their answer as it is). dashctl
 * assumes the same.
 */
const DEVICE_CODE_DEFAULT_TTL_S = 600;

/**
 * The fetch of an identity provider's configuration, reading provider answers as Perses (Go's
 * oauth2) reads them, where the OAuth library would refuse them although nothing is at stake:
 * - a token answer whose `token_type` is missing or neither Bearer nor DPoP (`"bearer"`,
 *   `"token"`, a provider's own word): the token is used as a Bearer token, which is how it is
 *   presented to the provider's own user info endpoint;
 * - an OAuth error answered with status 200 (GitHub does, e.g. `authorization_pending` while a
 *   device code is polled): read as the error it is;
 * - a device authorization answer without `expires_in`: DEVICE_CODE_DEFAULT_TTL_S.
 * Every other check (issuer, audience, nonce, signatures, PKCE, state) is the library's, unchanged.
 */
export const lenientFetch: oidc.CustomFetch = (url, options) => lenientFetchVia(fetch, url, options);

/** lenientFetch through another fetch (one with its own TLS settings). */
export async function lenientFetchVia(base: typeof fetch, url: string, options: oidc.CustomFetchOptions): Promise<Response> {
  const res = await base(url, options as RequestInit);
  if (res.status !== 200 || !/\bjson\b/i.test(res.headers.get('content-type') ?? '')) return res;
  const body: unknown = await res
    .clone()
    .json()
    .catch(() => undefined);
  if (!isObj(body)) return res;
  if (typeof body.access_token === 'string' && !(typeof body.token_type === 'string' && /^(bearer|dpop)$/i.test(body.token_type))) {
    return answer(res, 200, { ...body, token_type: 'Bearer' });
  }
  if (typeof body.error === 'string' && body.access_token === undefined) return answer(res, 400, body);
  if (typeof body.device_code === 'string' && typeof body.user_code === 'string' && body.expires_in === undefined) {
    return answer(res, 200, { ...body, expires_in: DEVICE_CODE_DEFAULT_TTL_S });
  }
  return res;
}

/** `res` with another status and JSON body (its length and encoding headers dropped: the body is new). */
function answer(res: Response, status: number, body: unknown): Response {
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(JSON.stringify(body), { status, headers });
}
