import type { IncomingHttpHeaders } from 'node:http';

/** Never forwarded in either direction (RFC 9110 hop-by-hop, plus proxy credentials). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/**
 * The only caller headers that go upstream: content negotiation, the body's description, cache
 * validators and ranges, and W3C trace context. Everything else stays here: our credentials and
 * cookies, identity claims an auth proxy in front of the upstream would trust (X-Forwarded-User,
 * X-Remote-User, ...), client-address claims (X-Real-IP, True-Client-IP, Forwarded, ...) and
 * method or path overrides that would get around allowedEndpoints (X-HTTP-Method-Override,
 * X-Original-URL, ...). Headers an upstream needs on every request (X-Scope-OrgID, ...) belong in
 * the datasource's configured headers.
 */
const REQUEST_ALLOW = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'content-encoding',
  'content-language',
  'user-agent',
  'cache-control',
  'pragma',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'range',
  'if-range',
  'traceparent',
  'tracestate',
]);
/** Configured headers the proxy sets itself or never sends (credentials come from the Secret). */
const CONFIGURED_SKIP = new Set([...HOP_BY_HOP, 'authorization', 'cookie', 'host', 'content-length', 'expect', 'via']);
/**
 * Upstream headers the caller must not get, because our origin would obey them: cookies and
 * site-data clearing, CORS grants that would let other sites read proxied data with the user's
 * session, HSTS and Alt-Svc (they would redirect or pin our origin), Refresh and Link (navigation,
 * preloads, style sheets), WWW-Authenticate (a password prompt in our origin's name), reporting
 * and network-error-logging endpoints, client-hint and service-worker scope grants; plus framing
 * and sandboxing we set ourselves.
 */
const RESPONSE_DROP = new Set([
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'strict-transport-security',
  'public-key-pins',
  'public-key-pins-report-only',
  'alt-svc',
  'refresh',
  'link',
  'www-authenticate',
  'nel',
  'report-to',
  'reporting-endpoints',
  'content-security-policy-report-only',
  'accept-ch',
  'critical-ch',
  'service-worker-allowed',
  'timing-allow-origin',
  'origin-agent-cluster',
  'content-security-policy',
  'x-content-type-options',
]);
/** Upstream header families dropped by prefix: CORS grants and cross-origin isolation policies. */
const RESPONSE_DROP_PREFIXES = ['access-control-', 'cross-origin-'];

/** Headers named in a Connection header are hop-by-hop too. */
function connectionTokens(headers: IncomingHttpHeaders | Record<string, unknown>): Set<string> {
  const v = headers.connection;
  return new Set(
    String(Array.isArray(v) ? v.join(',') : (v ?? ''))
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * What goes upstream: the allow-listed caller headers (minus any named in Connection), then the
 * datasource's configured headers (never an Authorization, cookie or framing header), then the
 * secret's Authorization and our Via.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  configured: Record<string, string> | undefined,
  authorization: string | undefined,
): Record<string, string> {
  const drop = connectionTokens(incoming);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const n = name.toLowerCase();
    if (value === undefined || !REQUEST_ALLOW.has(n) || drop.has(n)) continue;
    out[n] = Array.isArray(value) ? value.join(', ') : value;
  }
  for (const [name, value] of Object.entries(configured ?? {})) {
    const n = name.toLowerCase();
    if (CONFIGURED_SKIP.has(n)) continue;
    out[n] = value;
  }
  if (authorization) out.authorization = authorization;
  out.via = '1.1 dashplane';
  return out;
}

/**
 * Types a browser never runs as script, applies as style or renders as a document of our origin:
 * with `nosniff` a `<script src>` or a style sheet of these is refused, and a page opening one
 * shows data. What datasources answer: JSON (Prometheus, Loki, Tempo), protobuf, plain text,
 * metrics text, event streams, raster images. Types ending in `+json` are passive too.
 */
const PASSIVE_TYPES = new Set([
  'application/json',
  'application/x-ndjson',
  'application/jsonl',
  'application/stream+json',
  'text/plain',
  'text/csv',
  'text/tab-separated-values',
  'text/event-stream',
  'application/openmetrics-text',
  'application/octet-stream',
  'application/protobuf',
  'application/x-protobuf',
  'application/vnd.google.protobuf',
  'application/grpc',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
]);
/** A media type's essence (type/subtype, RFC 9110 tokens), lower case. */
const ESSENCE_RE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Whether an upstream Content-Type may reach the caller as it is: one value whose essence is a
 * passive type. Script, style and document types (HTML, XHTML, SVG, XML, JavaScript, CSS, PDF),
 * unknown, malformed and repeated values are not: a page of our origin must never load an
 * upstream's answer as code, whatever the upstream calls it.
 */
