import { createHash } from 'node:crypto';
import { ApiError, badRequest } from '../../errors.js';
import type { Credentials } from '../credentials.js';
import type { DeniedNetworks } from '../denied-networks.js';
import type { CappedResult } from './capped-query.js';
import { mysqlConnectionOptions } from './mysql-config.js';
import { mysqlError } from './mysql-errors.js';
import { mysqlSettings } from './mysql-params.js';
import { isMysqlNoTls, MysqlPool } from './mysql-pool.js';
import { readOnlyMysqlQuery } from './mysql-session.js';
import { postgresPoolConfig } from './pg-config.js';
import { isPgNoTls, pgPool } from './pg-pool.js';
import { sqlError } from './sql-errors.js';
import { type ObjectEvent, type PoolOwner, SqlPools } from './sql-pools.js';
import { type SqlDriver, sqlDriverOf, type SQLProxySpec } from './sql-proxy-spec.js';
import { readOnlyQuery, type QueryCut } from './sql-session.js';
import { POOL_IDLE_MS, type SqlLimits, type SqlLogin } from './sql-settings.js';
import { fileWriteKeyword, firstKeyword, READ_KEYWORDS } from './statement.js';

export interface SqlProxyOptions {
  limits: SqlLimits;
  /** proxy.sql.statement_timeout as configured, for messages. */
  statementTimeout: string;
  /** Queries in flight at once (proxy.max_concurrent); beyond, 503. */
  maxConcurrent: number;
  denied: DeniedNetworks;
  /** The store's event feed: a changed or deleted datasource or Secret closes its pool. */
  onEvent: (listener: (e: ObjectEvent) => void) => () => void;
}

/** One query through an SQL datasource. */
export interface SqlRequest {
  /** The datasource's pool; none for a datasource being edited (unsaved). */
  owner?: PoolOwner;
  spec: SQLProxySpec;
  /** Of the datasource's Secret; undefined when it names none. */
  credentials?: Credentials;
  /** The Secret as messages name it: `Secret "db"`. */
  secretLabel?: string;
  query: unknown;
  cut?: QueryCut;
}

/** Perses' answer (`columns`, `rows`), and `truncated` when a cap cut the rows short [dashplane]. */
export interface SqlAnswer {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  truncated?: { reason: 'rows' | 'bytes'; limit: number; message: string };
}

/**
 * Perses' SQL proxy (`{kind: "SQLProxy"}`) for PostgreSQL, MySQL and MariaDB: a query runs
 * read-only (sql-session.ts, mysql-session.ts) on a pool of the datasource (sql-pools.ts), logged
 * in with its Secret's basicAuth and TLS material only, on addresses the proxy's denylist allows,
 * within the statement timeout and the row and byte caps.
 */
export class SqlProxy {
  private readonly pools: SqlPools;
  private inFlight = 0;

  constructor(private readonly o: SqlProxyOptions) {
    this.pools = new SqlPools(o.onEvent);
  }

  /** Pools open now. */
  get openPools(): number {
    return this.pools.size;
  }

