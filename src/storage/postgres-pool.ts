import { createRequire } from 'node:module';
import type pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { unavailable } from '../errors.js';
import type { LogFn } from '../lib/log-fn.js';
import { isRetryable, translate } from './postgres-errors.js';

export interface PostgresStoreOptions {
  /** postgres://user@host:port/database (a password in it is never printed). */
  url?: string;
  /** Alternatively (or in addition) the pg connection fields. */
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  /** Pool size (default 10). */
  max?: number;
  ssl?: PoolConfig['ssl'];
  /** Events kept for watches that resume (default 10 000). */
  eventLogSize?: number;
  /** The kinds whose objects the search index holds (none: no index; see search()). */
  searchKinds?: readonly string[];
  /** Where the store's own news goes (the search index's building). */
  log?: LogFn;
}

const MAX_ATTEMPTS = 5;

/**
 * The pg driver, loaded with the first PostgresStore: a server on LevelDB never loads it (150 ms of
 * its start-up, measured alone). pg is CommonJS, so it loads synchronously.
 */
let driver: typeof pg | undefined;
/**
 * The driver's connection settings. pg lets a connection string override every field given beside
 * it, an absent password included (it becomes ''), so a password from password_file or the
 * environment went unused with a `url`: it goes into the URL's query instead (pg reads
 * `?password=`), unless the URL holds one of its own.
 */
export function driverConfig(opts: PostgresStoreOptions): pg.ClientConfig {
  const { eventLogSize: _e, max: _m, searchKinds: _s, log: _l, url, password, ...rest } = opts;
  if (!url) return { ...rest, ...(password !== undefined ? { password } : {}) };
  return { ...rest, connectionString: password === undefined ? url : withPassword(url, password) };
}

function withPassword(url: string, password: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url; // not a URL (a socket path): pg reads it as it is
  }
  if (u.password || u.searchParams.has('password')) return url;
  u.searchParams.set('password', password);
  return u.toString();
}

export const pgDriver = (): typeof pg => (driver ??= createRequire(import.meta.url)('pg') as typeof pg);

/**
 * PostgresStore's way to the database: its pool (while the store is open), and the queries and
 * transactions every part of the store runs through it, their errors translated
 * (postgres-errors.ts) and naming the database (`where`, never with its password).
 */
export class PostgresPool {
  /** Set by the store's open(), cleared by its close(). */
  pool?: pg.Pool | undefined;

  constructor(readonly where: string) {}

  /** The pool, for a statement whose errors the caller reads itself. */
  raw(): pg.Pool {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    return this.pool;
  }

  /** A transaction, retried on serialisation failures and deadlocks; errors translated. */
  async tx<T>(fn: (c: PoolClient) => Promise<T>, mode = ''): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const c = await this.connect();
      let broken = false;
      try {
        await c.query(mode ? `BEGIN ${mode}` : 'BEGIN');
        const result = await fn(c);
        await c.query('COMMIT');
        return result;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => (broken = true));
        if (isRetryable(e) && attempt < MAX_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
          continue;
        }
        throw translate(e, this.where);
      } finally {
        c.release(broken);
      }
    }
  }

  async connect(): Promise<PoolClient> {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    try {
      return await this.pool.connect();
    } catch (e) {
      throw translate(e, this.where);
    }
  }

  /** `name`: a statement prepared once per connection (the hot reads: no parse and plan on each call). */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    try {
      return await (name ? this.pool.query<R>({ name, text, ...(values ? { values } : {}) }) : this.pool.query<R>(text, values));
    } catch (e) {
      throw translate(e, this.where);
    }
  }
}
