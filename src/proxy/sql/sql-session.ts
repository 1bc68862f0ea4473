import type pg from 'pg';
import { ApiError } from '../../errors.js';
import { CappedQuery, type CappedResult } from './capped-query.js';
import type { SqlLimits } from './sql-settings.js';
import type { PooledClient } from './sql-pools.js';

/** How long after the statement timeout a silent database connection is given up. */
const STALL_GRACE_MS = 5_000;

/** Ends the transaction and resets the session (DISCARD ALL cannot share a simple query with ROLLBACK: it would run in a transaction block). */
async function reset(client: pg.PoolClient): Promise<void> {
  await client.query('ROLLBACK');
  await client.query('DISCARD ALL');
}

/** Ends a query early from outside: `abort` is called when the caller goes away. */
export interface QueryCut {
  onAbort(listener: () => void): () => void;
}

/**
 * Runs one statement read-only on a pooled connection: `BEGIN TRANSACTION READ ONLY` with the
 * statement and idle-in-transaction timeouts set for the transaction (whatever the session or
 * `postgres.options` set), the statement (CappedQuery: one statement, rows and bytes capped),
 * then `ROLLBACK; DISCARD ALL`: nothing is committed, and no session state (settings, advisory
 * locks, prepared statements, LISTEN) outlives the request. A connection that failed, was cut by
 * the byte cap, stalled past the timeout or lost its caller is closed, never reused.
 */
export async function readOnlyQuery(
  c: PooledClient<pg.PoolClient>,
  text: string,
  limits: SqlLimits,
  cut?: QueryCut,
): Promise<CappedResult> {
  const { client } = c;
  const ms = Math.max(1, Math.floor(limits.statementTimeoutMs));
  const kill = () => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  let discard = true;
  let cancelled = false;
  let stalled = false;
  const ignore = () => undefined;
  // errors of a connection in use also reach its query; without a listener they would be thrown
  client.on('error', ignore);
  const stall = setTimeout(() => {
    stalled = true;
    kill();
  }, ms + STALL_GRACE_MS);
  stall.unref();
  const stopListening = cut?.onAbort(() => {
    cancelled = true;
    kill();
  });
  try {
    await client.query(
      `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${ms}; SET LOCAL idle_in_transaction_session_timeout = ${ms}`,
    );
    const q = new CappedQuery(text, limits.maxRows, limits.maxBytes);
    let result: CappedResult;
    try {
      result = await client.query(q).done;
    } catch (e) {
      // the server refused the statement: the transaction is aborted, the connection still usable
      if (!cancelled) await reset(client).then(() => (discard = false), ignore);
      throw e;
    }
    if (!q.connectionDestroyed) {
      await reset(client);
      discard = false;
    }
    return result;
  } catch (e) {
    if (cancelled) throw new ApiError('BadRequest', 'the request was cancelled by the client');
    if (stalled) throw new ApiError('GatewayTimeout', 'the database did not answer within proxy.sql.statement_timeout');
    throw e;
  } finally {
    clearTimeout(stall);
    stopListening?.();
    client.removeListener('error', ignore);
    c.release(discard);
  }
}
