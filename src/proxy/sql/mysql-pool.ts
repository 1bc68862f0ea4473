import { createRequire } from 'node:module';
import type { Connection, ConnectionOptions } from 'mysql2';
import type { DriverPool } from './sql-pools.js';

/** The mysql2 driver, loaded with the first MySQL query (as pg is: pg-pool.ts). CommonJS, so it loads synchronously. */
let driver: typeof import('mysql2') | undefined;
const mysqlDriver = (): typeof import('mysql2') => (driver ??= createRequire(import.meta.url)('mysql2') as typeof import('mysql2'));

/** mysql2's code when TLS is asked of a server that offers none. */
export const isMysqlNoTls = (e: unknown): boolean => (e as { code?: string })?.code === 'HANDSHAKE_NO_SSL_SUPPORT';

/** A new connection, once the server accepted the login; it is closed again when it fails. */
function connectMysql(options: ConnectionOptions): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const c = mysqlDriver().createConnection(options);
    // a connection fails on its own (the server closes it, the network): its command, if any, is told
    c.on('error', () => undefined);
    c.connect((err) => {
      if (!err) return resolve(c);
      c.destroy();
      reject(err);
    });
  });
}

/** A connection's socket is gone (closed by either side, or destroyed by a cap). */
const isClosed = (c: Connection): boolean =>
  Boolean(
    (c as unknown as { stream?: { destroyed?: boolean } }).stream?.destroyed || (c as unknown as { _fatalError?: unknown })._fatalError,
  );

/** Closes a connection at once (mysql2's destroy only half-closes its socket). */
function destroyConnection(c: Connection): void {
  c.destroy();
  (c as unknown as { stream?: { destroy?: () => void } }).stream?.destroy?.();
}

/**
 * Stops the statement running on connection `threadId` from another connection made with the same
 * settings (`KILL QUERY`; the login may always kill its own): closing a socket does not stop a
 * MySQL query that is not writing (SLEEP, a lock wait). Failures are ignored: the caller has
 * given the connection up already.
 */
async function killQuery(options: ConnectionOptions, threadId: number | null): Promise<void> {
  if (!threadId) return;
  const k = await connectMysql(options).catch(() => undefined);
  if (!k) return;
  await new Promise<void>((resolve) =>
    k.query({ sql: `KILL QUERY ${Number(threadId)}`, timeout: options.connectTimeout ?? 10_000 }, () => resolve()),
  );
  destroyConnection(k);
}

/** A pooled connection, and how to stop its statement from outside. */
export interface MysqlClient {
  connection: Connection;
  /** KILL QUERY on another connection (see `killQuery`). */
  kill(): Promise<void>;
}

/** A pool's connection settings and bounds. */
export interface MysqlPoolOptions {
  options: ConnectionOptions;
  /** Connections at most. */
  max: number;
  /** How long a free connection stays open. */
  idleMs: number;
  /** Longest wait for a free connection when `max` are in use. */
  waitMs: number;
}

/** The error of a request to a pool that was closed (its datasource or Secret changed meanwhile). */
const closedError = () => Object.assign(new Error('the pool is closed'), { code: 'POOL_CLOSED' });

interface Free {
  c: MysqlClient;
  timer: NodeJS.Timeout;
  /** Drops it from the pool when the server ends it. */
  gone: () => void;
}

interface Waiter {
  resolve(c: MysqlClient): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * A small pool of mysql2 connections (mysql2's own pool has no bound on the wait for a free
 * connection and says nothing when it is left empty). Connections are made as needed up to
 * `max`; a free one closes after `idleMs`, or when the server closes it; a request finding `max`
 * in use waits `waitMs` at most (then an error with code `POOL_TIMEOUT`).
 */
export class MysqlPool implements DriverPool<MysqlClient> {
  private readonly free: Free[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly emptyListeners: (() => void)[] = [];
  /** Connections open or being opened. */
  private count = 0;
  private ended = false;

  constructor(private readonly o: MysqlPoolOptions) {}

  async connect(): Promise<MysqlClient> {
    if (this.ended) throw closedError();
    const f = this.free.pop();
    if (f) {
      this.unwatch(f);
      return f.c;
    }
    if (this.count < this.o.max) return this.open();
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          reject(Object.assign(new Error('no free connection in time'), { code: 'POOL_TIMEOUT' }));
        }, this.o.waitMs),
      };
      this.waiters.push(w);
    });
  }

  release(c: MysqlClient, discard: boolean): void {
    if (discard || this.ended || isClosed(c.connection)) {
      this.close(c);
      // room for a waiter: a new connection
      const w = this.waiters.shift();
      if (w && !this.ended) {
        clearTimeout(w.timer);
        this.open().then(w.resolve, w.reject);
      }
      return;
    }
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(c);
      return;
    }
    const entry: Free = { c, timer: setTimeout(() => this.dropFree(entry), this.o.idleMs), gone: () => this.dropFree(entry) };
    entry.timer.unref();
    // the server ends a free connection (wait_timeout, a restart): it leaves the pool
    c.connection.on('end', entry.gone);
    c.connection.on('error', entry.gone);
    this.free.push(entry);
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(closedError());
    }
    for (const f of this.free.splice(0)) {
      this.unwatch(f);
      this.close(f.c);
    }
  }

  onEmpty(listener: () => void): void {
    this.emptyListeners.push(listener);
  }

  private async open(): Promise<MysqlClient> {
    this.count++;
    try {
      const connection = await connectMysql(this.o.options);
      return { connection, kill: () => killQuery(this.o.options, connection.threadId) };
    } catch (e) {
      this.count--;
      if (this.count === 0) this.emptied();
      throw e;
    }
  }

  private dropFree(entry: Free): void {
    const i = this.free.indexOf(entry);
    if (i < 0) return;
    this.free.splice(i, 1);
    this.unwatch(entry);
    this.close(entry.c);
  }

  private unwatch(f: Free): void {
    clearTimeout(f.timer);
    f.c.connection.removeListener('end', f.gone);
    f.c.connection.removeListener('error', f.gone);
  }

  private close(c: MysqlClient): void {
    destroyConnection(c.connection);
    this.count--;
    if (this.count === 0) this.emptied();
  }

  private emptied(): void {
    for (const l of this.emptyListeners) l();
  }
}
