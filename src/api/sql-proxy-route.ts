import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError, badRequest } from '../errors.js';
import { isObj } from '../lib/is-obj.js';
import type { Credentials } from '../proxy/credentials.js';
import { callerResponseHeaders } from '../proxy/headers.js';
import type { SqlPlan } from '../proxy/plan.js';
import type { PoolOwner } from '../proxy/sql/sql-pools.js';
import type { SqlProxy } from '../proxy/sql/sql-proxy.js';
import type { Metrics } from './metrics.js';

/** The largest request body of an SQL query. */
const MAX_QUERY_BYTES = 1024 * 1024;

/** One request to an SQL datasource, as the proxy routes hand it over. */
export interface SqlExchange {
  plan: SqlPlan;
  method: string;
  body?: Readable;
  /** The datasource's pool; none for a datasource being edited. */
  owner?: PoolOwner;
  /** The credentials of the Secret the datasource names (undefined when it names none), and its label for messages. */
  credentials(): Promise<Credentials | undefined>;
  secretLabel?: string;
  /** For the proxy metrics: kind/project/name. */
  id: string;
}

/**
 * Perses' SQL proxy route: `POST {"query": "..."}` to the datasource's proxy path answers
 * `{"columns": [{"name", "type"}], "rows": [{...}]}` (and `truncated` when a cap cut it), JSON
 * with the proxy's answer headers; any other method is 405, as in Perses.
 */
export async function answerSql(sql: SqlProxy, x: SqlExchange, reply: FastifyReply, metrics?: Metrics): Promise<FastifyReply> {
  if (x.method !== 'POST')
    throw new ApiError('MethodNotAllowed', `an SQL datasource takes POST {"query": "<SQL>"}, not ${x.method}`, undefined, {
      Allow: 'POST',
    });
  const query = await queryOf(x.body);
  const credentials = await x.credentials();
  const listeners = new Set<() => void>();
  const gone = () => {
    if (!reply.raw.writableFinished) for (const l of listeners) l();
  };
  reply.raw.once('close', gone);
  const started = performance.now();
  const observe = (status: string) => metrics?.observeProxy(x.id, status, (performance.now() - started) / 1000);
  try {
    const answer = await sql.query({
      spec: x.plan.proxy,
      query,
      ...(x.owner ? { owner: x.owner } : {}),
      ...(credentials ? { credentials } : {}),
      ...(x.secretLabel ? { secretLabel: x.secretLabel } : {}),
      cut: {
        onAbort: (l) => {
          listeners.add(l);
          return () => listeners.delete(l);
        },
      },
    });
    observe('200');
    return reply
      .code(200)
      .headers(callerResponseHeaders(200, { 'content-type': 'application/json; charset=utf-8' }))
      .send(JSON.stringify(answer));
  } catch (e) {
    observe(e instanceof ApiError ? e.reason : 'error');
    throw e;
  } finally {
    reply.raw.removeListener('close', gone);
  }
}

/** The `query` of the request body `{"query": "..."}` (read up to MAX_QUERY_BYTES, whatever its content type, as Perses reads it). */
async function queryOf(body: Readable | undefined): Promise<unknown> {
  const example = 'send {"query": "SELECT ..."}';
  if (!body) throw badRequest(`the request has no body: ${example}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_QUERY_BYTES) throw new ApiError('PayloadTooLarge', `the query body is larger than ${MAX_QUERY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw badRequest(`the request body is not JSON: ${example}`);
  }
  if (!isObj(parsed)) throw badRequest(`the request body must be a JSON object: ${example}`);
  return parsed.query;
}
