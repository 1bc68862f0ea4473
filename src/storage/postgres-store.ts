import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { ApiError, alreadyExists, badRequest, conflict, notFound, unavailable } from '../errors.js';
import { EventHub, replayThenLive } from './event-hub.js';
import { KeyedMutex, Mutex } from './mutex.js';
import { migrate } from './postgres-schema.js';
import type { CreateOptions, DeleteOptions, DumpItem, Envelope, HistoryOptions, ListQuery, ManagerEntry, ObjectKey, Store, StoreEvent, StoredText, UpdateOptions, VersionEntry, Writer } from './store.js';
import { keyOf, recordWrite } from './store.js';
import { jsonOf } from '../lib/json-of.js';
import { storedText } from './stored-text.js';
import type { AuditDraft, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';
import { AUDIT_CHANNEL, PostgresAudit } from './postgres-audit.js';

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
}

type PendingEvent = Omit<StoreEvent, 'revision'>;
/** The NOTIFY channel carrying the last revision of each commit. */
const CHANNEL = 'dashplane_events';

const MAX_ATTEMPTS = 5;
const PAGE = 500;
/** An object as its JSON text, as written (a json column keeps it verbatim; see `storedText` for the metadata). */
const TEXT_COLUMNS = `doc::text AS text`;

/** The doc column of a list: only kind and metadata when that is all the caller needs. */
function docColumn(q: ListQuery): string {
  return q.metadataOnly ? `json_build_object('kind', doc->'kind', 'metadata', doc->'metadata', 'spec', '{}'::json) AS doc` : 'doc';
}

/**
 * The PostgreSQL store (`pg`). Each write is one READ COMMITTED transaction: row locks on the
 * objects it reads (FOR UPDATE, or FOR SHARE on a parent), then the store-wide revision taken from
 * the meta row (its row lock makes revision order commit order, without gaps), the numbered events,
 * the created objects' creation revisions and history entries, all committed together. Serialisation failures and deadlocks are retried,
 * then reported as Conflict; unique violations are AlreadyExists; lost connections Unavailable.
 */
export class PostgresStore implements Store {
  private pool?: pg.Pool;
  private readonly locks = new KeyedMutex();
  private readonly hub = new EventHub();
  private readonly eventLogSize: number;
  private readonly where: string;
  /** The last revision published to this process's subscribers (every replica's commits, in order). */
  private rev = 0;
  /** Lowest revision still in the event log, as last seen by this process. */
  private firstLogged = 1;
  /** Serialises publication: events reach subscribers once each, in revision order. */
  private readonly publishing = new Mutex();
  /** The revision read of `sync` in flight, and the one queued behind it. */
  private syncing?: Promise<void>;
  private nextSync?: Promise<void>;
  /** The dedicated LISTEN connection (other replicas' commits). */
  private listener?: pg.Client;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly audit = new PostgresAudit((text, values) => this.query(text, values));

  constructor(private readonly opts: PostgresStoreOptions) {
    this.eventLogSize = opts.eventLogSize ?? 10_000;
    this.where = describeDatabase(opts);
  }

  async open(): Promise<void> {
    const { eventLogSize: _e, url, ...rest } = this.opts;
    const pool = new pg.Pool({ ...(url ? { connectionString: url } : {}), ...rest, max: this.opts.max ?? 10 });
    // an idle client losing its connection must not crash the process; the next query reports it
    pool.on('error', () => undefined);
    this.closed = false;
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw openError(e, this.where);
    }
    try {
      await migrate(client, this.where);
      const { rows } = await client.query<{ revision: string; first: string | null }>(
        'SELECT m.revision, (SELECT min(revision) FROM dashplane_events) AS first FROM dashplane_meta m WHERE m.id = 1',
      );
      this.rev = Number(rows[0].revision);
      this.firstLogged = rows[0].first === null ? this.rev + 1 : Number(rows[0].first);
    } catch (e) {
      client.release(true);
      await pool.end().catch(() => undefined);
      throw openError(e, this.where);
    }
    client.release();
    this.pool = pool;
    try {
      await this.listen();
    } catch (e) {
      this.pool = undefined;
      await pool.end().catch(() => undefined);
      throw openError(e, this.where);
    }
    // commits made between reading the revision and LISTEN
    await this.publishing.run(() => this.catchUp()).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  /**
   * LISTEN on a dedicated connection: each notification carries a commit's last revision; the
   * events are then read from the log after the last one published (so none is lost or doubled,
   * whatever notifications coalesce). A lost connection is re-established with a catch-up.
   */
  private async listen(): Promise<void> {
    const { eventLogSize: _e, url, max: _m, ...rest } = this.opts;
    const client = new pg.Client({ ...(url ? { connectionString: url } : {}), ...rest });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (n.channel === CHANNEL && Number(n.payload) > this.rev) void this.publishing.run(() => this.catchUp()).catch(() => undefined);
      if (n.channel === AUDIT_CHANNEL) this.audit.notify({ lastId: Number(n.payload) });
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    await client.query(`LISTEN ${AUDIT_CHANNEL}`);
    this.listener = client;
  }

