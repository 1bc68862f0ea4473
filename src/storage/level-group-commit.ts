import type { AuditDraft } from './audit-types.js';
import type { BatchOp } from './level-keys.js';
import type { Mutex } from './mutex.js';
import type { StoreEvent } from './store.js';

/** What a write puts and deletes, and the events it makes (before revisions are assigned). */
export interface Planned {
  ops: BatchOp[];
  events: Omit<StoreEvent, 'revision'>[];
  /** Audit entries committed with it (numbered at commit). */
  audit?: readonly AuditDraft[] | undefined;
}

interface PendingWrite {
  /** The object keys it writes: one group never holds two writes of a key. */
  keys: readonly string[];
  /** Committed in a group of its own. */
  alone: boolean;
  plan: () => Promise<Planned>;
  resolve: (revision: number) => void;
  reject: (e: unknown) => void;
}

/** Most writes committed in one batch. */
const MAX_GROUP = 64;

/**
 * LevelStore's group commit: a write waits in a queue; the writer takes every waiting write (up
 * to MAX_GROUP, stopping at one committed alone or at a key already in the group), plans them side
 * by side (their checks read the committed state, which no other write changes meanwhile) and
 * commits those that passed in one batch, in queue order. Concurrent creates thus share one
 * LevelDB write instead of queueing for one each.
 */
export class GroupCommit {
  private readonly pending: PendingWrite[] = [];
  private draining = false;

  /**
   * @param writes held while a group is planned and committed (and by whatever must see no commit)
   * @param commit commits the planned writes in one batch; returns each write's revision
   */
  constructor(
    private readonly writes: Mutex,
    private readonly commit: (planned: readonly Planned[]) => Promise<number[]>,
  ) {}

  /** Queues a write of `keys`; `alone` commits it in a group of its own. Resolves to its revision. */
  write(keys: readonly string[], alone: boolean, plan: () => Promise<Planned>): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ keys, alone, plan, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.pending.length > 0) await this.writes.run(() => this.commitGroup(this.takeGroup()));
    } finally {
      this.draining = false;
    }
  }

  private takeGroup(): PendingWrite[] {
    const group = [this.pending.shift()!];
    if (group[0].alone) return group;
    const keys = new Set(group[0].keys);
    while (group.length < MAX_GROUP && this.pending.length > 0) {
      const next = this.pending[0];
      if (next.alone || next.keys.some((k) => keys.has(k))) break;
      for (const k of next.keys) keys.add(k);
      group.push(this.pending.shift()!);
    }
    return group;
  }

  private async commitGroup(group: PendingWrite[]): Promise<void> {
    const outcomes = await Promise.allSettled(group.map((w) => w.plan()));
    const passed: { write: PendingWrite; planned: Planned }[] = [];
    outcomes.forEach((o, i) => (o.status === 'fulfilled' ? passed.push({ write: group[i], planned: o.value }) : group[i].reject(o.reason)));
    if (passed.length === 0) return;
    try {
      const revisions = await this.commit(passed.map((p) => p.planned));
      passed.forEach((p, i) => p.write.resolve(revisions[i]));
    } catch (e) {
      for (const p of passed) p.write.reject(e);
    }
  }
}
