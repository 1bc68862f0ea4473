import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { type AlignKind, alignParams, sortedParams } from './align.js';
import type { CachePolicy } from './cache-policies.js';
import { sharedRequestHeaders } from './headers.js';
import { type HttpPlan, queryRule } from './plan.js';

/** The longest form body read to key a request: a longer one goes upstream as it came, unshared. */
export const MAX_KEYED_FORM_BYTES = 64 * 1024;

const FORM_RE = /^application\/x-www-form-urlencoded\s*(?:;.*)?$/i;

/** A request to a datasource, as the proxy received it (its path checked). */
export interface ProxiedRequest {
  /** The datasource, as its URLs name it (`projects/demo/datasources/prom`). */
  datasource: string;
  plan: HttpPlan;
  policy: CachePolicy;
  /** The identity of the credentials sent with it (Credentials.identity; '' for none). */
  credentials: string;
  method: string;
  /** The path after the datasource name: raw (as sent upstream) and decoded (as rules match it). */
  suffix: { raw: string; decoded: string };
  /** The query string, without "?". */
  query: string;
  headers: IncomingHttpHeaders;
  body?: Readable;
}

/** A request that may be shared: its key, and the query (and form body) to send upstream for everyone sharing it. */
export interface SharedRequest {
  key: string;
  query: string;
  body?: Buffer;
}

/**
 * The shared form of a request, or undefined when it goes upstream alone: a GET, or a POST with a
 * form body (at most MAX_KEYED_FORM_BYTES) to a query call its datasource's kind declares, without
 * a conditional, range or no-cache header. A declared query call's parameters are sorted and, when
 * the policy aligns, aligned (so the request sent upstream is that one); another GET's query string
 * is kept as it came. The key holds everything the answer depends on: the datasource, its URL,
 * headers and Secret, the credentials' identity, the method, path, parameters, form body and the
 * headers that change an answer (never who the caller is: permission is checked before this).
 */
export async function sharedRequest(r: ProxiedRequest): Promise<SharedRequest | undefined> {
  if (!r.policy.enable) return undefined;
  const headers = sharedRequestHeaders(r.headers);
  if (headers === undefined) return undefined;
  const rule = queryRule(r.plan, r.method, r.suffix.decoded);
  if (r.method !== 'GET' && !(r.method === 'POST' && rule)) return undefined;
  const align = r.policy.align ? rule?.align : undefined;
  const query = rule ? normalised(r.query, align, r.policy.resolutionMs) : r.query;
  let body: Buffer | undefined;
  if (r.method === 'POST') {
    const length = Number(r.headers['content-length'] ?? (r.body ? Number.NaN : 0));
    if (!FORM_RE.test(String(r.headers['content-type'] ?? '')) || !(length <= MAX_KEYED_FORM_BYTES)) return undefined;
    body = Buffer.from(normalised(r.body ? await readAll(r.body) : '', align, r.policy.resolutionMs));
  }
  const key = JSON.stringify([
    r.datasource,
    r.plan.upstream,
    r.credentials,
    r.method,
    r.suffix.raw,
    query,
    body?.toString() ?? null,
    headers,
  ]);
  return { key, query, ...(body ? { body } : {}) };
}

/** Parameters sorted by name, their times aligned when `align` says which. */
function normalised(text: string, align: AlignKind | undefined, resolutionMs: number): string {
  const params = new URLSearchParams(text);
  if (align) alignParams(params, align, resolutionMs);
  return sortedParams(params);
}

/** A request body (its length already bounded by Content-Length) as text. */
async function readAll(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
