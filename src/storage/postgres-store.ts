import { createRequire } from 'node:module';
import type pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { ApiError, unavailable } from '../errors.js';
import { jsonOf } from '../lib/json-of.js';
import { consoleLog, type LogFn } from '../lib/log-fn.js';
import type { AuditDraft, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';
import { KeyedMutex } from './mutex.js';
import { AUDIT_CHANNEL, PostgresAudit } from './postgres-audit.js';
import { describeDatabase, isConnectionError, isRetryable, openError, translate } from './postgres-errors.js';
import { EVENTS_CHANNEL, PostgresEvents } from './postgres-events.js';
import { type Batched, type Finished, type GroupedWrite, type PendingEvent, PostgresGroupCommit, type WriteOutcome } from './postgres-group-commit.js';
import { PostgresHistory } from './postgres-history.js';
import { docColumns, TEXT_COLUMNS, listSql } from './postgres-list.js';
import { migrate } from './postgres-schema.js';
import { searchRows, searchVector } from './postgres-search.js';
import { RecentTexts } from './recent-texts.js';
import type {
  CreateOptions,
  DeletedEntry,
  DeleteOptions,
  DumpItem,
  Envelope,
  ListQuery,
  ManagerEntry,
  ObjectKey,
  SearchCandidate,
  SearchQuery,
  Store,
  StoreEvent,
  StoredText,
  UpdateOptions,
  VersionEntry,
  WatchOptions,
} from './store.js';
import { keyOf } from './store.js';
import { NOBODY, checkDelete, checkUpdate, createdManagers, historyPlan, missing, taken, updatedManagers } from './store-rules.js';
import { frozenText, storedText } from './stored-text.js';

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
const KEY = 'kind = $1 AND project = $2 AND name = $3';
const INSERT_OBJECT = 'INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers, search)';
const keyValues = (k: ObjectKey) => [k.kind, k.project, k.name];

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
function driverConfig(opts: PostgresStoreOptions): pg.ClientConfig {
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

const pgDriver = (): typeof pg => (driver ??= createRequire(import.meta.url)('pg') as typeof pg);

/** A child's create ($1-$8 the object's row, $9-$11 the parent's key): the parent read FOR SHARE, the insert only when it was found. */
const CHILD_INSERTED = `parent AS (SELECT 1 FROM dashplane_objects WHERE kind = $9 AND project = $10 AND name = $11 FOR SHARE),
  inserted AS (${INSERT_OBJECT} SELECT $1, $2, $3, $4::json, $5, $6, $7::json, $8::tsvector WHERE EXISTS (SELECT 1 FROM parent) ON CONFLICT (kind, project, name) DO NOTHING RETURNING 1)`;
/** What a create statement answers: whether the parent was found, whether the object was inserted. */
const CREATE_ANSWER = 'SELECT (SELECT count(*) FROM parent)::int AS parent, (SELECT count(*) FROM inserted)::int AS inserted';

const CREATE_CHILD_SQL = `WITH ${CHILD_INSERTED} ${CREATE_ANSWER}`;

/**
 * CREATE_CHILD_SQL and, when inserted, the name's history started afresh: earlier entries (of a
 * deleted object of this name) dropped, the first recorded ($12 by, $13 manager). The delete spares
 * the version written, which the insert replaces (one statement must not touch a row twice).
 */
const CREATE_RECORDED_SQL = `WITH ${CHILD_INSERTED},
  earlier AS (DELETE FROM dashplane_history WHERE ${KEY} AND version <> $5 AND EXISTS (SELECT 1 FROM inserted)),
  recorded AS (INSERT INTO dashplane_history (kind, project, name, version, updated_by, manager, doc) SELECT $1, $2, $3, $5, $12, $13, $4::json WHERE EXISTS (SELECT 1 FROM inserted)
    ON CONFLICT (kind, project, name, version) DO UPDATE SET updated_by = EXCLUDED.updated_by, manager = EXCLUDED.manager, doc = EXCLUDED.doc)
  ${CREATE_ANSWER}`;

/**
 * The PostgreSQL store (`pg`). Each write is one READ COMMITTED transaction: row locks on the
 * objects it reads (FOR UPDATE, or FOR SHARE on a parent), then the store-wide revision taken from
 * the meta row (its row lock makes revision order commit order, without gaps), the numbered events,
 * the created objects' creation revisions and history entries, all committed together. Serialisation
 * failures and deadlocks are retried, then reported as Conflict; unique violations are
 * AlreadyExists; lost connections Unavailable (postgres-errors.ts). Events reach other replicas
 * through postgres-events.ts; the rules every driver follows are store-rules.ts.
 */
export class PostgresStore implements Store {
  private pool?: pg.Pool | undefined;
  private readonly locks = new KeyedMutex();
  private readonly where: string;
  private readonly audit = new PostgresAudit((text, values) => this.query(text, values));
  private readonly history = new PostgresHistory((text, values) => this.query(text, values));
  private readonly events: PostgresEvents;
  /**
   * Texts of objects read lately, dropped by any replica's event for them (and all of them when
   * events were missed). `getText` first calls `sync` (or its caller did), which delivers every
   * event committed before it, so a text served from here is as fresh as a query.
   */
  private readonly recent = new RecentTexts(RECENT_TEXT_CHARS);
  /** Bumped by every event: a read that an event overtook is not kept in `recent`. */
  private generation = 0;
  private readonly group = new PostgresGroupCommit(
    (fn) => this.tx(fn),
    (c, events, audit) => this.finish(c, events, audit),
    (e) => translate(e, this.where),
    (writes) => this.createBatch(writes),
  );

  /** The kinds the search column indexes (none: this store writes NULL, "not indexed", for every object). */
  private readonly searchKinds: ReadonlySet<string>;
  private readonly log: LogFn;
  /** The background indexing of rows written without the search column (see fillSearch), while it runs. */
  private indexing?: Promise<void> | undefined;
  /** When no row lacked its search column, last checked (performance.now()). */
  private indexedAt = -Infinity;
  private closing = false;

  constructor(private readonly opts: PostgresStoreOptions) {
    this.where = describeDatabase(opts);
    this.searchKinds = new Set(opts.searchKinds ?? []);
    this.log = opts.log ?? consoleLog;
    this.events = new PostgresEvents({
      query: (text, values, name) => this.query(text, values, name),
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
      underway: () => this.group.underway(),
    });
    this.events.listen((e) => {
      this.generation++;
      this.recent.delete(textKey(keyOf(e.object)));
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
      throw openError(e, this.where);
    }
    let start: { revision: string; first: string | null };
    try {
      await migrate(client, this.where);
      const { rows } = await client.query<{ revision: string; first: string | null }>('SELECT m.revision, (SELECT min(revision) FROM dashplane_events) AS first FROM dashplane_meta m WHERE m.id = 1');
      start = rows[0];
    } catch (e) {
      client.release(true);
      await pool.end().catch(() => undefined);
      throw openError(e, this.where);
    }
    client.release();
    this.pool = pool;
    try {
      await this.events.start(Number(start.revision), start.first === null ? null : Number(start.first));
    } catch (e) {
      await this.events.stop();
      this.pool = undefined;
      await pool.end().catch(() => undefined);
      throw openError(e, this.where);
    }
    this.closing = false;
    this.indexedAt = -Infinity;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.indexing;
    await this.events.stop();
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1 FROM dashplane_meta WHERE id = 1');
  }

  async get(key: ObjectKey): Promise<Envelope | undefined> {
    const { rows } = await this.query<{ doc: Envelope }>(`SELECT doc FROM dashplane_objects WHERE ${KEY}`, keyValues(key), 'dashplane_get');
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
    const { rows } = await this.query<{ text: string }>(`SELECT ${TEXT_COLUMNS} FROM dashplane_objects WHERE ${KEY}`, keyValues(key), 'dashplane_get_text');
    if (!rows.length) return undefined;
    const found = frozenText(storedText(rows[0].text));
    // an event delivered during the read may have changed it: keep only what no event overtook
    if (generation === this.generation) this.recent.set(k, found);
    return found;
  }

  async list(q: ListQuery): Promise<Envelope[]> {
    return (await this.query<{ doc: Envelope }>(...listSql(docColumns(q), q))).rows.map((r) => r.doc);
  }

  async listText(q: ListQuery): Promise<StoredText[]> {
    return (await this.query<{ text: string }>(...listSql(TEXT_COLUMNS, q))).rows.map((r) => storedText(r.text));
  }

  async snapshot(q: ListQuery): Promise<{ items: Envelope[]; revision: number }> {
    return this.tx(async (c) => {
      const items = (await c.query<{ doc: Envelope }>(...listSql(docColumns(q), q))).rows.map((r) => r.doc);
      const { rows } = await c.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
      return { items, revision: Number(rows[0].revision) };
    }, 'ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  create(obj: Envelope, opts: CreateOptions = {}): Promise<number> {
    const plan = historyPlan(obj, opts.history, 'create');
    const writer = opts.writer ?? NOBODY;
    // the usual create: its history started afresh from the version written
    const fresh = plan.dropEarlier && plan.record && plan.dropBelow === undefined;
    // a new object (under its parent, if it has one), its history started afresh or not kept, can be made together with others like it in one statement (createBatch)
    const batch: BatchCreate | undefined =
      !opts.also?.length && plan.dropEarlier && plan.dropBelow === undefined
        ? { obj, parent: opts.parent, writer, managers: JSON.stringify(createdManagers(obj, true, opts) ?? []), recorded: plan.record }
        : undefined;
    return this.group.write({
      build: async (c) => {
        const all = [obj, ...(opts.also ?? [])];
        let recorded = false;
        for (const [i, o] of all.entries()) {
          const row = [...keyValues(keyOf(o)), jsonOf(o), o.metadata.version, o.metadata.updatedAt, JSON.stringify(createdManagers(o, i === 0, opts) ?? []), this.vectorOf(o)];
          if (i === 0 && opts.parent) {
            // one round trip: the parent read FOR SHARE (it cannot be deleted until this write
            // commits, and a delete that committed first makes the read find nothing), the insert
            // only when it was found, and (the usual create) the history started afresh from it:
            // the document is sent once for both
            const { rows } = await c.query<{ parent: number; inserted: number }>(
              fresh
                ? { name: 'dashplane_create_recorded', text: CREATE_RECORDED_SQL, values: [...row, ...keyValues(opts.parent), writer.by, writer.manager] }
                : { name: 'dashplane_create_child', text: CREATE_CHILD_SQL, values: [...row, ...keyValues(opts.parent)] },
            );
            if (!rows[0].parent) throw missing(opts.parent);
            if (!rows[0].inserted) throw taken(o);
            recorded = fresh;
            continue;
          }
          const inserted = await c.query({
            name: 'dashplane_create',
            text: `${INSERT_OBJECT} VALUES ($1, $2, $3, $4::json, $5, $6, $7::json, $8::tsvector) ON CONFLICT (kind, project, name) DO NOTHING`,
            values: row,
          });
          if (!inserted.rowCount) throw taken(o);
        }
        if (!recorded) await this.history.apply(c, obj, plan, writer);
        return all.map((o) => ({ type: 'ADDED' as const, object: o }));
      },
      audit: opts.audit ?? [],
      // one object: a taken name or a missing parent is found before anything is written
      clean: !opts.also?.length,
      batch,
    });
  }

  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    return this.write(async (c) => {
      const k = keyOf(obj);
      const { rows } = await c.query<{ version: number; managers: ManagerEntry[] }>(`SELECT version, managers FROM dashplane_objects WHERE ${KEY} FOR UPDATE`, keyValues(k));
      checkUpdate(obj, rows[0] && { ...obj.metadata, version: rows[0].version }, opts.expectedVersion);
      const managers = (await updatedManagers(obj, opts, async () => rows[0].managers)) ?? rows[0].managers;
      await c.query(`UPDATE dashplane_objects SET doc = $4::json, version = $5, updated_at = $6, managers = $7::json, search = $8::tsvector WHERE ${KEY}`, [
        ...keyValues(k),
        jsonOf(obj),
        obj.metadata.version,
        obj.metadata.updatedAt,
        JSON.stringify(managers),
        this.vectorOf(obj),
      ]);
      await this.history.apply(c, obj, historyPlan(obj, opts.history, 'update'), opts.writer ?? NOBODY);
      return [{ type: 'MODIFIED' as const, object: obj }];
    }, opts.audit);
  }

  delete(k: ObjectKey, opts: DeleteOptions = {}): Promise<number> {
    return this.write(async (c) => {
      // FOR UPDATE waits for creates holding the parent FOR SHARE; the children are read after
      // (a new statement, a new snapshot), so a child committed meanwhile is deleted too
      const { rows } = await c.query<{ doc: Envelope }>(`SELECT doc FROM dashplane_objects WHERE ${KEY} FOR UPDATE`, keyValues(k));
      const obj = rows[0]?.doc;
      checkDelete(k, obj?.metadata, opts);
      const events: PendingEvent[] = [];
      const kinds = [...(opts.children?.kinds ?? [])];
      if (opts.children && kinds.length) {
        const project = opts.children.project;
        const deleted = await c.query<{ kind: string; project: string; name: string; doc: Envelope }>(
          `DELETE FROM dashplane_objects WHERE project = $1 AND kind = ANY($2::text[])
             AND NOT (kind = $3 AND project = $4 AND name = $5)
           RETURNING kind, project, name, doc`,
          [project, kinds, k.kind, k.project, k.name],
        );
        const rank = (kind: string) => kinds.indexOf(kind);
        deleted.rows.sort((a, b) => rank(a.kind) - rank(b.kind) || Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
        for (const r of deleted.rows) events.push({ type: 'DELETED', object: r.doc });
        await c.query('DELETE FROM dashplane_history WHERE project = $1 AND kind = ANY($2::text[]) AND NOT (kind = $3 AND project = $4 AND name = $5)', [project, kinds, k.kind, k.project, k.name]);
      }
      await c.query(`DELETE FROM dashplane_objects WHERE ${KEY}`, keyValues(k));
      events.push({ type: 'DELETED', object: obj! });
      return events;
    }, opts.audit);
  }

  async appendAudit(drafts: readonly AuditDraft[]): Promise<void> {
    if (!drafts.length) return;
    const entries = await this.tx((c) => this.audit.insert(c, drafts));
    this.audit.notify({ lastId: entries[entries.length - 1].id, entries });
  }

  listAudit(q: AuditQuery): Promise<AuditPage> {
    return this.audit.list(q);
  }

  lastAuditId(): Promise<number> {
    return this.audit.lastId();
  }

  async rewriteLoggedObjects(change: (obj: Envelope) => Envelope | undefined): Promise<number> {
    let rewritten = 0;
    let after = -1;
    for (;;) {
      const { rows } = await this.query<{ revision: string; object: Envelope }>('SELECT revision, object FROM dashplane_events WHERE revision > $1 ORDER BY revision LIMIT 500', [after]);
      if (!rows.length) return rewritten;
      for (const row of rows) {
        const object = change(row.object);
        if (!object) continue;
        await this.query('UPDATE dashplane_events SET object = $2::json WHERE revision = $1', [row.revision, jsonOf(object)]);
        rewritten++;
      }
      after = Number(rows[rows.length - 1].revision);
    }
  }

  pruneAudit(before: string): Promise<number> {
    return this.audit.prune(before);
  }

  onAudit(listener: (n: AuditNotice) => void): () => void {
    return this.audit.listen(listener);
  }

  /**
   * Candidates from the search column (postgres-search.ts); undefined without the index, or while
   * rows are not indexed yet (written before the column, or by a store without it): this store
   * then indexes them in the background. Whether any row lacks its column is checked again at most
   * every UNINDEXED_CHECK_MS.
   */
  async search(q: SearchQuery): Promise<AsyncIterable<SearchCandidate> | undefined> {
    if (!this.searchKinds.size) return undefined;
    if (performance.now() - this.indexedAt > UNINDEXED_CHECK_MS) {
      const { rows } = await this.query('SELECT 1 FROM dashplane_objects WHERE search IS NULL LIMIT 1', [], 'dashplane_unindexed');
      if (rows.length) {
        this.indexing ??= this.exclusive(SEARCH_INDEXING_LOCK, () => this.fillSearch())
          .catch((e) => {
            if (!this.closing) this.log('warn', `the search index was not completed (searches read every object until it is): ${(e as Error).message}`);
          })
          .finally(() => (this.indexing = undefined));
        return undefined;
      }
      this.indexedAt = performance.now();
    }
    return searchRows((text, values) => this.query(text, values), q);
  }

  /** The search column of `obj` (NULL, "not indexed", from a store without the index). */
  private vectorOf(obj: Envelope): string | null {
    return this.searchKinds.size ? searchVector(obj, this.searchKinds) : null;
  }

  /**
   * Indexes the rows without a search column, a page at a time, on one replica at a time (the
   * lock): each row is updated only if still unindexed and unchanged (a write meanwhile indexed it,
   * or changed it and will be read again).
   */
  private async fillSearch(): Promise<void> {
    const started = performance.now();
    let done = 0;
    while (!this.closing) {
      const { rows } = await this.query<{ kind: string; project: string; name: string; text: string }>(
        'SELECT kind, project, name, doc::text AS text FROM dashplane_objects WHERE search IS NULL ORDER BY kind, project, name LIMIT 200',
      );
      if (!rows.length) break;
      const vectors = rows.map((r) => searchVector(JSON.parse(r.text) as Envelope, this.searchKinds));
      const updated = await this.query(
        `UPDATE dashplane_objects o SET search = v.search::tsvector
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(kind, project, name, doc, search)
          WHERE o.kind = v.kind COLLATE "C" AND o.project = v.project COLLATE "C" AND o.name = v.name COLLATE "C" AND o.search IS NULL AND o.doc::text = v.doc`,
        [rows.map((r) => r.kind), rows.map((r) => r.project), rows.map((r) => r.name), rows.map((r) => r.text), vectors],
      );
      done += updated.rowCount ?? 0;
    }
    if (done) this.log('info', `search index: ${done} objects indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  async revision(): Promise<number> {
    const { rows } = await this.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
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
      const client = await this.connect();
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
    const { rows } = await this.query<{ created_revision: string }>(`SELECT created_revision FROM dashplane_objects WHERE ${KEY}`, keyValues(k));
    return rows.length ? Number(rows[0].created_revision) : undefined;
  }

  listVersions(k: ObjectKey): Promise<VersionEntry[]> {
    return this.history.list(k);
  }

  listDeleted(q: { kind: string; project: string }): Promise<DeletedEntry[]> {
    return this.history.listDeleted(q);
  }

  managers(k: ObjectKey): Promise<ManagerEntry[]> {
    return this.history.managers(k);
  }

  getVersion(k: ObjectKey, version: number): Promise<Envelope | undefined> {
    return this.history.get(k, version);
  }

  /** One REPEATABLE READ, READ ONLY transaction: one snapshot while writes go on (postgres-history.ts). */
  async *dump(): AsyncIterable<DumpItem> {
    const c = await this.connect();
    let broken = false;
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      yield* this.history.dump(c);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => (broken = true));
      throw translate(e, this.where);
    } finally {
      // a consumer that stops early leaves the transaction open: end it before the client goes back
      await c.query('ROLLBACK').catch(() => (broken = true));
      c.release(broken);
    }
  }

  // --- internals ---

  /**
   * One write: `build` makes the changes (inside a transaction, possibly shared with other writes
   * of this process: postgres-group-commit.ts) and returns its events. Resolves once committed
   * and published, to the revision of its last event.
   */
  private write(build: (c: PoolClient) => Promise<PendingEvent[]>, audit: readonly AuditDraft[] = [], clean = false): Promise<number> {
    return this.group.write({ build, audit, clean });
  }

  /**
   * The part of a write transaction its writes share, in one statement (FINISH_SQL): the revision
   * taken from the meta row, the events logged and the log trimmed, the creation revisions, the
   * audit entries numbered and inserted, the notifications. Both rows it locks (the revision and
   * the audit number) are held until the commit, so this is the part of a write that replicas
   * and parallel groups go through one at a time: one round trip, not one per step. After the
   * commit the events are published in revision order (`publish`), before the writes' promises
   * resolve.
   */
  private async finish(c: PoolClient, pending: PendingEvent[], audit: readonly AuditDraft[]): Promise<Finished> {
    const created = pending.flatMap((e, i) => (e.type === 'ADDED' ? [{ key: keyOf(e.object), i: i + 1 }] : []));
    const col = <T>(xs: readonly T[], f: (x: T) => unknown) => xs.map(f);
    const { rows } = await c.query<{ base: string; audit_base: string | null }>({
      name: 'dashplane_finish',
      text: FINISH_SQL,
      values: [
        pending.length,
        col(pending, (e) => e.type),
        // one JSON array, not a json[]: the driver escapes every quote of an array's elements (about
        // 200 us of CPU per 10 KB document, measured), and a JSON array's text needs nothing
        `[${col(pending, (e) => jsonOf(e.object)).join(',')}]`,
        col(created, (x) => x.key.kind),
        col(created, (x) => x.key.project),
        col(created, (x) => x.key.name),
        col(created, (x) => x.i),
        this.events.logSize,
        audit.length,
        col(audit, (d) => d.time),
        col(audit, (d) => d.action),
        col(audit, (d) => d.user),
        col(audit, (d) => d.kind ?? null),
        col(audit, (d) => d.project ?? null),
        col(audit, (d) => JSON.stringify(d)),
        EVENTS_CHANNEL,
        AUDIT_CHANNEL,
      ],
    });
    return this.committed(Number(rows[0].base), pending, Number(rows[0].audit_base ?? 0), audit);
  }

  /** What a commit that wrote `pending` after revision `base` (and `audit` after audit id `auditBase`) publishes. */
  private committed(base: number, pending: readonly PendingEvent[], auditBase: number, audit: readonly AuditDraft[]): Finished {
    const first = base + 1;
    const last = first + pending.length - 1;
    const events = pending.map((e, i) => ({ ...e, revision: first + i }) as StoreEvent);
    const entries = audit.map((d, i) => ({ id: auditBase + i + 1, ...d }));
    return {
      last,
      publish: async () => {
        this.audit.notify({ lastId: entries.length ? entries[entries.length - 1].id : 0, entries });
        await this.events.committed(first, events, this.events.trimBelow(last) !== undefined);
      },
    };
  }

  /**
   * Creates of new objects (each `batch` a BatchCreate), made in one statement outside an
   * explicit transaction (migration 8's function): one round trip for the group. A create whose
   * parent is missing or whose name is taken is refused alone. Undefined when the database
   * refused the statement as a whole (nothing was written): the group is then made in a
   * transaction, which finds the write at fault; a lost connection rejects the group.
   */
  private async createBatch(writes: readonly GroupedWrite[]): Promise<Batched | undefined> {
    const creates = writes.map((w) => w.batch as BatchCreate);
    const audit = writes.flatMap((w, i) => w.audit.map((d) => ({ w: i + 1, d })));
    let result: pg.QueryResult<{ statuses: string[]; base: string | null; audit_base: string | null }>;
    try {
      if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
      result = await this.pool.query({
        name: 'dashplane_create_batch',
        text: CREATE_BATCH_SQL,
        values: [
          creates.map((x) => x.obj.kind),
          creates.map((x) => x.obj.metadata.project ?? ''),
          creates.map((x) => x.obj.metadata.name),
          `[${creates.map((x) => jsonOf(x.obj)).join(',')}]`,
          creates.map((x) => x.obj.metadata.version),
          creates.map((x) => x.obj.metadata.updatedAt),
          `[${creates.map((x) => x.managers).join(',')}]`,
          creates.map((x) => x.parent?.kind ?? null),
          creates.map((x) => x.parent?.project ?? null),
          creates.map((x) => x.parent?.name ?? null),
          creates.map((x) => x.writer.by),
          creates.map((x) => x.writer.manager),
          this.events.logSize,
          audit.map((a) => a.w),
          audit.map((a) => a.d.time),
          audit.map((a) => a.d.action),
          audit.map((a) => a.d.user),
          audit.map((a) => a.d.kind ?? null),
          audit.map((a) => a.d.project ?? null),
          audit.map((a) => JSON.stringify(a.d)),
          EVENTS_CHANNEL,
          AUDIT_CHANNEL,
          creates.map((x) => this.vectorOf(x.obj)),
          creates.map((x) => x.recorded),
        ],
      });
    } catch (e) {
      if (e instanceof ApiError || isConnectionError(e)) throw translate(e, this.where);
      return undefined;
    }
    const row = result.rows[0];
    const outcomes: WriteOutcome[] = creates.map((x, i) => {
      const status = row.statuses[i];
      if (status === 'ok') return { ok: true, events: [{ type: 'ADDED', object: x.obj }] };
      return { ok: false, error: status === 'missing' && x.parent ? missing(x.parent) : taken(x.obj) };
    });
    if (row.base === null) return { outcomes, last: 0, publish: async () => undefined };
    const passed = outcomes.flatMap((o) => (o.ok ? o.events : []));
    const audited = audit.filter((a) => outcomes[a.w - 1].ok).map((a) => a.d);
    return { outcomes, ...this.committed(Number(row.base), passed, Number(row.audit_base ?? 0), audited) };
  }

  /** A transaction, retried on serialisation failures and deadlocks; errors translated. */
  private async tx<T>(fn: (c: PoolClient) => Promise<T>, mode = ''): Promise<T> {
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

  private async connect(): Promise<PoolClient> {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    try {
      return await this.pool.connect();
    } catch (e) {
      throw translate(e, this.where);
    }
  }

  /** `name`: a statement prepared once per connection (the hot reads: no parse and plan on each call). */
  private async query<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    try {
      return await (name ? this.pool.query<R>({ name, text, ...(values ? { values } : {}) }) : this.pool.query<R>(text, values));
    } catch (e) {
      throw translate(e, this.where);
    }
  }
}

/** A create createBatch can make: a new object (under its parent, if any), its history started afresh (or not kept). */
interface BatchCreate {
  obj: Envelope;
  /** Absent: a create without a parent (a project). */
  parent?: ObjectKey | undefined;
  writer: { by: string; manager: string };
  /** The managers record, as JSON. */
  managers: string;
  /** Its first history entry is kept (a kind with history). */
  recorded: boolean;
}

/** Migration 9's function, its parameters in the order of its declaration. */
const CREATE_BATCH_SQL = `SELECT statuses, base, audit_base FROM dashplane_create_batch(${Array.from({ length: 24 }, (_, i) => `$${i + 1}`).join(', ')})`;

/** How much object text (in characters) `recent` keeps. */
const RECENT_TEXT_CHARS = 16 * 1024 * 1024;

/** How long a check that every row has its search column holds (rows written by a store without the index are indexed once the next check sees them). */
const UNINDEXED_CHECK_MS = 10_000;

/** The `exclusive` key of the background indexing: one replica at a time. */
const SEARCH_INDEXING_LOCK = 'search-index';

const textKey = (k: ObjectKey) => `${k.kind}\u0000${k.project}\u0000${k.name}`;

/**
 * A write transaction's shared part (see `finish`), one statement. Parameters: $1 the number of
 * events, $2 their types, $3 their objects as one JSON array; $4-$7 the created objects' keys and their event's
 * position (from 1); $8 the events kept in the log; $9 the number of audit entries, $10-$15 their
 * columns and their JSON without the id (the id, taken here, is put first, as JSON.stringify of
 * `{id, ...draft}` writes it); $16/$17 the notification channels. Keys compare in the key columns'
 * collation, so the update finds its rows through the primary key. Arrays, not VALUES lists: one
 * text, prepared once per connection, whatever the number of rows (and no parameter limit).
 */
const FINISH_SQL = `
  WITH m AS (UPDATE dashplane_meta SET revision = revision + $1 WHERE id = 1 RETURNING revision - $1 AS base),
  ev AS (
    INSERT INTO dashplane_events (revision, type, object)
    SELECT m.base + e.i, e.type, e.object FROM m, ROWS FROM (unnest($2::text[]), json_array_elements($3::json)) WITH ORDINALITY AS e(type, object, i)
  ),
  cr AS (
    UPDATE dashplane_objects o SET created_revision = m.base + x.i
      FROM m, unnest($4::text[], $5::text[], $6::text[], $7::bigint[]) AS x(kind, project, name, i)
     WHERE o.kind = x.kind COLLATE "C" AND o.project = x.project COLLATE "C" AND o.name = x.name COLLATE "C"
  ),
  a AS (UPDATE dashplane_audit_seq SET last = last + $9 WHERE id = 1 AND $9 > 0 RETURNING last - $9 AS base),
  ai AS (
    INSERT INTO dashplane_audit (id, time, action, "user", kind, project, entry)
    SELECT a.base + d.i, d.time::timestamptz, d.action, d.usr, d.kind, d.project, ('{"id":' || (a.base + d.i) || ',' || substr(d.entry, 2))::json
      FROM a, unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[]) WITH ORDINALITY AS d(time, action, usr, kind, project, entry, i)
  )
  SELECT m.base, (SELECT base FROM a) AS audit_base,
         dashplane_trim_events(m.base, $1, $8),
         pg_notify($16, (m.base + $1)::text),
         CASE WHEN $9 > 0 THEN pg_notify($17, ((SELECT base FROM a) + $9)::text) END
    FROM m`;
