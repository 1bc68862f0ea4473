import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../config.js';
import { buildKindRegistry } from '../kinds/index.js';
import type { LogFn } from '../lib/log-fn.js';
import { LevelStore } from '../storage/level-store.js';
import { PostgresStore } from '../storage/postgres-store.js';
import type { Store } from '../storage/store.js';

/** Whether the configuration names a PostgreSQL server (several replicas share it). */
export function usesPostgres(config: Readonly<StoreConfig>): boolean {
  const pg = config.database?.postgres;
  return !!(pg && (pg.url || pg.host));
}

/** The parts of the configuration that name a store. */
export type StoreConfig = Pick<ServerConfig, 'database' | 'watch'>;

/**
 * The store a configuration names: PostgreSQL when database.postgres names a server, else the
 * embedded LevelDB. The server and every offline command (`secrets rotate`, `migrate-store`,
 * backup, restore) open it through here, so they all work on the same data. `env` supplies the
 * PostgreSQL password when no password_file is configured; `log` hears the store's own news (a
 * LevelDB write failure and its recovery, a data directory narrowed to its owner). Every store
 * opened here keeps the search index of the searchable kinds.
 */
export function openStore(
  config: Readonly<StoreConfig>,
  env: Readonly<Record<string, string | undefined>> = process.env,
  o: { log?: LogFn } = {},
): Store {
  const eventLogSize = config.watch?.event_log_size ?? 10_000;
  const pg = config.database?.postgres;
  const searchKinds = searchableKinds();
  if (!pg || !usesPostgres(config))
    return new LevelStore(config.database?.level?.path ?? './data', { eventLogSize, searchKinds, ...(o.log ? { log: o.log } : {}) });
  const password = pg.password_file ? readFileSync(pg.password_file, 'utf8').trim() : env.DASHPLANE_DATABASE_POSTGRES_PASSWORD;
  return new PostgresStore({
    ...(pg.url ? { url: pg.url } : {}),
    ...(pg.host ? { host: pg.host } : {}),
    ...(pg.port ? { port: pg.port } : {}),
    ...(pg.user ? { user: pg.user } : {}),
    ...(pg.database ? { database: pg.database } : {}),
    ...(password ? { password } : {}),
    max: pg.pool_size ?? 10,
    ...(pg.tls ? { ssl: { rejectUnauthorized: true } } : {}),
    eventLogSize,
    searchKinds,
    ...(o.log ? { log: o.log } : {}),
  });
}

/** The kinds the web UI's search looks into (`searchable`): what a store's search index holds. */
export function searchableKinds(): string[] {
  return buildKindRegistry()
    .all()
    .filter((d) => d.searchable)
    .map((d) => d.kind);
}

/**
 * The store a command-line URI names (`migrate-store`, backup and restore): `level:<path>` or a
 * `postgres://` URL, opened as a configuration naming it would be (the URL carries any password).
 * With `existing` (a source to read from), a LevelDB directory must already hold a database.
 */
export function storeFromUri(uri: string, o: { existing?: boolean } = {}): Store {
  if (uri.startsWith('level:')) {
    const path = uri.slice('level:'.length);
    // LevelDB creates a database where there is none: a mistyped source would copy nothing, and succeed
    if (o.existing && !existsSync(join(path, 'CURRENT'))) {
      throw new Error(
        `${uri}: ${existsSync(path) ? 'this directory holds no dashplane data (no LevelDB database in it)' : 'no such directory'}; check the path (it is the server's database.level.path, ./data by default)`,
      );
    }
    return openStore({ database: { level: { path } } }, {});
  }
  if (/^postgres(ql)?:\/\//.test(uri)) return openStore({ database: { postgres: { url: uri } } }, {});
  throw new Error(`"${uri}" is neither level:<directory> nor postgres://user@host:port/database`);
}

/**
 * With PostgreSQL every replica (and every offline command) needs the same configured key: a
 * key generated into one machine's data directory would not be the others'.
 */
export function assertSharedKey(config: Readonly<ServerConfig>): void {
  const s = config.security;
  if (usesPostgres(config) && !s?.encryption_key && !s?.encryption_key_file) {
    throw new Error(
      'with database.postgres every replica needs the same key: set security.encryption_key_file, security.encryption_key or DASHPLANE_ENCRYPTION_KEY (generate one with: openssl rand -hex 32)',
    );
  }
}
