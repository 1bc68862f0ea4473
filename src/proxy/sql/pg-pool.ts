import { createRequire } from 'node:module';
import type pg from 'pg';
import type { DriverPool } from './sql-pools.js';

/**
 * The pg driver, loaded with the first SQL query: a server whose SQL datasources are never queried
 * does not load it (about 100 ms of start-up). pg is CommonJS, so it loads synchronously.
 */
let driver: typeof pg | undefined;
const pgDriver = (): typeof pg => (driver ??= createRequire(import.meta.url)('pg') as typeof pg);

/** pg's message when a server answers an SSLRequest with "N" (no TLS). */
export const isPgNoTls = (e: unknown): boolean => (e as Error)?.message === 'The server does not support SSL connections';

/** A node-postgres pool as SqlPools uses it (`single`: at most one connection). */
export function pgPool(config: pg.PoolConfig, single: boolean): DriverPool<pg.PoolClient> {
  const pool = new (pgDriver().Pool)(single ? { ...config, max: 1 } : config);
  // an idle connection the server closed: the pool drops it; nothing to answer
  pool.on('error', () => undefined);
  return {
    connect: () => pool.connect(),
    release: (client, discard) => client.release(discard),
    // connections in use close when released; ending a pool twice is not an error here
    end: () => pool.end().catch(() => undefined),
    onEmpty: (listener) => {
      pool.on('remove', () => {
        if (pool.totalCount === 0) listener();
      });
    },
  };
}
