import type { PoolClient } from 'pg';
import { jsonOf } from '../lib/json-of.js';
import { consoleLog } from '../lib/log-fn.js';
import { KeyedMutex } from './mutex.js';
import { AUDIT_CHANNEL, PostgresAudit } from './postgres-audit.js';
import { describeDatabase, openError, translate } from './postgres-errors.js';
import { PostgresEvents } from './postgres-events.js';
import { PostgresHistory } from './postgres-history.js';
import { docColumns, TEXT_COLUMNS, listSql } from './postgres-list.js';
import { driverConfig, pgDriver, PostgresPool, type PostgresStoreOptions } from './postgres-pool.js';
import { migrate } from './postgres-schema.js';
import { PostgresSearchIndex } from './postgres-search-index.js';
import { PostgresUpkeep } from './postgres-upkeep.js';
import { PostgresWrites } from './postgres-writes.js';
import { RecentTexts } from './recent-texts.js';
import { StoreParts } from './store-parts.js';
import type {
  CreateOptions,
  DeleteOptions,
  DumpItem,
  Envelope,
  ListQuery,
  ObjectKey,
  SearchCandidate,
  SearchQuery,
  Store,
  StoreEvent,
  StoredText,
  UpdateOptions,
  WatchOptions,
} from './store.js';
import { keyOf } from './store.js';
import { frozenText, storedText } from './stored-text.js';

export type { PostgresStoreOptions } from './postgres-pool.js';

const KEY = 'kind = $1 AND project = $2 AND name = $3';
const keyValues = (k: ObjectKey) => [k.kind, k.project, k.name];

/**
 * The PostgreSQL store (`pg`). Its writes are postgres-writes.ts (each one READ COMMITTED
 * transaction, shared with the writes waiting beside it); its history and audit log are
 * postgres-history.ts and postgres-audit.ts; its events, which reach other replicas through
 * LISTEN/NOTIFY, postgres-events.ts; its queries and transactions go through postgres-pool.ts.
 * Serialisation failures and deadlocks are retried, then reported as Conflict; unique violations
 * are AlreadyExists; lost connections Unavailable (postgres-errors.ts). The rules every driver
 * follows are store-rules.ts.
 */
export class PostgresStore extends StoreParts implements Store {
  private readonly db: PostgresPool;
  private readonly locks = new KeyedMutex();
  protected readonly audit: PostgresAudit;
  protected readonly history: PostgresHistory;
  private readonly events: PostgresEvents;
  private readonly writes: PostgresWrites;
  /**
   * Texts of objects read lately, dropped by any replica's event for them (and all of them when
   * events were missed). `getText` first calls `sync` (or its caller did), which delivers every
   * event committed before it, so a text served from here is as fresh as a query.
   */
  private readonly recent = new RecentTexts(RECENT_TEXT_CHARS);
  /** Bumped by every event: a read that an event overtook is not kept in `recent`. */
  private generation = 0;
  private readonly searchIndex: PostgresSearchIndex;
  /** Analyses and vacuums where autovacuum comes too late (postgres-upkeep.ts). */
  readonly upkeep: PostgresUpkeep;

  constructor(private readonly opts: PostgresStoreOptions) {
    super();
    const db = new PostgresPool(describeDatabase(opts));
    this.db = db;
    this.audit = new PostgresAudit(
      (text, values) => db.query(text, values),
      (fn) => db.tx(fn),
    );
    this.history = new PostgresHistory((text, values) => db.query(text, values));
    this.events = new PostgresEvents({
      query: (text, values, name) => db.query(text, values, name),
      client: () => new (pgDriver().Client)(driverConfig(opts)),
      eventLogSize: opts.eventLogSize ?? 10_000,
      channels: [AUDIT_CHANNEL],
      notified: (channel, payload) => {
        if (channel === AUDIT_CHANNEL) this.audit.notify({ lastId: Number(payload) });
      },
      missed: () => {
        this.generation++;
        this.recent.clear();
      },
      underway: () => this.writes.underway(),
    });
    this.searchIndex = new PostgresSearchIndex({
      db,
      kinds: opts.searchKinds ?? [],
      log: opts.log ?? consoleLog,
      exclusive: (key, fn) => this.exclusive(key, fn),
    });
    this.writes = new PostgresWrites({
      db,
      events: this.events,
      audit: this.audit,
      history: this.history,
      vectorOf: (obj) => this.searchIndex.vectorOf(obj),
    });
    this.upkeep = new PostgresUpkeep({ db, log: opts.log ?? consoleLog });
    this.events.listen((e) => {
      this.generation++;
      this.recent.delete(textKey(keyOf(e.object)));
      this.upkeep.written();
    });
  }

