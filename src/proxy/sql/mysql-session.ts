import type { Connection } from 'mysql2';
import { ApiError } from '../../errors.js';
import type { CappedResult } from './capped-query.js';
import { cappedMysqlQuery } from './mysql-capped-query.js';
import type { MysqlClient } from './mysql-pool.js';
import type { SqlLimits } from './sql-settings.js';
import type { QueryCut } from './sql-session.js';
import type { PooledClient } from './sql-pools.js';

/** How long after the statement timeout a statement the server did not stop is killed from outside. */
const KILL_GRACE_MS = 1_000;

/** What a MySQL session needs besides the limits. */
export interface MysqlSessionOptions {
  /** Session variables from `params` (name, SQL value; checked by mysql-params.ts). */
  variables: readonly [string, string][];
  /** Longest the connection may stay silent while a statement waits (the datasource's readTimeout or writeTimeout). */
  silenceMs?: number;
}

/** Why a statement was stopped from outside. */
type Stop = 'cancelled' | 'stalled' | 'silent';

/** The server's greeting version as [MariaDB?, major, minor, patch] (MariaDB 10.x greets as "5.5.5-10.11.19-MariaDB..."). */
function flavor(serverVersion: string): [boolean, number, number, number] {
  const m = /^(?:5\.5\.5-)?(\d+)\.(\d+)\.(\d+)/.exec(serverVersion) ?? [];
  return [/mariadb/i.test(serverVersion), Number(m[1] ?? 0), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

/**
 * The `SET SESSION` that starts each query on a server of version `serverVersion` (its greeting):
 * the session read-only (so that a statement that commits implicitly, DDL, finds the next
 * transaction read-only too), the statement timeout (MariaDB's max_statement_time, in seconds,
 * covers every statement; MySQL's max_execution_time, in ms, only SELECT), UTC for TIMESTAMP
 * values, then the datasource's variables.
 */
export function sessionSql(serverVersion: string, timeoutMs: number, variables: readonly [string, string][]): string {
  const [mariadb, major, minor, patch] = flavor(serverVersion);
  const at = (a: number, b: number, c = 0) => major > a || (major === a && (minor > b || (minor === b && patch >= c)));
  const readOnly = (mariadb ? at(11, 1) : at(5, 7, 20)) ? 'transaction_read_only' : 'tx_read_only';
  const timeout = mariadb ? `max_statement_time = ${(timeoutMs / 1000).toFixed(3)}` : `max_execution_time = ${Math.ceil(timeoutMs)}`;
  return [
    "SET SESSION time_zone = '+00:00'",
    `SESSION ${readOnly} = 1`,
    `SESSION ${timeout}`,
    ...variables.map(([n, v]) => `SESSION ${n} = ${v}`),
  ].join(', ');
}

/** Runs a statement without rows; rejects with the server's error. */
const run = (c: Connection, sql: string) =>
  new Promise<void>((resolve, reject) => c.query(sql, (e: unknown) => (e ? reject(e) : resolve())));
/** COM_RESET_CONNECTION: rolls back, drops temporary tables, releases locks (GET_LOCK), clears user and session variables and prepared statements. */
const reset = (c: Connection) => new Promise<void>((resolve, reject) => c.reset((e) => (e ? reject(e) : resolve())));
/** An error of the server about the statement (the connection is still usable), not of the connection. */
const statementError = (e: unknown) => typeof (e as { sqlState?: unknown }).sqlState === 'string' && !(e as { fatal?: boolean }).fatal;

/**
 * Runs one statement read-only on a pooled MySQL or MariaDB connection: `SET SESSION` (read-only,
 * the timeout, UTC, the datasource's variables: `sessionSql`), `START TRANSACTION READ ONLY`, the
 * statement (cappedMysqlQuery: one statement, rows and bytes capped), then COM_RESET_CONNECTION:
 * nothing is committed and no session state (variables, locks, temporary tables) outlives the
 * request. A statement still running `KILL_GRACE_MS` after the timeout (a server whose limit does
 * not cover it: MySQL's applies to SELECT only), or whose caller went away, or silent past
 * `silenceMs`, is stopped with KILL QUERY on another connection and its connection closed. A
 * connection that failed or was cut by a cap is closed, never reused. The server's refusal of
 * the SET (a variable of `params` it does not know) is marked `setup: true` for mysql-errors.ts.
 */
export async function readOnlyMysqlQuery(
  c: PooledClient<MysqlClient>,
  text: string,
  limits: SqlLimits,
  o: MysqlSessionOptions,
  cut?: QueryCut,
): Promise<CappedResult> {
  const conn = c.client.connection;
  const ms = Math.max(1, Math.floor(limits.statementTimeoutMs));
  const socket = (conn as unknown as { stream: { setTimeout(ms: number, cb?: () => void): void; destroy(): void } }).stream;
  let discard = true;
  let stopped: Stop | undefined;
  let killed: Promise<void> | undefined;
  const stop = (why: Stop) => {
    if (stopped) return;
    stopped = why;
    // the socket, not mysql2's destroy(): that one marks the connection closing, and its statement is then never told
    socket.destroy();
    killed = c.client.kill();
  };
  const stall = setTimeout(() => stop('stalled'), ms + KILL_GRACE_MS);
  stall.unref();
  const stopListening = cut?.onAbort(() => stop('cancelled'));
  if (o.silenceMs) socket.setTimeout(o.silenceMs, () => stop('silent'));
  try {
    const setup = sessionSql(
      (conn as unknown as { _handshakePacket?: { serverVersion?: string } })._handshakePacket?.serverVersion ?? '',
      ms,
      o.variables,
    );
    await run(conn, setup).catch((e) => {
      throw statementError(e) ? Object.assign(e, { setup: true }) : e;
    });
    await run(conn, 'START TRANSACTION READ ONLY');
    const result = await cappedMysqlQuery(conn, text, limits.maxRows, limits.maxBytes);
    if (!result.connectionDestroyed) {
      await reset(conn);
      discard = false;
    }
    return { columns: result.columns, rows: result.rows, ...(result.cut ? { cut: result.cut } : {}) };
  } catch (e) {
    // the server refused the statement: the connection is usable once reset
    if (!stopped && statementError(e))
      await reset(conn).then(
        () => (discard = false),
        () => undefined,
      );
    if (stopped === 'cancelled') throw new ApiError('BadRequest', 'the request was cancelled by the client');
    if (stopped === 'stalled')
      throw new ApiError(
        'GatewayTimeout',
        'the query ran past proxy.sql.statement_timeout and the database did not stop it: it was stopped with KILL QUERY',
      );
    if (stopped === 'silent')
      throw new ApiError(
        'GatewayTimeout',
        "the database sent nothing within the datasource's readTimeout (or writeTimeout): the query was stopped with KILL QUERY",
      );
    throw e;
  } finally {
    clearTimeout(stall);
    stopListening?.();
    if (!stopped) socket.setTimeout(0);
    await killed;
    c.release(discard);
  }
}