  async query(r: SqlRequest): Promise<SqlAnswer> {
    const driver = sqlDriverOf(r.spec);
    const text = checkedQuery(r.query, driver);
    const login = loginOf(r.credentials, r.secretLabel);
    if (this.inFlight >= this.o.maxConcurrent)
      throw new ApiError('Unavailable', 'the proxy is busy (proxy.max_concurrent queries in flight); retry shortly', undefined, {
        'Retry-After': '1',
      });
    this.inFlight++;
    try {
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([r.spec, login]))
        .digest('hex');
      const result =
        driver === 'postgres' ? await this.postgres(r, login, text, fingerprint) : await this.mysql(r, driver, login, text, fingerprint);
      return { columns: result.columns, rows: result.rows, ...(result.cut ? { truncated: truncation(result.cut, this.o.limits) } : {}) };
    } catch (e) {
      const ctx = { statementTimeout: this.o.statementTimeout, ...(r.secretLabel ? { secret: r.secretLabel } : {}) };
      throw driver === 'postgres' ? sqlError(e, ctx) : mysqlError(e, { ...ctx, block: driver, query: text });
    } finally {
      this.inFlight--;
    }
  }

  /** Closes every pool (the server stops). */
  close(): Promise<void> {
    return this.pools.close();
  }

  private async postgres(r: SqlRequest, login: SqlLogin, text: string, fingerprint: string): Promise<CappedResult> {
    const { limits, denied } = this.o;
    const mode = r.spec.postgres?.sslMode;
    const fallback = mode === undefined || mode === 'prefer' || mode === 'allow';
    const client = await this.pools.acquire(
      r.owner,
      fingerprint,
      (plain, single) => pgPool(postgresPoolConfig(r.spec, login, limits, denied, plain), single),
      fallback ? isPgNoTls : () => false,
    );
    return readOnlyQuery(client, text, limits, r.cut);
  }

  private async mysql(
    r: SqlRequest,
    driver: 'mysql' | 'mariadb',
    login: SqlLogin,
    text: string,
    fingerprint: string,
  ): Promise<CappedResult> {
    const { limits, denied } = this.o;
    const settings = mysqlSettings(r.spec[driver]);
    if (settings.maxAllowedPacket && Buffer.byteLength(text) > settings.maxAllowedPacket) {
      throw badRequest(
        `the query is longer than the datasource's ${driver}.maxAllowedPacket (${settings.maxAllowedPacket} bytes): shorten it or raise maxAllowedPacket`,
      );
    }
    const factory = (plain: boolean, single: boolean) =>
      new MysqlPool({
        options: mysqlConnectionOptions(r.spec, settings, login, limits, denied, plain),
        max: single ? 1 : limits.maxConnections,
        idleMs: POOL_IDLE_MS,
        waitMs: settings.timeoutMs ?? limits.connectTimeoutMs,
      });
    const client = await this.pools.acquire(r.owner, fingerprint, factory, settings.tls === 'preferred' ? isMysqlNoTls : () => false);
    const silences = [settings.readTimeoutMs, settings.writeTimeoutMs].filter((ms): ms is number => ms !== undefined);
    return readOnlyMysqlQuery(
      client,
      text,
      limits,
      { variables: settings.variables, ...(silences.length ? { silenceMs: Math.min(...silences) } : {}) },
      r.cut,
    );
  }
}

/**
 * The `query` of a request: a statement starting with a read keyword (Perses' check, with the
 * driver's comment rules; the read-only transaction is the guard) and, for MySQL and MariaDB,
 * without INTO OUTFILE or DUMPFILE, which a read-only transaction allows (Perses refuses them too).
 */
function checkedQuery(query: unknown, driver: SqlDriver): string {
  if (typeof query !== 'string' || query.trim() === '')
    throw badRequest('the request body must be {"query": "<one SQL statement>"}: query is missing or empty', [
      { path: 'query', message: 'is required' },
    ]);
  const first = firstKeyword(query, driver === 'postgres' ? 'postgres' : 'mysql');
  if (!READ_KEYWORDS.includes(first)) {
    throw badRequest(
      `the SQL proxy runs read statements only: the query must start with ${READ_KEYWORDS.join(', ')}${first ? ` (it starts with ${first})` : ''}`,
      [{ path: 'query', message: 'is not a read statement' }],
    );
  }
  const file = driver === 'postgres' ? '' : fileWriteKeyword(query);
  if (file) {
    throw badRequest(
      `the SQL proxy does not run SELECT ... INTO ${file}, which writes a file on the database server: the query holds the word ${file} (in a string too; write it another way, e.g. CONCAT('${file.slice(0, 3)}', '${file.slice(3)}'))`,
      [{ path: 'query', message: `holds ${file}` }],
    );
  }
  return query;
}

/** The login of a datasource: its Secret's basicAuth user and password and its TLS material; never the server's own environment. */
function loginOf(c: Credentials | undefined, secret = 'Secret'): SqlLogin {
  if (!c?.basic?.username) {
    throw badRequest(
      c
        ? `the datasource's ${secret} has no basicAuth.username: an SQL datasource logs in with basicAuth (username, password) and tlsConfig; authorization and oauth are for HTTP datasources`
        : 'the datasource names no Secret: an SQL datasource logs in with the basicAuth (username, password) of the Secret named in proxy.spec.secret; dashplane never uses its own environment or files to log in',
    );
  }
  return { username: c.basic.username, password: c.basic.password, ...(c.tls ? { tls: c.tls } : {}) };
}

function truncation(reason: 'rows' | 'bytes', limits: SqlLimits): NonNullable<SqlAnswer['truncated']> {
  return reason === 'rows'
    ? {
        reason,
        limit: limits.maxRows,
        message: `the result has more than ${limits.maxRows} rows (proxy.sql.max_rows): only the first ${limits.maxRows} are answered; add a LIMIT or aggregate in the query`,
      }
    : {
        reason,
        limit: limits.maxBytes,
        message: `the result is larger than ${limits.maxBytes} bytes (proxy.sql.max_bytes): only the rows read until then are answered; select fewer columns or rows`,
      };
}