function passiveType(value: string | string[] | undefined): boolean {
  if (typeof value !== 'string') return false;
  const essence = value.split(';', 1)[0].trim().toLowerCase();
  return ESSENCE_RE.test(essence) && (PASSIVE_TYPES.has(essence) || essence.endsWith('+json'));
}

/** Statuses that have no body: a missing Content-Type is right there. */
const NO_BODY = new Set([204, 304]);

/**
 * What the caller gets: upstream headers minus hop-by-hop and those our origin must not obey
 * (Content-Length passes: the body is passed on unchanged), plus our own: `nosniff`, a sandbox
 * CSP, `Cross-Origin-Resource-Policy: same-origin`, and for any answer whose type is not passive
 * (missing included) `application/octet-stream` with `Content-Disposition: attachment`: the bytes
 * are the upstream's, but no browser runs, applies or renders them on the UI origin.
 */
export function callerResponseHeaders(
  status: number,
  upstream: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const drop = connectionTokens(upstream);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream)) {
    const n = name.toLowerCase();
    if (
      value === undefined ||
      HOP_BY_HOP.has(n) ||
      RESPONSE_DROP.has(n) ||
      drop.has(n) ||
      RESPONSE_DROP_PREFIXES.some((p) => n.startsWith(p))
    )
      continue;
    out[n] = value;
  }
  if (!passiveType(out['content-type']) && !(out['content-type'] === undefined && NO_BODY.has(status))) {
    out['content-type'] = 'application/octet-stream';
    out['content-disposition'] = 'attachment';
  }
  out['x-content-type-options'] = 'nosniff';
  out['content-security-policy'] = 'sandbox';
  out['cross-origin-resource-policy'] = 'same-origin';
  return out;
}

/**
 * Forwarded caller headers that may change an answer: they are part of a shared request's key
 * (an answer gzipped for one caller never reaches one that did not ask for gzip). The other
 * forwarded ones (User-Agent, trace context, Cache-Control, Pragma) do not change what a datasource
 * answers; a request with a conditional or range header is never shared.
 */
const KEYED_REQUEST = ['accept', 'accept-encoding', 'accept-language', 'content-type', 'content-language'];
/** Caller headers whose requests go upstream alone: partial and conditional requests, and a body's encoding the proxy cannot read. */
const UNSHARED_REQUEST = ['range', 'if-range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'content-encoding'];

/** The keyed headers of a request, as one text for its key; undefined when the request must not be shared (see UNSHARED_REQUEST, and Cache-Control or Pragma no-cache). */
export function sharedRequestHeaders(incoming: IncomingHttpHeaders): string | undefined {
  for (const n of UNSHARED_REQUEST) if (incoming[n] !== undefined) return undefined;
  if (
    /\b(?:no-cache|no-store|max-age=0)\b/i.test(String(incoming['cache-control'] ?? '')) ||
    /\bno-cache\b/i.test(String(incoming.pragma ?? ''))
  )
    return undefined;
  let out = '';
  for (const n of KEYED_REQUEST) {
    const v = incoming[n];
    if (v !== undefined) out += `${n}:${Array.isArray(v) ? v.join(', ') : v}\n`;
  }
  return out;
}

/** Forwarded caller headers that are not keyed: an answer varying on one of them is not shared. */
const UNKEYED_FORWARDED = new Set([...REQUEST_ALLOW].filter((n) => !KEYED_REQUEST.includes(n)));

/**
 * Whether an upstream answer may be shared with the other callers of the same request, and for
 * how long it may be kept (at most `ttlMs`): only a 200, without Set-Cookie, not an event stream
 * (it never ends: it is streamed as it comes), not `private` or `no-store`, not varying on a
 * header outside the key; `no-cache` or `max-age=0` shares it with the callers waiting but keeps
 * nothing, and a shorter `s-maxage` or `max-age` keeps it less long.
 */
export function answerSharing(
  status: number,
  upstream: Record<string, string | string[] | undefined>,
  ttlMs: number,
): { share: boolean; keepMs: number } {
  const no = { share: false, keepMs: 0 };
  if (status !== 200 || upstream['set-cookie'] !== undefined) return no;
  if (/^\s*text\/event-stream\b/i.test(String(upstream['content-type'] ?? ''))) return no;
  const cc = String(upstream['cache-control'] ?? '').toLowerCase();
  if (/\b(?:private|no-store)\b/.test(cc)) return no;
  const vary = String(upstream.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  if (vary.some((v) => v === '*' || UNKEYED_FORWARDED.has(v))) return no;
  if (/\bno-cache\b/.test(cc)) return { share: true, keepMs: 0 };
  const age = /\bs-maxage=(\d+)/.exec(cc) ?? /\bmax-age=(\d+)/.exec(cc);
  return { share: true, keepMs: age ? Math.min(ttlMs, Number(age[1]) * 1000) : ttlMs };
}
