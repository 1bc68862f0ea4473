import type { IncomingHttpHeaders } from 'node:http';

/** Never forwarded in either direction (RFC 9110 hop-by-hop, plus proxy credentials). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** Caller headers that must not reach the upstream: our credentials, and forwarding claims a client could spoof. */
const REQUEST_DROP = new Set(['host', 'authorization', 'cookie', 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded-prefix', 'x-real-ip', 'via', 'content-length', 'expect']);
/** Upstream headers the caller must not get: cookies for our origin, and framing we set ourselves. */
const RESPONSE_DROP = new Set(['set-cookie', 'set-cookie2', 'content-length', 'content-security-policy', 'x-content-type-options']);

/** Headers named in a Connection header are hop-by-hop too. */
function connectionTokens(headers: IncomingHttpHeaders | Record<string, unknown>): Set<string> {
  const v = headers.connection;
  return new Set(String(Array.isArray(v) ? v.join(',') : (v ?? '')).split(',').map((t) => t.trim().toLowerCase()).filter(Boolean));
}

/**
 * What goes upstream: the caller's headers minus hop-by-hop, credentials and forwarding claims,
 * then the datasource's configured headers (never an Authorization), then the secret's
 * Authorization.
 */
export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, configured: Record<string, string> | undefined, authorization: string | undefined): Record<string, string> {
  const drop = connectionTokens(incoming);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const n = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(n) || REQUEST_DROP.has(n) || drop.has(n)) continue;
    out[n] = Array.isArray(value) ? value.join(', ') : value;
  }
  for (const [name, value] of Object.entries(configured ?? {})) {
    const n = name.toLowerCase();
    if (n === 'authorization' || HOP_BY_HOP.has(n) || n === 'host' || n === 'cookie') continue;
    out[n] = String(value);
  }
  if (authorization) out.authorization = authorization;
  out.via = '1.1 dashplane';
  return out;
}

/** What the caller gets: upstream headers minus hop-by-hop and Set-Cookie, plus our sandboxing. */
export function callerResponseHeaders(upstream: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const drop = connectionTokens(upstream);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream)) {
    const n = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(n) || RESPONSE_DROP.has(n) || drop.has(n)) continue;
    out[n] = value;
  }
  out['x-content-type-options'] = 'nosniff';
  out['content-security-policy'] = 'sandbox';
  return out;
}
