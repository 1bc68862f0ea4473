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
export interface PooledClient<C> {
  client: C;
  release(discard: boolean): void;
}

/** A store event as the pools read it (the Store's `onEvent`). */
export interface ObjectEvent {
  type: string;
  object: { kind: string; metadata: { project?: string; name: string } };
}

/** What SqlPools needs of one driver's pool (pg-pool.ts, mysql-pool.ts). */
export interface DriverPool<C> {
  /** A connection: a free one, a new one below the pool's size, else the next released (within the pool's wait timeout). */
  connect(): Promise<C>;
  /** Gives a connection back, or closes it when `discard`. */
  release(client: C, discard: boolean): void;
  /** Closes the pool: free connections now, the ones in use when released. Ending twice is not an error. */
  end(): Promise<void>;
  /** Calls `listener` each time the pool is left without any connection (they close after a while unused). */
  onEmpty(listener: () => void): void;
}

/** How SqlPools makes a driver's pool: `plain` once the server said it has no TLS (see `acquire`), `single` for a pool of one connection. */
export type PoolFactory<C> = (plain: boolean, single: boolean) => DriverPool<C>;

interface Entry {
  pool: DriverPool<unknown>;
  fingerprint: string;
  owner: PoolOwner;
  /** Connections taken and not released yet. */
  taken: number;
}

/**
 * One small pool of database connections per datasource (per owner and name), made from its
 * settings and login the first time it is used. A pool whose datasource or Secret changes or is
 * deleted (a store event, from any replica) is closed at once; a request with other settings or
 * login (a Secret's *File rotated) replaces it; a pool left without connections (they close after
 * a while unused) is dropped. Datasources being edited (the unsaved route) get a pool of their
 * own, closed after the request. The pools themselves are the drivers' (`DriverPool`).
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
   * A connection of the owner's pool (made with `factory(false)` when missing or when
   * `fingerprint` differs from the pool's). When connecting fails because the server has no TLS
   * and `noTlsFallback(error)` (PostgreSQL's sslmode allow or prefer, MySQL's tls=preferred), the
   * pool is made again with `factory(true)` and the connection retried. Without an owner, a pool
   * of one connection, closed on release.
   */
  async acquire<C>(
    owner: PoolOwner | undefined,
    fingerprint: string,
    factory: PoolFactory<C>,
    noTlsFallback: (e: unknown) => boolean,
  ): Promise<PooledClient<C>> {
    const key = owner ? `${owner.holder}\n${owner.name}` : undefined;
    let entry = key ? this.entries.get(key) : undefined;
    if (key && entry && entry.fingerprint !== fingerprint) {
      this.drop(key, entry);
      entry = undefined;
    }
    entry ??= this.open(key, owner, fingerprint, factory(false, !key));
    entry.taken++;
    try {
      let client: C;
      try {
        client = (await entry.pool.connect()) as C;
      } catch (e) {
        if (!noTlsFallback(e)) throw e;
        entry.taken--;
        if (key) this.drop(key, entry);
        else void entry.pool.end();
        entry = this.open(key, owner, fingerprint, factory(true, !key));
        entry.taken++;
        client = (await entry.pool.connect()) as C;
      }
      const e = entry;
      let released = false;
      return {
        client,
        release: (discard) => {
          if (released) return;
          released = true;
          e.taken--;
          e.pool.release(client, discard);
          if (!key) void e.pool.end();
        },
      };
    } catch (e) {
      entry.taken--;
      if (!key) void entry.pool.end();
      throw e;
    }
  }

  /** Closes every pool (the server stops). */
  async close(): Promise<void> {
    this.unlisten();
    const pools = [...this.entries.values()].map((e) => e.pool);
    this.entries.clear();
    await Promise.all(pools.map((p) => p.end()));
  }

  private open(key: string | undefined, owner: PoolOwner | undefined, fingerprint: string, pool: DriverPool<unknown>): Entry {
    const entry: Entry = { pool, fingerprint, owner: owner ?? { holder: '', name: '' }, taken: 0 };
    if (key) {
      this.entries.set(key, entry);
      pool.onEmpty(() => {
        if (entry.taken === 0 && this.entries.get(key) === entry) this.drop(key, entry);
      });
    }
    return entry;
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    // connections in use finish their query, then close; new ones cannot be taken
    void entry.pool.end();
  }
}
