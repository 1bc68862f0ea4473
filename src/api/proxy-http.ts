import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { CachePolicies } from '../proxy/cache-policies.js';
import type { Credentials } from '../proxy/credentials.js';
import { callerResponseHeaders, upstreamRequestHeaders } from '../proxy/headers.js';
import type { OAuthTokens } from '../proxy/oauth-tokens.js';
import { proxySuffix, upstreamUrl } from '../proxy/path.js';
import { checkAllowed, type HttpPlan } from '../proxy/plan.js';
import type { QueryCache, Served } from '../proxy/query-cache.js';
import { sharedRequest } from '../proxy/shared-request.js';
import { callerGone, cancelledByCaller, Cut, type Upstream, type UpstreamResponse } from '../proxy/upstream.js';
import { CACHE_HEADER } from './headers.js';
import type { Metrics } from './metrics.js';

/** What the HTTP proxy uses besides the request. */
export interface HttpProxyParts {
  upstream: Upstream;
  tokens: OAuthTokens;
  metrics?: Metrics;
  /** The query cache and its settings per datasource (absent: every request goes upstream as it came). */
  cache?: { answers: QueryCache; policies: CachePolicies };
}

/** One request to an HTTP datasource, as the proxy routes hand it over. */
export interface HttpCall {
  plan: HttpPlan;
  /** The datasource as its URLs name it (`projects/demo/datasources/prom`); none for one being edited, whose answers are never shared. */
  datasource?: string;
  /** For the proxy metrics: kind/project/name. */
  label: string;
  method: string;
  /** Raw (still encoded) path after the datasource name. */
  suffix: string;
  query: string;
  body?: Readable;
  /** The caller's headers to filter and forward. */
  headers: IncomingHttpHeaders;
  /** The credentials of the datasource's Secret (none: `{identity: ''}`). */
  credentials(): Promise<Credentials>;
}

/**
 * The HTTP proxy: the path checked against the datasource's rules, then the request sent upstream
 * with the Secret's credentials, through the query cache when it may be shared (see
 * sharedRequest), the answer streamed back with the response-header rules and X-Dashplane-Cache.
 */
export async function forwardHttp(o: HttpProxyParts, x: HttpCall, req: FastifyRequest, reply: FastifyReply) {
  const suffix = proxySuffix(x.suffix);
  checkAllowed(x.plan, x.method, suffix.decoded);
  const credentials = await x.credentials();
  const caller = new Cut();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) caller.abort(callerGone());
  });
  const send = async (cut: Cut, query: string, body: Readable | undefined): Promise<UpstreamResponse> => {
    const started = performance.now();
    const observe = (status: string) => o.metrics?.observeProxy(x.label, status, (performance.now() - started) / 1000);
    const { oauth } = credentials;
    let res: UpstreamResponse;
    try {
      const authorization = oauth
        ? await o.tokens.authorization(oauth, credentials.tls, (fields, msg) => req.log.warn(fields, msg))
        : credentials.authorization;
      res = await o.upstream.send(upstreamUrl(x.plan.proxy.url, suffix.raw, query), {
        method: x.method,
        headers: upstreamRequestHeaders(x.headers, x.plan.proxy.headers, authorization),
        ...(body ? { body } : {}),
        ...(credentials.tls ? { tls: credentials.tls } : {}),
        cut,
      });
    } catch (e) {
      observe(cancelledByCaller(cut) ? 'cancelled' : ((e as { reason?: string }).reason ?? 'error'));
      throw e;
    }
    observe(String(res.statusCode));
    // a token the datasource refuses (revoked before it expired) is not used again
    if (oauth && res.statusCode === 401) o.tokens.forget(oauth);
    return res;
  };
  const cache = o.cache;
  const policy = cache && x.datasource !== undefined ? cache.policies.of(x.datasource) : undefined;
  const shared = policy
    ? await sharedRequest({
        datasource: x.datasource!,
        plan: x.plan,
        policy,
        credentials: credentials.identity,
        method: x.method,
        suffix,
        query: x.query,
        headers: x.headers,
        ...(x.body ? { body: x.body } : {}),
      })
    : undefined;
  let served: Served;
  if (!cache || !policy || !shared) {
    served = { cache: 'miss', alone: await send(caller, x.query, x.body) };
    return answer(o, x, reply, served, 'bypass');
  }
  served = await cache.answers.serve({
    key: shared.key,
    ttlMs: policy.ttlMs,
    caller,
    send: (cut) => send(cut, shared.query, shared.body && Readable.from([shared.body])),
  });
  return answer(o, x, reply, served, served.cache);
}

/** Sends what the caller gets: an answer held whole (a kept one with its Age, RFC 9111), or the upstream's streamed. */
function answer(o: HttpProxyParts, x: HttpCall, reply: FastifyReply, served: Served, cache: Served['cache'] | 'bypass') {
  o.metrics?.countProxyCache(x.label, cache);
  if ('answer' in served) {
    if (served.ageMs !== undefined) void reply.header('age', String(Math.floor(served.ageMs / 1000)));
    return reply.code(served.answer.status).headers(served.answer.headers).header(CACHE_HEADER, cache).send(served.answer.body);
  }
  const res = served.alone;
  res.body.on('error', () => reply.raw.destroy());
  return reply.code(res.statusCode).headers(callerResponseHeaders(res.statusCode, res.headers)).header(CACHE_HEADER, cache).send(res.body);
}
