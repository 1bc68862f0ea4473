import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { unavailable } from '../errors.js';
import { jsonOf } from '../lib/json-of.js';
import type { AuditDraft, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';
import { KeyedMutex } from './mutex.js';
import { AUDIT_CHANNEL, PostgresAudit } from './postgres-audit.js';
import { describeDatabase, isRetryable, openError, translate } from './postgres-errors.js';
import { EVENTS_CHANNEL, PostgresEvents } from './postgres-events.js';
import { PostgresHistory } from './postgres-history.js';
import { docColumns, TEXT_COLUMNS, listSql } from './postgres-list.js';
import { migrate } from './postgres-schema.js';
import type { CreateOptions, DeletedEntry, DeleteOptions, DumpItem, Envelope, ListQuery, ManagerEntry, ObjectKey, Store, StoreEvent, StoredText, UpdateOptions, VersionEntry } from './store.js';
import { keyOf } from './store.js';
import { NOBODY, checkDelete, checkUpdate, createdManagers, historyPlan, missing, taken, updatedManagers } from './store-rules.js';
import { storedText } from './stored-text.js';

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

const MAX_ATTEMPTS = 5;
const KEY = 'kind = $1 AND project = $2 AND name = $3';
const keyValues = (k: ObjectKey) => [k.kind, k.project, k.name];

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
  private pool?: pg.Pool;
  private readonly locks = new KeyedMutex();
  private readonly where: string;
  private readonly audit = new PostgresAudit((text, values) => this.query(text, values));
  private readonly history = new PostgresHistory((text, values) => this.query(text, values));
  private readonly events: PostgresEvents;

  constructor(private readonly opts: PostgresStoreOptions) {
    this.where = describeDatabase(opts);
    const { eventLogSize: _e, url, max: _m, ...rest } = opts;
    this.events = new PostgresEvents({
      query: (text, values) => this.query(text, values),
      client: () => new pg.Client({ ...(url ? { connectionString: url } : {}), ...rest }),
      eventLogSize: opts.eventLogSize ?? 10_000,
      channels: [AUDIT_CHANNEL],
      notified: (channel, payload) => {
        if (channel === AUDIT_CHANNEL) this.audit.notify({ lastId: Number(payload) });
      },
    });
  }

  async open(): Promise<void> {
    const { eventLogSize: _e, url, ...rest } = this.opts;
    const pool = new pg.Pool({ ...(url ? { connectionString: url } : {}), ...rest, max: this.opts.max ?? 10 });
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
  }

  async close(): Promise<void> {
    await this.events.stop();
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1 FROM dashplane_meta WHERE id = 1');
  }

  async get(key: ObjectKey): Promise<Envelope | undefined> {
    const { rows } = await this.query<{ doc: Envelope }>(`SELECT doc FROM dashplane_objects WHERE ${KEY}`, keyValues(key));
    return rows[0]?.doc;
  }

  /** The document's text as written (not parsed here), and its metadata. */
  async getText(key: ObjectKey): Promise<StoredText | undefined> {
    const { rows } = await this.query<{ text: string }>(`SELECT ${TEXT_COLUMNS} FROM dashplane_objects WHERE ${KEY}`, keyValues(key));
    return rows.length ? storedText(rows[0].text) : undefined;
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
    return this.write(async (c) => {
      if (opts.parent) {
        // FOR SHARE: the parent cannot be deleted until this write commits (and a delete that
        // committed first makes this read find nothing)
        const found = await c.query(`SELECT 1 FROM dashplane_objects WHERE ${KEY} FOR SHARE`, keyValues(opts.parent));
        if (!found.rowCount) throw missing(opts.parent);
      }
      const all = [obj, ...(opts.also ?? [])];
      for (const [i, o] of all.entries()) {
        const inserted = await c.query(
          `INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers) VALUES ($1, $2, $3, $4::json, $5, $6, $7::json)
           ON CONFLICT (kind, project, name) DO NOTHING`,
          [...keyValues(keyOf(o)), jsonOf(o), o.metadata.version, o.metadata.updatedAt, JSON.stringify(createdManagers(o, i === 0, opts) ?? [])],
        );
        if (!inserted.rowCount) throw taken(o);
      }
      await this.history.apply(c, obj, historyPlan(obj, opts.history, 'create'), opts.writer ?? NOBODY);
      return all.map((o) => ({ type: 'ADDED' as const, object: o }));
    }, opts.audit);
  }

  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    return this.write(async (c) => {
      const k = keyOf(obj);
      const { rows } = await c.query<{ version: number; managers: ManagerEntry[] }>(`SELECT version, managers FROM dashplane_objects WHERE ${KEY} FOR UPDATE`, keyValues(k));
      checkUpdate(obj, rows[0] && { ...obj.metadata, version: rows[0].version }, opts.expectedVersion);
      const managers = (await updatedManagers(obj, opts, async () => rows[0].managers)) ?? rows[0].managers;
      await c.query(`UPDATE dashplane_objects SET doc = $4::json, version = $5, updated_at = $6, managers = $7::json WHERE ${KEY}`, [
        ...keyValues(k),
        jsonOf(obj),
        obj.metadata.version,
        obj.metadata.updatedAt,
        JSON.stringify(managers),
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
      const trimBelow = this.events.trimBelow(last);
      if (trimBelow !== undefined) await c.query('DELETE FROM dashplane_events WHERE revision < $1', [trimBelow]);
      // delivered to every listener at commit, in commit order
      await c.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, String(last)]);
      return { first, events, trimmed: trimBelow !== undefined, entries: await this.audit.insert(c, audit) };
    });
    this.audit.notify({ lastId: entries.length ? entries[entries.length - 1].id : 0, entries });
    await this.events.committed(first, events, trimmed);
    return first + events.length - 1;
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

  private async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (!this.pool) throw unavailable(`the PostgreSQL store ${this.where} is not open`);
    try {
      return await this.pool.query<R>(text, values);
    } catch (e) {
      throw translate(e, this.where);
    }
  }
}