  private scheduleReconnect(delay = 200): void {
    if (this.closed) return;
    this.reconnectTimer = setTimeout(() => {
      this.listen().then(
        () => this.publishing.run(() => this.catchUp()).catch(() => undefined),
        () => this.scheduleReconnect(Math.min(delay * 2, 5_000)),
      );
    }, delay);
    this.reconnectTimer.unref();
  }

  /** Publishes every logged event after the last published one (call under `publishing`). */
  private async catchUp(): Promise<void> {
    if (!this.pool) return;
    for (;;) {
      const { rows } = await this.query<{ revision: string; type: StoreEvent['type']; object: Envelope }>(
        'SELECT revision, type, object FROM dashplane_events WHERE revision > $1 ORDER BY revision LIMIT $2',
        [this.rev, PAGE],
      );
      if (!rows.length) return;
      const first = Number(rows[0].revision);
      // a gap after the last published revision means those events were trimmed meanwhile
      if (first > this.rev + 1) this.firstLogged = Math.max(this.firstLogged, first);
      const events = rows.map((r) => ({ type: r.type, revision: Number(r.revision), object: r.object }));
      this.rev = events[events.length - 1].revision;
      this.hub.publish(events);
      if (rows.length < PAGE) return;
    }
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1 FROM dashplane_meta WHERE id = 1');
  }

  async get(key: ObjectKey): Promise<Envelope | undefined> {
    const { rows } = await this.query<{ doc: Envelope }>('SELECT doc FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3', [key.kind, key.project, key.name]);
    return rows[0]?.doc;
  }

  /** The document's text as written (not parsed here), and its metadata. */
  async getText(key: ObjectKey): Promise<StoredText | undefined> {
    const { rows } = await this.query<{ text: string }>(`SELECT ${TEXT_COLUMNS} FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3`, [key.kind, key.project, key.name]);
    return rows.length ? storedText(rows[0].text) : undefined;
  }

  list(q: ListQuery): Promise<Envelope[]> {
    return this.listWith(docColumn(q), (text, values) => this.query<{ doc: Envelope }>(text, values), q).then((rows) => rows.map((r) => r.doc));
  }

  listText(q: ListQuery): Promise<StoredText[]> {
    return this.listWith(TEXT_COLUMNS, (text, values) => this.query<{ text: string }>(text, values), q).then((rows) => rows.map((r) => storedText(r.text)));
  }

