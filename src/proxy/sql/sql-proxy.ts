import { createHash } from 'node:crypto';
import { ApiError, badRequest } from '../../errors.js';
import type { Credentials } from '../credentials.js';
import type { DeniedNetworks } from '../denied-networks.js';
import { postgresPoolConfig, type SqlLimits, type SqlLogin } from './pg-config.js';
import { sqlError } from './sql-errors.js';
import { type ObjectEvent, type PoolOwner, SqlPools } from './sql-pools.js';
import { sqlDriverOf, type SQLProxySpec } from './sql-proxy-spec.js';
import { readOnlyQuery, type QueryCut } from './sql-session.js';
import { firstKeyword, READ_KEYWORDS } from './statement.js';

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
 * Perses' SQL proxy (`{kind: "SQLProxy"}`) for PostgreSQL: a query runs read-only (sql-session.ts)
 * on a pool of the datasource (sql-pools.ts), logged in with its Secret's basicAuth and TLS
 * material only, on addresses the proxy's denylist allows, within the statement timeout and
 * the row and byte caps.
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
    const text = checkedQuery(r.query);
    const driver = sqlDriverOf(r.spec);
    if (driver !== 'postgres') {
      throw new ApiError(
        'NotImplemented',
        `the datasource's driver is ${driver}: dashplane's SQL proxy serves PostgreSQL (driver: postgres) only; MySQL and MariaDB datasources are stored, but not queried`,
      );
    }
    const login = loginOf(r.credentials, r.secretLabel);
    if (this.inFlight >= this.o.maxConcurrent) throw new ApiError('Unavailable', 'the proxy is busy (proxy.max_concurrent queries in flight); retry shortly', undefined, { 'Retry-After': '1' });
    this.inFlight++;
    try {
      const { limits, denied } = this.o;
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([r.spec, login]))
        .digest('hex');
      const mode = r.spec.postgres?.sslMode;
      const client = await this.pools.acquire(r.owner, fingerprint, (plain) => postgresPoolConfig(r.spec, login, limits, denied, plain), mode === undefined || mode === 'prefer' || mode === 'allow');
      const result = await readOnlyQuery(client, text, limits, r.cut);
      return { columns: result.columns, rows: result.rows, ...(result.cut ? { truncated: truncation(result.cut, limits) } : {}) };
    } catch (e) {
      throw sqlError(e, { statementTimeout: this.o.statementTimeout, ...(r.secretLabel ? { secret: r.secretLabel } : {}) });
    } finally {
      this.inFlight--;
    }
  }

  /** Closes every pool (the server stops). */
  close(): Promise<void> {
    return this.pools.close();
  }
}

/** The `query` of a request: a statement starting with a read keyword (Perses' check; the read-only transaction is the guard). */
function checkedQuery(query: unknown): string {
  if (typeof query !== 'string' || query.trim() === '')
    throw badRequest('the request body must be {"query": "<one SQL statement>"}: query is missing or empty', [{ path: 'query', message: 'is required' }]);
  const first = firstKeyword(query);
  if (!READ_KEYWORDS.includes(first)) {
    throw badRequest(`the SQL proxy runs read statements only: the query must start with ${READ_KEYWORDS.join(', ')}${first ? ` (it starts with ${first})` : ''}`, [
      { path: 'query', message: 'is not a read statement' },
    ]);
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
    : { reason, limit: limits.maxBytes, message: `the result is larger than ${limits.maxBytes} bytes (proxy.sql.max_bytes): only the rows read until then are answered; select fewer columns or rows` };
}
