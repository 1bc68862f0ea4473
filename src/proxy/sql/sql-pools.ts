import { createRequire } from 'node:module';
import type pg from 'pg';

/**
 * The pg driver, loaded with the first SQL query: a server whose SQL datasources are never queried
 * does not load it (about 100 ms of start-up). pg is CommonJS, so it loads synchronously.
 */
let driver: typeof pg | undefined;
const pgDriver = (): typeof pg => (driver ??= createRequire(import.meta.url)('pg') as typeof pg);

/** Where a pool's datasource comes from: what a change or deletion of which stored object ends it. */
export interface PoolOwner {
  /** The stored object holding the datasource, as kind/project/name (a dashboard, for its own datasources). */
  holder: string;
  /** The datasource's name in it. */
  name: string;
  /** The Secret it logs in with, as kind/project/name. */
  secret?: string;
}

/** A connection taken from a pool; `release(true)` closes it instead of returning it. */
export interface PooledClient {
  client: pg.PoolClient;
  release(discard: boolean): void;
}

/** A store event as the pools read it (the Store's `onEvent`). */
export interface ObjectEvent {
  type: string;
  object: { kind: string; metadata: { project?: string; name: string } };
}

interface Entry {
  pool: pg.Pool;
  fingerprint: string;
  owner: PoolOwner;
  /** Connections taken and not released yet. */
  taken: number;
}

/** pg's message when a server answers an SSLRequest with "N" (no TLS). */
const NO_TLS = 'The server does not support SSL connections';

/**
 * One small pool of PostgreSQL connections per datasource (per owner and name), made from its
 * settings and login the first time it is used. A pool whose datasource or Secret changes or is
 * deleted (a store event, from any replica) is closed at once; a request with other settings or
 * login (a Secret's *File rotated) replaces it; a pool left without connections (they close after
 * a while unused) is dropped. Datasources being edited (the unsaved route) get a pool of their
 * own, closed after the request.
 */
export class SqlPools {
  private readonly entries = new Map<string, Entry>();
  private readonly unlisten: () => void;

  constructor(onEvent: (listener: (e: ObjectEvent) => void) => () => void) {
    this.unlisten = onEvent((e) => {
      if (e.type === 'ADDED') return;
      const id = `${e.object.kind}/${e.object.metadata.project ?? ''}/${e.object.metadata.name}`;
      for (const [key, entry] of this.entries) if (entry.owner.holder === id || entry.owner.secret === id) this.drop(key, entry);
    });
  }

  /** The pools open now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * A connection of the owner's pool (made with `config(false)` when missing or when
   * `fingerprint` differs from the pool's). When the server has no TLS and `plainFallback` (sslmode
   * allow or prefer), the pool is made again with `config(true)` and the connection retried.
   * Without an owner, a pool of one connection, closed on release.
   */
  async acquire(owner: PoolOwner | undefined, fingerprint: string, config: (plain: boolean) => pg.PoolConfig, plainFallback: boolean): Promise<PooledClient> {
    const key = owner ? `${owner.holder}\n${owner.name}` : undefined;
    let entry = key ? this.entries.get(key) : undefined;
    if (key && entry && entry.fingerprint !== fingerprint) {
      this.drop(key, entry);
      entry = undefined;
    }
    entry ??= this.open(key, owner, fingerprint, config(false));
    entry.taken++;
    try {
      let client: pg.PoolClient;
      try {
        client = await entry.pool.connect();
      } catch (e) {
        if (!plainFallback || (e as Error).message !== NO_TLS) throw e;
        entry.taken--;
        if (key) this.drop(key, entry);
        else void endPool(entry.pool);
        entry = this.open(key, owner, fingerprint, config(true));
        entry.taken++;
        client = await entry.pool.connect();
      }
      const e = entry;
      let released = false;
      return {
        client,
        release: (discard) => {
          if (released) return;
          released = true;
          e.taken--;
          client.release(discard);
          if (!key) void endPool(e.pool);
        },
      };
    } catch (e) {
      entry.taken--;
      if (!key) void endPool(entry.pool);
      throw e;
    }
  }

  /** Closes every pool (the server stops). */
  async close(): Promise<void> {
    this.unlisten();
    const pools = [...this.entries.values()].map((e) => e.pool);
    this.entries.clear();
    await Promise.all(pools.map(endPool));
  }

  private open(key: string | undefined, owner: PoolOwner | undefined, fingerprint: string, config: pg.PoolConfig): Entry {
    const pool = new (pgDriver().Pool)(key ? config : { ...config, max: 1 });
    // an idle connection the server closed: the pool drops it; nothing to answer
    pool.on('error', () => undefined);
    const entry: Entry = { pool, fingerprint, owner: owner ?? { holder: '', name: '' }, taken: 0 };
    if (key) {
      this.entries.set(key, entry);
      pool.on('remove', () => {
        if (entry.taken === 0 && pool.totalCount === 0 && this.entries.get(key) === entry) this.drop(key, entry);
      });
    }
    return entry;
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    // connections in use finish their query, then close; new ones cannot be taken
    void endPool(entry.pool);
  }
}

/** Ends a pool (its connections in use close when released); ending one twice is not an error here. */
function endPool(pool: pg.Pool): Promise<void> {
  return pool.end().catch(() => undefined);
}