  async snapshot(q: ListQuery): Promise<{ items: Envelope[]; revision: number }> {
    return this.tx(
      async (c) => {
        const items = (await this.listWith(docColumn(q), (text, values) => c.query<{ doc: Envelope }>(text, values), q)).map((r) => r.doc);
        const { rows } = await c.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
        return { items, revision: Number(rows[0].revision) };
      },
      'ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  create(obj: Envelope, opts: CreateOptions = {}): Promise<number> {
    return this.write(async (c) => {
      if (opts.parent) {
        const p = opts.parent;
        // FOR SHARE: the parent cannot be deleted until this write commits (and a delete that
        // committed first makes this read find nothing)
        const found = await c.query('SELECT 1 FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3 FOR SHARE', [p.kind, p.project, p.name]);
        if (!found.rowCount) throw notFound(`${p.kind} "${p.name}" not found`);
      }
      const all = [obj, ...(opts.also ?? [])];
      for (const o of all) {
        const k = keyOf(o);
        const managers = o === obj && opts.managers ? opts.managers : opts.writer ? recordWrite([], o, opts.writer) : [];
        const inserted = await c.query(
          `INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers) VALUES ($1, $2, $3, $4::json, $5, $6, $7::json)
           ON CONFLICT (kind, project, name) DO NOTHING`,
          [k.kind, k.project, k.name, jsonOf(o), o.metadata.version, o.metadata.updatedAt, JSON.stringify(managers)],
        );
        if (!inserted.rowCount) throw alreadyExists(`${o.kind} "${o.metadata.name}" already exists`);
      }
      if (opts.history) {
        const k = keyOf(obj);
        // a new object under an old name starts a new history, unless it restores the old one
        if (!opts.history.continues) await c.query('DELETE FROM dashplane_history WHERE kind = $1 AND project = $2 AND name = $3', [k.kind, k.project, k.name]);
        await this.writeHistory(c, obj, opts.history, opts.writer, !!opts.history.continues);
      }
      return all.map((o) => ({ type: 'ADDED' as const, object: o }));
    }, opts.audit);
  }

  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    return this.write(async (c) => {
      const k = keyOf(obj);
      const { rows } = await c.query<{ version: number; managers: ManagerEntry[] }>('SELECT version, managers FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3 FOR UPDATE', [
        k.kind,
        k.project,
        k.name,
      ]);
      if (!rows.length) throw notFound(`${obj.kind} "${obj.metadata.name}" not found`);
      if (rows[0].version !== opts.expectedVersion) {
        throw conflict(`${obj.kind} "${obj.metadata.name}" is at version ${rows[0].version}, not ${opts.expectedVersion}`);
      }
      const managers = opts.managers ?? (opts.writer ? recordWrite(rows[0].managers, obj, opts.writer) : rows[0].managers);
      await c.query('UPDATE dashplane_objects SET doc = $4::json, version = $5, updated_at = $6, managers = $7::json WHERE kind = $1 AND project = $2 AND name = $3', [
        k.kind,
        k.project,
        k.name,
        jsonOf(obj),
        obj.metadata.version,
        obj.metadata.updatedAt,
        JSON.stringify(managers),
      ]);
      if (opts.history) await this.writeHistory(c, obj, opts.history, opts.writer, true);
      return [{ type: 'MODIFIED' as const, object: obj }];
    }, opts.audit);
  }

  delete(k: ObjectKey, opts: DeleteOptions = {}): Promise<number> {
    return this.write(async (c) => {
      // FOR UPDATE waits for creates holding the parent FOR SHARE; the children are read after
      // (a new statement, a new snapshot), so a child committed meanwhile is deleted too
      const { rows } = await c.query<{ doc: Envelope }>('SELECT doc FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3 FOR UPDATE', [k.kind, k.project, k.name]);
      if (!rows.length) throw notFound(`${k.kind} "${k.name}" not found`);
      const obj = rows[0].doc;
      if (opts.expectedVersion !== undefined && obj.metadata.version !== opts.expectedVersion) {
        throw conflict(`${k.kind} "${k.name}" is at version ${obj.metadata.version}, not ${opts.expectedVersion}`);
      }
      if (opts.expectedUpdatedAt !== undefined && obj.metadata.updatedAt !== opts.expectedUpdatedAt) {
        throw conflict(`${k.kind} "${k.name}" was written again at ${obj.metadata.updatedAt}`);
      }
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
        await c.query('DELETE FROM dashplane_history WHERE project = $1 AND kind = ANY($2::text[]) AND NOT (kind = $3 AND project = $4 AND name = $5)', [
          project,
          kinds,
          k.kind,
          k.project,
          k.name,
        ]);
      }
      await c.query('DELETE FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3', [k.kind, k.project, k.name]);
      events.push({ type: 'DELETED', object: obj });
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

  pruneAudit(before: string): Promise<number> {
    return this.audit.prune(before);
  }

  onAudit(listener: (n: AuditNotice) => void): () => void {
    return this.audit.listen(listener);
  }

  async revision(): Promise<number> {
    const { rows } = await this.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
    return Number(rows[0].revision);
  }

  watch(opts: { since?: number; signal: AbortSignal }): AsyncIterable<StoreEvent> {
    const since = opts.since;
    if (since !== undefined && since > this.rev) throw badRequest(`revision ${since} is in the future (the store is at ${this.rev})`);
    if (since !== undefined && since < this.firstLogged - 1) throw gone(since, this.firstLogged - 1);
    // subscribe before reading the log: nothing committed from now on is missed (duplicates are skipped)
    const live = this.hub.open(opts.signal);
    const store = this;
    const replay = async function* (): AsyncGenerator<StoreEvent> {
      let cursor = since!;
      for (;;) {
        const { rows } = await store.query<{ revision: string; type: StoreEvent['type']; object: Envelope }>(
          'SELECT revision, type, object FROM dashplane_events WHERE revision > $1 ORDER BY revision LIMIT $2',
          [cursor, PAGE],
        );
        // revisions are gapless: a first event after `since` other than since+1 was trimmed
        if (cursor === since && rows.length && Number(rows[0].revision) !== since + 1) throw gone(since, Number(rows[0].revision) - 1);
        for (const r of rows) {
          if (opts.signal.aborted) return;
          cursor = Number(r.revision);
          yield { type: r.type, revision: cursor, object: r.object };
        }
        if (rows.length < PAGE) return;
      }
    };
    return replayThenLive(live, since ?? this.rev, since !== undefined ? replay : undefined);
  }

  onEvent(listener: (e: StoreEvent) => void): () => void {
    return this.hub.listen(listener);
  }

  /**
   * Other replicas' commits are notified asynchronously: one read of the revision tells whether
   * to catch up now. Concurrent callers share reads: a caller arriving while one is in flight
   * (which may have been sent before its call) waits for the next one, shared by all who arrive
   * meanwhile; under load that is two reads per round trip instead of one per request.
   */
  sync(): Promise<void> {
    if (!this.syncing) return this.startSync();
    this.nextSync ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.nextSync = undefined;
        return this.startSync();
      });
    return this.nextSync;
  }

