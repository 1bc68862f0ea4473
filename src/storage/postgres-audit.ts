import type pg from 'pg';
import type { PoolClient } from 'pg';
import type { AuditDraft, AuditEntry, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';
import type { AuditStore } from './store.js';

/** The NOTIFY channel carrying the last audit id of each commit. */
export const AUDIT_CHANNEL = 'dashplane_audit';

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;
type Transaction = <T>(fn: (c: PoolClient) => Promise<T>) => Promise<T>;

/**
 * The audit log inside PostgresStore: rows of `dashplane_audit`, numbered from the one row of
 * `dashplane_audit_seq`, whose lock (held to commit) makes id order commit order without gaps.
 * A write's entries are inserted in the write's own transaction (postgres-writes.ts); entries of
 * their own, in one of theirs (`tx`).
 */
export class PostgresAudit implements AuditStore {
  private readonly listeners = new Set<(n: AuditNotice) => void>();

  constructor(
    private readonly query: Query,
    private readonly tx: Transaction,
  ) {}

  async appendAudit(drafts: readonly AuditDraft[]): Promise<void> {
    if (!drafts.length) return;
    const entries = await this.tx((c) => this.insert(c, drafts));
    this.notify({ lastId: entries[entries.length - 1].id, entries });
  }

  /** Numbers and inserts entries inside transaction `c`; notifies every replica at commit. */
  private async insert(c: PoolClient, drafts: readonly AuditDraft[]): Promise<AuditEntry[]> {
    if (!drafts.length) return [];
    const { rows } = await c.query<{ last: string }>('UPDATE dashplane_audit_seq SET last = last + $1 WHERE id = 1 RETURNING last', [
      drafts.length,
    ]);
    const first = Number(rows[0].last) - drafts.length + 1;
    const entries = drafts.map((d, i) => ({ id: first + i, ...d }));
    await c.query(
      `INSERT INTO dashplane_audit (id, time, action, "user", kind, project, entry)
       SELECT (e->>'id')::bigint, (e->>'time')::timestamptz, e->>'action', e->>'user', e->>'kind', e->>'project', e
         FROM json_array_elements($1::json) AS e`,
      [JSON.stringify(entries)],
    );
    await c.query('SELECT pg_notify($1, $2)', [AUDIT_CHANNEL, String(entries[entries.length - 1].id)]);
    return entries;
  }

  /** Tells the listeners: this process's commits with their entries, other replicas' by id. */
  notify(n: AuditNotice): void {
    if (n.entries && !n.entries.length) return;
    for (const l of this.listeners) l(n);
  }

  onAudit(listener: (n: AuditNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async lastAuditId(): Promise<number> {
    const { rows } = await this.query<{ last: string }>('SELECT last FROM dashplane_audit_seq WHERE id = 1');
    return Number(rows[0].last);
  }

  async listAudit(q: AuditQuery): Promise<AuditPage> {
    const values: unknown[] = [];
    const where: string[] = [];
    const add = (sql: string, v: unknown) => {
      values.push(v);
      where.push(sql.replace('?', `$${values.length}`));
    };
    if (q.user !== undefined) add('"user" = ?', q.user);
    if (q.kind !== undefined) add('kind = ?', q.kind);
    if (q.project !== undefined) add('project = ?', q.project);
    if (q.action !== undefined) add('action = ?', q.action);
    if (q.since !== undefined) add('time >= ?::timestamptz', q.since);
    if (q.until !== undefined) add('time < ?::timestamptz', q.until);
    const ascending = q.afterId !== undefined;
    if (ascending) add('id > ?', q.afterId);
    else if (q.beforeId !== undefined) add('id < ?', q.beforeId);
    values.push(q.limit);
    const text = `SELECT entry FROM dashplane_audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT $${values.length}`;
    const { rows } = await this.query<{ entry: AuditEntry }>(text, values);
    return { entries: rows.map((r) => r.entry) };
  }

  async pruneAudit(before: string): Promise<number> {
    const r = await this.query('DELETE FROM dashplane_audit WHERE time < $1::timestamptz', [before]);
    return r.rowCount ?? 0;
  }
}
