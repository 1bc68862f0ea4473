import { createWriteStream, type WriteStream } from 'node:fs';
import { AUDIT_KIND } from '../kinds/audit-event.js';
import type { AuditNotice } from '../storage/audit-types.js';
import type { AuditStore } from '../storage/store.js';

/** Longest pause between two retention passes. */
const MAX_PRUNE_EVERY_MS = 3_600_000;
const MIN_PRUNE_EVERY_MS = 1000;

/**
 * Keeps the audit log: deletes entries older than `audit.retention` (at start, then every tenth
 * of it, at most hourly), and, with `audit.file`, appends every entry this server records to a
 * file or standard output as JSON lines (each replica ships its own entries, once).
 */
export class AuditKeeper {
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private out?: WriteStream | undefined;

  constructor(
    private readonly o: {
      store: AuditStore;
      retentionMs: number;
      file?: string;
      log: (msg: string, err?: unknown) => void;
      now?: () => number;
    },
  ) {}

  async start(): Promise<void> {
    if (this.o.file) this.ship(this.o.file);
    await this.prune();
    const every = Math.min(MAX_PRUNE_EVERY_MS, Math.max(MIN_PRUNE_EVERY_MS, Math.floor(this.o.retentionMs / 10)));
    this.timer = setInterval(() => void this.prune(), every).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    const out = this.out;
    this.out = undefined;
    if (out) await new Promise<void>((resolve) => out.end(resolve));
  }

  /** Deletes what is older than the retention; a failure is logged and tried again next time. */
  async prune(): Promise<number> {
    const before = new Date((this.o.now ?? Date.now)() - this.o.retentionMs).toISOString();
    try {
      return await this.o.store.pruneAudit(before);
    } catch (e) {
      this.o.log('audit retention pass failed', e);
      return 0;
    }
  }

  private ship(file: string): void {
    const write: (line: string) => void =
      file === '-'
        ? (line) => void process.stdout.write(line)
        : (() => {
            this.out = createWriteStream(file, { flags: 'a', mode: 0o600 });
            this.out.on('error', (e) => this.o.log(`cannot write the audit file ${file}`, e));
            return (line: string) => void this.out?.write(line);
          })();
    this.unsubscribe = this.o.store.onAudit((n: AuditNotice) => {
      // kind first: an entry about an object keeps its own (the object's kind), the others say AuditEvent (docs/teams.md)
      for (const e of n.entries ?? []) write(`${JSON.stringify({ kind: AUDIT_KIND, ...e })}\n`);
    });
  }
}