  private startSync(): Promise<void> {
    const run = (async () => {
      const { rows } = await this.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
      if (Number(rows[0].revision) > this.rev) await this.publishing.run(() => this.catchUp());
    })().finally(() => {
      if (this.syncing === run) this.syncing = undefined;
    });
    this.syncing = run;
    return run;
  }

  /**
   * A session-level advisory lock on a dedicated connection, held while `fn` runs: excludes the
   * same key on every replica (queued in this process first, so one connection waits per key).
   */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(key, async () => {
      if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
      const client = await this.pool.connect().catch((e: unknown) => {
        throw translate(e, this.where);
      });
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
    const { rows } = await this.query<{ created_revision: string }>('SELECT created_revision FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3', [k.kind, k.project, k.name]);
    return rows.length ? Number(rows[0].created_revision) : undefined;
  }

  async listVersions(k: ObjectKey): Promise<VersionEntry[]> {
    const { rows } = await this.query<{ version: number; updated_at: string; updated_by: string; manager: string }>(
      `SELECT version, doc->'metadata'->>'updatedAt' AS updated_at, updated_by, manager FROM dashplane_history
       WHERE kind = $1 AND project = $2 AND name = $3 ORDER BY version DESC`,
      [k.kind, k.project, k.name],
    );
    return rows.map((r) => ({ version: r.version, updatedAt: r.updated_at, updatedBy: r.updated_by, manager: r.manager || 'unknown' }));
  }

  async managers(k: ObjectKey): Promise<ManagerEntry[]> {
    const { rows } = await this.query<{ managers: ManagerEntry[] }>('SELECT managers FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3', [k.kind, k.project, k.name]);
    return rows[0]?.managers ?? [];
  }

  async getVersion(k: ObjectKey, version: number): Promise<Envelope | undefined> {
    const { rows } = await this.query<{ doc: Envelope }>('SELECT doc FROM dashplane_history WHERE kind = $1 AND project = $2 AND name = $3 AND version = $4', [
      k.kind,
      k.project,
      k.name,
      version,
    ]);
    return rows[0]?.doc;
  }

  /**
   * One REPEATABLE READ, READ ONLY transaction (one snapshot, writes go on) read through two
   * cursors in step, both in (kind, project, name) order: objects, and the history entries of
   * objects that exist (those of deleted objects are left out).
   */
  async *dump(): AsyncIterable<DumpItem> {
    const c = await this.connect();
    let broken = false;
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await c.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
      yield { type: 'revision', revision: Number(rows[0]?.revision ?? 0) };
      await c.query('DECLARE dump_objects NO SCROLL CURSOR FOR SELECT kind, project, name, doc, managers FROM dashplane_objects ORDER BY kind, project, name');
      await c.query(`DECLARE dump_history NO SCROLL CURSOR FOR SELECT h.kind, h.project, h.name, h.updated_by, h.manager, h.doc FROM dashplane_history h
        JOIN dashplane_objects o ON o.kind = h.kind AND o.project = h.project AND o.name = h.name ORDER BY h.kind, h.project, h.name, h.version`);
      const fetch = async <R extends pg.QueryResultRow>(cursor: string) => (await c.query<R>(`FETCH ${DUMP_BATCH} FROM ${cursor}`)).rows;
      type Row = { kind: string; project: string; name: string; doc: Envelope; managers: ManagerEntry[] };
      let history = await fetch<Row & { updated_by: string; manager: string }>('dump_history');
      for (let objects = await fetch<Row>('dump_objects'); objects.length > 0; objects = await fetch<Row>('dump_objects')) {
        for (const o of objects) {
          for (;;) {
            if (history.length === 0) history = await fetch('dump_history');
            const h = history[0];
            if (!h || h.kind !== o.kind || h.project !== o.project || h.name !== o.name) break;
            history.shift();
            yield { type: 'version', updatedBy: h.updated_by, ...(h.manager ? { manager: h.manager } : {}), object: h.doc };
          }
          yield { type: 'object', object: o.doc, managers: o.managers };
        }
      }
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

  /** Rows of `columns` for a list query, in list order. */
  private async listWith<R>(columns: string, run: (text: string, values: unknown[]) => Promise<{ rows: R[] }>, q: ListQuery): Promise<R[]> {
    const values: unknown[] = [q.kind];
    const where = ['kind = $1'];
    if (q.project !== undefined) {
      values.push(q.project);
      where.push(`project = $${values.length}`);
    }
    if (q.namePrefix) {
      values.push(q.namePrefix);
      where.push(`starts_with(name, $${values.length})`);
    }
    if (q.after) {
      values.push(q.after.project, q.after.name);
      where.push(`(project, name) > ($${values.length - 1}::text COLLATE "C", $${values.length}::text COLLATE "C")`);
    }
    let text = `SELECT ${columns} FROM dashplane_objects WHERE ${where.join(' AND ')} ORDER BY project, name`;
    if (q.limit !== undefined) {
      values.push(q.limit);
      text += ` LIMIT $${values.length}`;
    }
    return (await run(text, values)).rows;
  }

  /** The history entry of this write; with `retain`, drops entries older than the `max` previous versions. */
  private async writeHistory(c: PoolClient, obj: Envelope, h: HistoryOptions, writer: Writer | undefined, retain: boolean): Promise<void> {
    const k = keyOf(obj);
    const w = writer ?? { by: 'unknown', manager: 'unknown' };
    await c.query(
      `INSERT INTO dashplane_history (kind, project, name, version, updated_by, manager, doc) VALUES ($1, $2, $3, $4, $5, $6, $7::json)
       ON CONFLICT (kind, project, name, version) DO UPDATE SET updated_by = EXCLUDED.updated_by, manager = EXCLUDED.manager, doc = EXCLUDED.doc`,
      [k.kind, k.project, k.name, obj.metadata.version, w.by, w.manager, jsonOf(obj)],
    );
    const keep = obj.metadata.version - h.max;
    if (retain && keep > 0) {
      await c.query('DELETE FROM dashplane_history WHERE kind = $1 AND project = $2 AND name = $3 AND version < $4', [k.kind, k.project, k.name, keep]);
    }
  }

  /**
   * One write: `build` makes the changes and returns its events; then the revision is taken from
   * the meta row, the events are logged and the log trimmed, all in one transaction. After the
   * commit the events are published in revision order, before the returned promise resolves.
   */
  private async write(build: (c: PoolClient) => Promise<PendingEvent[]>, audit: readonly AuditDraft[] = []): Promise<number> {
    const { first, events, trimmed, entries } = await this.tx(async (c) => {
      const pending = await build(c);
      // the meta row lock serialises numbering: revision order is commit order, without gaps
      const { rows } = await c.query<{ revision: string }>('UPDATE dashplane_meta SET revision = revision + $1 WHERE id = 1 RETURNING revision', [pending.length]);
      const last = Number(rows[0].revision);
      const first = last - pending.length + 1;
      const events = pending.map((e, i) => ({ ...e, revision: first + i }) as StoreEvent);
      await c.query(
        `INSERT INTO dashplane_events (revision, type, object)
         SELECT (e->>'revision')::bigint, e->>'type', e->'object' FROM json_array_elements($1::json) AS e`,
        [JSON.stringify(events)],
      );
      const created = events.filter((e) => e.type === 'ADDED').map((e) => ({ ...keyOf(e.object), revision: e.revision }));
      if (created.length) {
        await c.query(
          `UPDATE dashplane_objects o SET created_revision = x.revision
             FROM jsonb_to_recordset($1::jsonb) AS x(kind text, project text, name text, revision bigint)
            WHERE o.kind = x.kind AND o.project = x.project AND o.name = x.name`,
          [JSON.stringify(created)],
        );
      }
      const trimmed = last - this.eventLogSize >= this.firstLogged;
      if (trimmed) await c.query('DELETE FROM dashplane_events WHERE revision <= $1', [last - this.eventLogSize]);
      // delivered to every listener at commit, in commit order
      await c.query('SELECT pg_notify($1, $2)', [CHANNEL, String(last)]);
      return { first, events, trimmed, entries: await this.audit.insert(c, audit) };
    });
    this.audit.notify({ lastId: entries.length ? entries[entries.length - 1].id : 0, entries });
    const last = first + events.length - 1;
    // the log now starts after what this commit trimmed, whichever path publishes the events below
    if (trimmed) this.firstLogged = Math.max(this.firstLogged, last - this.eventLogSize + 1);
    // published before the write returns (onEvent listeners see it first), after every earlier revision
    await this.publishing.run(async () => {
      if (this.rev >= last) return;
      if (this.rev === first - 1) {
        this.rev = last;
        this.firstLogged = Math.max(this.firstLogged, last - this.eventLogSize + 1);
        this.hub.publish(events);
        return;
      }
      // an earlier commit (here or on another replica) is not published yet: read the log
      await this.catchUp();
    }).catch(() => undefined); // committed all the same; the next notification catches up
    return last;
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
        const code = (e as { code?: string }).code;
        if ((code === '40001' || code === '40P01') && attempt < MAX_ATTEMPTS) {
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

  private async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    try {
      return await this.pool.query<R>(text, values);
    } catch (e) {
      throw translate(e, this.where);
    }
  }
}

/** Rows per FETCH of a dump cursor. */
const DUMP_BATCH = 500;

function gone(since: number, oldest: number): ApiError {
  return new ApiError('Gone', `revision ${since} is older than the retained event log (oldest ${oldest}); list again and watch from the revision that list returns`);
}

/** `"db" on host:port` (never the password). */
function describeDatabase(o: PostgresStoreOptions): string {
  let host = o.host;
  let port = o.port;
  let database = o.database;
  if (o.url) {
    try {
      const u = new URL(o.url);
      host ??= u.hostname || undefined;
      port ??= u.port ? Number(u.port) : undefined;
      database ??= decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined;
    } catch {
      // an unparsable URL: pg reports it at open
    }
  }
  return `"${database ?? process.env.PGDATABASE ?? 'postgres'}" on ${host ?? process.env.PGHOST ?? 'localhost'}:${port ?? process.env.PGPORT ?? 5432}`;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return true;
  return /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end/i.test((e as Error)?.message ?? '');
}

/** pg errors -> the store's own; anything else passes through. */
function translate(e: unknown, where: string): Error {
  if (e instanceof ApiError) return e;
  const err = e as { code?: string; message?: string; detail?: string };
  switch (err.code) {
    case '23505':
      return alreadyExists(`an object with this kind, project and name already exists${err.detail ? ` (${err.detail})` : ''}`);
    case '40001':
    case '40P01':
      return conflict('a concurrent write to the same objects won; retry');
    case '22P05':
    case '22021':
      return badRequest(`the document holds text PostgreSQL cannot store (${err.message})`);
    case '53100':
      return new ApiError('InsufficientStorage', `the PostgreSQL database ${where} is out of disk space: nothing was written; free space and retry`);
    case '25006':
      return unavailable(`the PostgreSQL database ${where} is read-only (a standby?): ${err.message}`);
  }
  if (isConnectionError(e)) return unavailable(`the PostgreSQL database ${where} is unavailable: ${err.message ?? String(e)}`);
  return e as Error;
}

function openError(e: unknown, where: string): Error {
  const err = e as { code?: string; message?: string };
  const msg = err.message ?? String(e);
  if (err.code === '3D000') return new Error(`the PostgreSQL database ${where} does not exist: create it (CREATE DATABASE) or fix database.postgres`);
  if (err.code === '28P01' || err.code === '28000') return new Error(`cannot log in to the PostgreSQL database ${where}: ${msg}; check the user and password of database.postgres`);
  if (isConnectionError(e)) return new Error(`cannot reach the PostgreSQL database ${where}: ${msg}`);
  if (msg.includes(where)) return e as Error;
  return new Error(`cannot open the PostgreSQL database ${where}: ${msg}`);
}
