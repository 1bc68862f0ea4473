import type { AuditDraft, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';
import type { AuditStore, DeletedEntry, Envelope, HistoryStore, ManagerEntry, ObjectKey, VersionEntry } from './store.js';

/**
 * The parts of a Store both drivers answer the same way: their history and audit, each kept by a
 * module of the driver's own that implements that part (level-history.ts and level-audit.ts,
 * postgres-history.ts and postgres-audit.ts). A driver extends this class and names those two
 * modules; the forwarding is written once, here.
 */
export abstract class StoreParts implements HistoryStore, AuditStore {
  protected abstract readonly history: HistoryStore;
  protected abstract readonly audit: AuditStore;

  managers(k: ObjectKey): Promise<ManagerEntry[]> {
    return this.history.managers(k);
  }

  listVersions(k: ObjectKey): Promise<VersionEntry[]> {
    return this.history.listVersions(k);
  }

  getVersion(k: ObjectKey, version: number): Promise<Envelope | undefined> {
    return this.history.getVersion(k, version);
  }

  listDeleted(q: { kind: string; project: string }): Promise<DeletedEntry[]> {
    return this.history.listDeleted(q);
  }

  appendAudit(entries: readonly AuditDraft[]): Promise<void> {
    return this.audit.appendAudit(entries);
  }

  listAudit(q: AuditQuery): Promise<AuditPage> {
    return this.audit.listAudit(q);
  }

  lastAuditId(): Promise<number> {
    return this.audit.lastAuditId();
  }

  pruneAudit(before: string): Promise<number> {
    return this.audit.pruneAudit(before);
  }

  onAudit(listener: (n: AuditNotice) => void): () => void {
    return this.audit.onAudit(listener);
  }
}
