import type { Level } from 'level';
import { auditMatches, type AuditDraft, type AuditEntry, type AuditNotice, type AuditPage, type AuditQuery } from './audit-types.js';
import type { AuditStore } from './store.js';
import { each } from './level-read.js';

const SEP = '\x00';
const HIGH = '\xff';
const PREFIX = `a${SEP}`;
const keyOf = (id: number) => PREFIX + String(id).padStart(16, '0');
/** Entries one list call reads at most before it answers with what it found (and where to go on). */
const SCAN_BUDGET = 50_000;
/** Entry times follow ids closely (taken just before commit): scans stop this far past a time bound. */
const TIME_SLACK_MS = 60_000;

/** How LevelAudit reads and writes as the store does. */
export interface LevelAuditIo {
  /** A read of the database, as the store's reads run. */
  read: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Commits entries of their own through the store's writer (numbered in commit order, as a write's). */
  append: (drafts: readonly AuditDraft[]) => Promise<void>;
  /** Deletes these keys, as the store's writes run (under the write lock). */
  del: (keys: string[]) => Promise<void>;
}

/**
 * The audit log inside LevelStore (its AuditStore part): entries under `a\0<id>`, numbered by the
 * store's single writer in commit order (so a write's entries are in the same atomic batch as the
 * write).
 */
export class LevelAudit implements AuditStore {
  private last = 0;
  private readonly listeners = new Set<(n: AuditNotice) => void>();

  constructor(
    private readonly db: Level<string, string>,
    private readonly io: LevelAuditIo,
  ) {}

  async open(): Promise<void> {
    const last = await this.db.keys({ gte: PREFIX, lt: PREFIX + HIGH, reverse: true, limit: 1 }).all();
    this.last = last.length ? Number(last[0].slice(PREFIX.length)) : 0;
  }

  async lastAuditId(): Promise<number> {
    return this.last;
  }

  async appendAudit(drafts: readonly AuditDraft[]): Promise<void> {
    if (drafts.length) await this.io.append(drafts);
  }

  /** Numbers the drafts of one commit (call under the writer); the puts to add to its batch. */
  number(drafts: readonly AuditDraft[]): { entries: AuditEntry[]; ops: { type: 'put'; key: string; value: string }[] } {
    const entries = drafts.map((d, i) => ({ id: this.last + i + 1, ...d }));
    return { entries, ops: entries.map((e) => ({ type: 'put' as const, key: keyOf(e.id), value: JSON.stringify(e) })) };
  }

  /** After the batch is written: the new last id, and the listeners told. */
  committed(entries: readonly AuditEntry[]): void {
    if (!entries.length) return;
    this.last = entries[entries.length - 1].id;
    const notice = { lastId: this.last, entries };
    for (const l of this.listeners) l(notice);
  }

  onAudit(listener: (n: AuditNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  listAudit(q: AuditQuery): Promise<AuditPage> {
    return this.io.read(() => this.page(q));
  }

  private async page(q: AuditQuery): Promise<AuditPage> {
    const ascending = q.afterId !== undefined;
    const range = ascending
      ? { gt: keyOf(q.afterId!), lt: PREFIX + HIGH }
      : { gte: PREFIX, lt: q.beforeId !== undefined ? keyOf(q.beforeId) : PREFIX + HIGH, reverse: true };
    const bound = ascending
      ? q.until
        ? Date.parse(q.until) + TIME_SLACK_MS
        : Infinity
      : q.since
        ? Date.parse(q.since) - TIME_SLACK_MS
        : -Infinity;
    const entries: AuditEntry[] = [];
    let scanned = 0;
    let lastSeen: number | undefined;
    for await (const raw of each(this.db.values(range))) {
      const e = JSON.parse(raw) as AuditEntry;
      lastSeen = e.id;
      const t = Date.parse(e.time);
      if (ascending ? t >= bound : t < bound) return { entries };
      if (auditMatches(e, q)) entries.push(e);
      if (entries.length >= q.limit) return { entries };
      if (++scanned >= SCAN_BUDGET) return { entries, next: lastSeen };
    }
    return { entries };
  }

  /** Deletes entries older than `before`, oldest first, a page at a time: each page is found as a read, then deleted as a write. */
  async pruneAudit(before: string): Promise<number> {
    const limit = Date.parse(before);
    let n = 0;
    let from = PREFIX;
    for (;;) {
      const page = await this.io.read(async () => {
        const keys: string[] = [];
        let last: string | undefined;
        for await (const [key, raw] of each(this.db.iterator({ gt: from, lt: PREFIX + HIGH }))) {
          last = key;
          const t = Date.parse((JSON.parse(raw) as AuditEntry).time);
          if (t >= limit + TIME_SLACK_MS) return { keys, last: undefined };
          if (t < limit) keys.push(key);
          if (keys.length >= PRUNE_PAGE) return { keys, last };
        }
        return { keys, last: undefined };
      });
      if (page.keys.length) await this.io.del(page.keys);
      n += page.keys.length;
      if (page.last === undefined) return n;
      from = page.last;
    }
  }
}

/** Entries deleted in one batch. */
const PRUNE_PAGE = 1000;
