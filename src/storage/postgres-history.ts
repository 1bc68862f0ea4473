import type pg from 'pg';
import type { PoolClient } from 'pg';
import { jsonOf } from '../lib/json-of.js';
import type { DeletedEntry, DumpItem, Envelope, HistoryStore, ManagerEntry, ObjectKey, VersionEntry, Writer } from './store.js';
import { keyOf } from './store.js';
import { displayTitle, type HistoryPlan } from './store-rules.js';

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/** Rows per FETCH of a dump cursor. */
const DUMP_BATCH = 500;

const KEY = 'kind = $1 AND project = $2 AND name = $3';
const keyValues = (k: ObjectKey) => [k.kind, k.project, k.name];

/**
 * PostgresStore's history entries (`dashplane_history`) and managers records (a column of
 * `dashplane_objects`): what a write does to them inside its transaction, their reads (its
 * HistoryStore part), and the dump.
 */
export class PostgresHistory implements HistoryStore {
  constructor(private readonly query: Query) {}

  /** Carries out a write's history plan (store-rules.ts) inside its transaction `c`. */
  async apply(c: PoolClient, obj: Envelope, plan: HistoryPlan, writer: Writer): Promise<void> {
    const k = keyOf(obj);
    const insert = `INSERT INTO dashplane_history (kind, project, name, version, updated_by, manager, doc) VALUES ($1, $2, $3, $4, $5, $6, $7::json)
         ON CONFLICT (kind, project, name, version) DO UPDATE SET updated_by = EXCLUDED.updated_by, manager = EXCLUDED.manager, doc = EXCLUDED.doc`;
    const entry = [...keyValues(k), obj.metadata.version, writer.by, writer.manager, jsonOf(obj)];
    if (plan.dropEarlier && plan.record) {
      // one round trip: the earlier entries go (all but the version written, which the insert
      // replaces; one statement must not touch a row twice) and the new one is recorded
      await c.query({
        name: 'dashplane_history_restart',
        text: `WITH earlier AS (DELETE FROM dashplane_history WHERE ${KEY} AND version <> $4) ${insert}`,
        values: entry,
      });
    } else {
      if (plan.dropEarlier) await c.query(`DELETE FROM dashplane_history WHERE ${KEY}`, keyValues(k));
      if (plan.record) await c.query(insert, entry);
    }
    if (plan.dropBelow !== undefined)
      await c.query(`DELETE FROM dashplane_history WHERE ${KEY} AND version < $4`, [...keyValues(k), plan.dropBelow]);
  }

  async listVersions(k: ObjectKey): Promise<VersionEntry[]> {
    const { rows } = await this.query<{ version: number; updated_at: string; updated_by: string; manager: string }>(
      `SELECT version, doc->'metadata'->>'updatedAt' AS updated_at, updated_by, manager FROM dashplane_history WHERE ${KEY} ORDER BY version DESC`,
      keyValues(k),
    );
    return rows.map((r) => ({ version: r.version, updatedAt: r.updated_at, updatedBy: r.updated_by, manager: r.manager || 'unknown' }));
  }

  async getVersion(k: ObjectKey, version: number): Promise<Envelope | undefined> {
    const { rows } = await this.query<{ doc: Envelope }>(`SELECT doc FROM dashplane_history WHERE ${KEY} AND version = $4`, [
      ...keyValues(k),
      version,
    ]);
    return rows[0]?.doc;
  }

  /** Deleted objects of a scope whose history is kept, with their last entry. */
  async listDeleted(q: { kind: string; project: string }): Promise<DeletedEntry[]> {
    const { rows } = await this.query<{
      name: string;
      version: number;
      updated_at: string;
      updated_by: string;
      manager: string;
      doc_title: unknown;
    }>(
      `SELECT DISTINCT ON (h.name) h.name, h.version, h.doc->'metadata'->>'updatedAt' AS updated_at, h.updated_by, h.manager, h.doc->'spec'->'display'->'name' AS doc_title FROM dashplane_history h
       WHERE h.kind = $1 AND h.project = $2
         AND NOT EXISTS (SELECT 1 FROM dashplane_objects o WHERE o.kind = h.kind AND o.project = h.project AND o.name = h.name)
       ORDER BY h.name, h.version DESC`,
      [q.kind, q.project],
    );
    return rows.map((r) => {
      const title = displayTitle({ spec: { display: { name: r.doc_title } } });
      return {
        name: r.name,
        version: r.version,
        updatedAt: r.updated_at,
        updatedBy: r.updated_by,
        manager: r.manager || 'unknown',
        ...(title ? { title } : {}),
      };
    });
  }

  async managers(k: ObjectKey): Promise<ManagerEntry[]> {
    const { rows } = await this.query<{ managers: ManagerEntry[] }>(`SELECT managers FROM dashplane_objects WHERE ${KEY}`, keyValues(k));
    return rows[0]?.managers ?? [];
  }

  /**
   * One REPEATABLE READ, READ ONLY transaction (one snapshot, writes go on) on client `c`, read
   * through two cursors in step, both in (kind, project, name) order: objects, and the history
   * entries of objects that exist (those of deleted objects are left out). The caller begins and
   * ends the transaction.
   */
  async *dump(c: PoolClient): AsyncIterable<DumpItem> {
    const { rows } = await c.query<{ revision: string }>('SELECT revision FROM dashplane_meta WHERE id = 1');
    yield { type: 'revision', revision: Number(rows[0]?.revision ?? 0) };
    await c.query(
      'DECLARE dump_objects NO SCROLL CURSOR FOR SELECT kind, project, name, doc, managers FROM dashplane_objects ORDER BY kind, project, name',
    );
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
  }
}
