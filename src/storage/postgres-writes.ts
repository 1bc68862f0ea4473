import type pg from 'pg';
import type { PoolClient } from 'pg';
import { ApiError } from '../errors.js';
import { jsonOf } from '../lib/json-of.js';
import type { AuditDraft } from './audit-types.js';
import type { PostgresAudit } from './postgres-audit.js';
import { AUDIT_CHANNEL } from './postgres-audit.js';
import { isConnectionError, translate } from './postgres-errors.js';
import { EVENTS_CHANNEL, type PostgresEvents } from './postgres-events.js';
import {
  type Batched,
  type Finished,
  type GroupedWrite,
  type PendingEvent,
  PostgresGroupCommit,
  type WriteOutcome,
} from './postgres-group-commit.js';
import type { PostgresHistory } from './postgres-history.js';
import type { PostgresPool } from './postgres-pool.js';
import type { CreateOptions, DeleteOptions, Envelope, ManagerEntry, ObjectKey, StoreEvent, UpdateOptions } from './store.js';
import { keyOf } from './store.js';
import { NOBODY, checkDelete, checkUpdate, createdManagers, historyPlan, missing, taken, updatedManagers } from './store-rules.js';

const KEY = 'kind = $1 AND project = $2 AND name = $3';
const INSERT_OBJECT = 'INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers, search)';
const keyValues = (k: ObjectKey) => [k.kind, k.project, k.name];

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

/** What PostgresWrites works with: the store's pool and its parts a write goes through. */
export interface PostgresWritesParts {
  db: PostgresPool;
  events: PostgresEvents;
  audit: PostgresAudit;
  history: PostgresHistory;
  /** The search column of an object (postgres-search.ts; NULL, "not indexed", from a store without the index). */
  vectorOf: (obj: Envelope) => string | null;
}

/**
 * PostgresStore's write path: creates, updates and deletes, each one READ COMMITTED transaction
 * (or a statement of its own: createBatch) shared with the other writes of this process waiting
 * at the same time (postgres-group-commit.ts). A write takes row locks on the objects it reads
 * (FOR UPDATE, or FOR SHARE on a parent), then the shared part (`finish`) takes the store-wide
 * revision from the meta row (its row lock makes revision order commit order, without gaps) and
 * writes the numbered events, the created objects' creation revisions and the audit entries, all
 * committed together; the events are published after the commit (postgres-events.ts).
 */
export class PostgresWrites {
  private readonly group: PostgresGroupCommit;

  constructor(private readonly o: PostgresWritesParts) {
    this.group = new PostgresGroupCommit(
      (fn) => o.db.tx(fn),
      (c, events, audit) => this.finish(c, events, audit),
      (e) => translate(e, o.db.where),
      (writes) => this.createBatch(writes),
    );
  }

  /** Settles once every group being committed now has settled; undefined when none is. */
  underway(): Promise<void> | undefined {
    return this.group.underway();
  }

  /** Store.create (store.ts). */
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
          const row = [
            ...keyValues(keyOf(o)),
            jsonOf(o),
            o.metadata.version,
            o.metadata.updatedAt,
            JSON.stringify(createdManagers(o, i === 0, opts) ?? []),
            this.o.vectorOf(o),
          ];
          if (i === 0 && opts.parent) {
            // one round trip: the parent read FOR SHARE (it cannot be deleted until this write
            // commits, and a delete that committed first makes the read find nothing), the insert
            // only when it was found, and (the usual create) the history started afresh from it:
            // the document is sent once for both
            const { rows } = await c.query<{ parent: number; inserted: number }>(
              fresh
                ? {
                    name: 'dashplane_create_recorded',
                    text: CREATE_RECORDED_SQL,
                    values: [...row, ...keyValues(opts.parent), writer.by, writer.manager],
                  }
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
        if (!recorded) await this.o.history.apply(c, obj, plan, writer);
        return all.map((o) => ({ type: 'ADDED' as const, object: o }));
      },
      audit: opts.audit ?? [],
      // one object: a taken name or a missing parent is found before anything is written
      clean: !opts.also?.length,
      batch,
    });
  }

  /** Store.update. */
  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    return this.write(async (c) => {
      const k = keyOf(obj);
      const { rows } = await c.query<{ version: number; managers: ManagerEntry[] }>(
        `SELECT version, managers FROM dashplane_objects WHERE ${KEY} FOR UPDATE`,
        keyValues(k),
      );
      checkUpdate(obj, rows[0] && { ...obj.metadata, version: rows[0].version }, opts.expectedVersion);
      const managers = (await updatedManagers(obj, opts, async () => rows[0].managers)) ?? rows[0].managers;
      await c.query(
        `UPDATE dashplane_objects SET doc = $4::json, version = $5, updated_at = $6, managers = $7::json, search = $8::tsvector WHERE ${KEY}`,
        [...keyValues(k), jsonOf(obj), obj.metadata.version, obj.metadata.updatedAt, JSON.stringify(managers), this.o.vectorOf(obj)],
      );
      await this.o.history.apply(c, obj, historyPlan(obj, opts.history, 'update'), opts.writer ?? NOBODY);
      return [{ type: 'MODIFIED' as const, object: obj }];
    }, opts.audit);
  }

  /** Store.delete. */
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
        await c.query(
          'DELETE FROM dashplane_history WHERE project = $1 AND kind = ANY($2::text[]) AND NOT (kind = $3 AND project = $4 AND name = $5)',
          [project, kinds, k.kind, k.project, k.name],
        );
      }
      await c.query(`DELETE FROM dashplane_objects WHERE ${KEY}`, keyValues(k));
      events.push({ type: 'DELETED', object: obj! });
      return events;
    }, opts.audit);
  }

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
        this.o.events.logSize,
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
        this.o.audit.notify({ lastId: entries.length ? entries[entries.length - 1].id : 0, entries });
        await this.o.events.committed(first, events, this.o.events.trimBelow(last) !== undefined);
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
      result = await this.o.db.raw().query({
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
          this.o.events.logSize,
          audit.map((a) => a.w),
          audit.map((a) => a.d.time),
          audit.map((a) => a.d.action),
          audit.map((a) => a.d.user),
          audit.map((a) => a.d.kind ?? null),
          audit.map((a) => a.d.project ?? null),
          audit.map((a) => JSON.stringify(a.d)),
          EVENTS_CHANNEL,
          AUDIT_CHANNEL,
          creates.map((x) => this.o.vectorOf(x.obj)),
          creates.map((x) => x.recorded),
        ],
      });
    } catch (e) {
      if (e instanceof ApiError || isConnectionError(e)) throw translate(e, this.o.db.where);
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
