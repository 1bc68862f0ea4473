import type { AuditEntry } from '../storage/audit-types.js';
import type { AuditStore } from '../storage/store.js';

/** Entries of the project kind read per page while looking for creations and deletions. */
const PAGE = 500;

/**
 * Where the current project of each name starts in the audit log, for one audit list or stream:
 * the audit log's counterpart of the watcher's Incarnations. A project can be deleted and its name
 * created again by anyone; the log keeps the earlier project's entries under the same project
 * name, while a project Role only says who may read the project that exists now. Every creation
 * and deletion of a project writes its entry in the same atomic write as the change, and ids
 * follow commit order, so an entry about project P belongs to P's current incarnation exactly
 * when no creation of P comes after it and no deletion of P at or after it: the newest of those
 * is where the current incarnation starts (a creation's own id; just after a deletion, when the
 * project was created again without an entry, or is gone). With no such entry (pruned by the
 * retention with everything older) the whole retained log is the current project's.
 *
 * What is known covers a range of ids up to the log's last id when last asked; each `current`
 * call first extends it down to its oldest entry and up to the last id now, so it is always at
 * least as fresh as permissions read before the call.
 */
export class AuditIncarnations {
  /** Project name -> the first id of its current incarnation (as far as the range read tells). */
  private readonly starts = new Map<string, number>();
  /** Every creation and deletion with an id in [from, to] has been read. */
  private from = Infinity;
  private to = 0;

  constructor(private readonly o: { store: AuditStore; projectKind: string }) {}

  /** `entries` without those of an earlier project of the same name (entries about no project stay). */
  async current(entries: readonly AuditEntry[]): Promise<AuditEntry[]> {
    let oldest = Infinity;
    for (const e of entries) if (e.project !== undefined && e.id < oldest) oldest = e.id;
    if (oldest === Infinity) return [...entries];
    await this.cover(oldest);
    return entries.filter((e) => e.project === undefined || e.id >= (this.starts.get(e.project) ?? 0));
  }

  /** Reads the creations and deletions of projects from id `oldest` to the last id now. */
  private async cover(oldest: number): Promise<void> {
    const last = await this.o.store.lastAuditId();
    if (this.from === Infinity) {
      await this.read(oldest - 1);
    } else {
      if (oldest < this.from) await this.read(oldest - 1, this.from);
      if (last > this.to) await this.read(this.to);
    }
    this.from = Math.min(this.from, oldest);
    this.to = Math.max(this.to, last);
  }

  /** Reads the project kind's entries after id `after`, oldest first, up to `until` (exclusive) or the end. */
  private async read(after: number, until = Infinity): Promise<void> {
    for (let cursor = after; ; ) {
      const page = await this.o.store.listAudit({ kind: this.o.projectKind, afterId: cursor, limit: PAGE });
      for (const e of page.entries) {
        if (e.id >= until) return;
        this.observe(e);
      }
      const next = page.next ?? page.entries[page.entries.length - 1]?.id;
      if (next === undefined || (page.next === undefined && page.entries.length < PAGE)) return;
      cursor = next;
    }
  }

  /** A creation starts an incarnation at its own id; a deletion ends one (the next starts after it). */
  private observe(e: AuditEntry): void {
    if (e.project === undefined || (e.action !== 'create' && e.action !== 'delete')) return;
    const start = e.action === 'create' ? e.id : e.id + 1;
    this.starts.set(e.project, Math.max(this.starts.get(e.project) ?? 0, start));
  }
}