  async open(): Promise<void> {
    const pool = new (pgDriver().Pool)({ ...driverConfig(this.opts), max: this.opts.max ?? 10 });
    // an idle client losing its connection must not crash the process; the next query reports it
    pool.on('error', () => undefined);
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw openError(e, this.db.where);
    }
    let start: { revision: string; first: string | null };
    try {
      await migrate(client, this.db.where);
      const { rows } = await client.query<{ revision: string; first: string | null }>(
        'SELECT m.revision, (SELECT min(revision) FROM dashplane_events) AS first FROM dashplane_meta m WHERE m.id = 1',
      );
      start = rows[0];
    } catch (e) {
      client.release(true);
      await pool.end().catch(() => undefined);
      throw openError(e, this.db.where);
    }
    client.release();
    this.db.pool = pool;
    try {
      await this.events.start(Number(start.revision), start.first === null ? null : Number(start.first));
    } catch (e) {
      await this.events.stop();
      this.db.pool = undefined;
      await pool.end().catch(() => undefined);
      throw openError(e, this.db.where);
    }
    this.searchIndex.opened();
    // a bulk import by another process (migrate-store, restore) leaves the table unanalysed
    this.upkeep.check();
  }

  async close(): Promise<void> {
    await this.searchIndex.stop();
    await this.upkeep.stop();
    await this.events.stop();
    const pool = this.db.pool;
    this.db.pool = undefined;
    await pool?.end();
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1 FROM dashplane_meta WHERE id = 1');
  }

  async get(key: ObjectKey): Promise<Envelope | undefined> {
    const { rows } = await this.db.query<{ doc: Envelope }>(
      `SELECT doc FROM dashplane_objects WHERE ${KEY}`,
      keyValues(key),
      'dashplane_get',
    );
    return rows[0]?.doc;
  }

  /**
   * The document's text as written (not parsed here), and its metadata: from the texts read
   * lately when no event changed it (shared: frozen), after a `sync`.
   */
  async getText(key: ObjectKey, opts: { synced?: boolean | undefined } = {}): Promise<StoredText | undefined> {
    if (!opts.synced) await this.events.sync();
    const k = textKey(key);
    const hit = this.recent.get(k);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const { rows } = await this.db.query<{ text: string }>(
      `SELECT ${TEXT_COLUMNS} FROM dashplane_objects WHERE ${KEY}`,
      keyValues(key),
      'dashplane_get_text',
    );
    if (!rows.length) return undefined;
    const found = frozenText(storedText(rows[0].text));
    // an event delivered during the read may have changed it: keep only what no event overtook
    if (generation === this.generation) this.recent.set(k, found);
    return found;
  }

  async list(q: ListQuery): Promise<Envelope[]> {
    return (await this.db.query<{ doc: Envelope }>(...listSql(docColumns(q), q))).rows.map((r) => r.doc);
  }

  async listText(q: ListQuery): Promise<StoredText[]> {
    return (await this.db.query<{ text: string }>(...listSql(TEXT_COLUMNS, q))).rows.map((r) => storedText(r.text));
  }

  async snapshot(q: ListQuery): Promise<{ items: Envelope[]; revision: number }> {
    return this.db.tx(async (c) => {
      const items = (await c.query<{ doc: Envelope }>(...listSql(docColumns(q), q))).rows.map((r) => r.doc);
      const { rows } = await c.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
      return { items, revision: Number(rows[0].revision) };
    }, 'ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  create(obj: Envelope, opts: CreateOptions = {}): Promise<number> {
    return this.writes.create(obj, opts);
  }

  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    return this.writes.update(obj, opts);
  }

  delete(k: ObjectKey, opts: DeleteOptions = {}): Promise<number> {
    return this.writes.delete(k, opts);
  }

  async rewriteLoggedObjects(change: (obj: Envelope) => Envelope | undefined): Promise<number> {
    let rewritten = 0;
    let after = -1;
    for (;;) {
      const { rows } = await this.db.query<{ revision: string; object: Envelope }>(
        'SELECT revision, object FROM dashplane_events WHERE revision > $1 ORDER BY revision LIMIT 500',
        [after],
      );
      if (!rows.length) return rewritten;
      for (const row of rows) {
        const object = change(row.object);
        if (!object) continue;
        await this.db.query('UPDATE dashplane_events SET object = $2::json WHERE revision = $1', [row.revision, jsonOf(object)]);
        rewritten++;
      }
      after = Number(rows[rows.length - 1].revision);
    }
  }

  /** Candidates from the search column (postgres-search-index.ts). */
  search(q: SearchQuery): Promise<AsyncIterable<SearchCandidate> | undefined> {
    return this.searchIndex.search(q);
  }

  async revision(): Promise<number> {
    const { rows } = await this.db.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
    return Number(rows[0].revision);
  }

  watch(opts: WatchOptions): AsyncIterable<StoreEvent> {
    return this.events.watch(opts);
  }

  onEvent(listener: (e: StoreEvent) => void): () => void {
    return this.events.listen(listener);
  }

  sync(): Promise<void> {
    return this.events.sync();
  }

  /**
   * A session-level advisory lock on a dedicated connection, held while `fn` runs: excludes the
   * same key on every replica (queued in this process first, so one connection waits per key).
   */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(key, async () => {
      const client = await this.db.connect();
      try {
        await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`dashplane:${key}`]);
        try {
          return await fn();
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`dashplane:${key}`]);
        }
      } finally {
        client.release();
      }
    });
  }

  async createdRevision(k: ObjectKey): Promise<number | undefined> {
    const { rows } = await this.db.query<{ created_revision: string }>(
      `SELECT created_revision FROM dashplane_objects WHERE ${KEY}`,
      keyValues(k),
    );
    return rows.length ? Number(rows[0].created_revision) : undefined;
  }

  /** One REPEATABLE READ, READ ONLY transaction: one snapshot while writes go on (postgres-history.ts). */
  async *dump(): AsyncIterable<DumpItem> {
    const c = await this.db.connect();
    let broken = false;
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      yield* this.history.dump(c);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => (broken = true));
      throw translate(e, this.db.where);
    } finally {
      // a consumer that stops early leaves the transaction open: end it before the client goes back
      await c.query('ROLLBACK').catch(() => (broken = true));
      c.release(broken);
    }
  }
}

/** How much object text (in characters) `recent` keeps. */
const RECENT_TEXT_CHARS = 16 * 1024 * 1024;

const textKey = (k: ObjectKey) => `${k.kind}\u0000${k.project}\u0000${k.name}`;
