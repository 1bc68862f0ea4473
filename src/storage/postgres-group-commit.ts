import type { PoolClient } from 'pg';
import type { AuditDraft } from './audit-types.js';
import { ApiError } from '../errors.js';
import { isRetryable } from './postgres-errors.js';
import type { StoreEvent } from './store.js';

/** The events a write makes, before revisions are assigned. */
export type PendingEvent = Omit<StoreEvent, 'revision'>;

/** One write: its changes (run inside the group's transaction; returns its events) and its audit entries. */
export interface GroupedWrite {
  build: (c: PoolClient) => Promise<PendingEvent[]>;
  audit: readonly AuditDraft[];
  /**
   * The refusals `build` throws (ApiErrors: a taken name, a missing parent) come before it
   * changed anything: it needs no savepoint of its own. Any other error from it still may have
   * aborted the transaction: the group then runs again with a savepoint for every write.
   */
  clean?: boolean;
  /**
   * What the store's `batch` needs to make this write together with others in one statement
   * (opaque here); absent: the write is made inside a transaction.
   */
  batch?: unknown;
}

/** What the group's transaction committed: each write's events (or why it failed), in queue order. */
export type WriteOutcome = { ok: true; events: PendingEvent[] } | { ok: false; error: unknown };

interface Queued extends GroupedWrite {
  resolve: (revision: number) => void;
  reject: (e: unknown) => void;
}

/** What the shared part of a group's transaction wrote: the last revision, and what to publish after the commit. */
export interface Finished {
  last: number;
  publish: () => Promise<void>;
}

/** What a group made in one statement committed: each write's outcome, in order, and the shared part. */
export type Batched = Finished & { outcomes: WriteOutcome[] };

/** Most writes committed in one transaction. */
const MAX_GROUP = 64;

/**
 * Groups a replica commits at the same time, each on its own connection (their row locks order
 * writes of the same object). They all meet at the store-wide revision row, held from the shared
 * statement to the commit: every group of every replica queues there, and waiting on that row
 * lock cost more than the overlap gained. Direct creates of 10 KB dashboards, 16 writers on three
 * stores of one database (pg_stat_statements, alternating runs): four groups per replica made
 * every write its own group and the shared statement waited 45-61 ms for the row (139-183
 * creates/s); two, 15-17 ms (230-252/s); one, 3.5-4.6 ms (329-343/s), with groups of five. One
 * store alone: 291-579/s with four, 416-624/s with one. A create is one round trip in its group
 * (a savepoint is needed only by writes that can fail half-way), so a group's own part is short.
 */
const PARALLEL_GROUPS = 1;

/**
 * PostgresStore's group commit: a write waits in a queue; a committer takes its share of the
 * waiting writes (up to MAX_GROUP; PARALLEL_GROUPS committers) and runs them one after the other in one transaction, each inside a savepoint
 * so that one that fails (a taken name, a stale version) is rolled back alone and the others go
 * on; then the revisions, events and audit entries of all of them are written once and the
 * transaction commits once. Concurrent writes of one replica thus share one commit (one WAL flush,
 * one turn of the store-wide revision row lock) instead of queueing for one each; a write alone
 * in the queue runs without savepoints.
 */
export class PostgresGroupCommit {
  private readonly queue: Queued[] = [];
  /** Groups being committed now. */
  private active = 0;
  /** Each group being committed now, until its events are published and its writes settled. */
  private readonly committing = new Set<Promise<void>>();

  /**
   * @param run runs a function in one transaction, retried as a whole on serialisation failures
   *   and deadlocks, its errors translated
   * @param finish writes what the writes that passed share (revisions, events, audit entries)
   * @param translate what a write that failed alone in its savepoint is rejected with
   * @param batch makes a group whose writes all have `batch` in one statement, committed on its
   *   own; undefined when the database refused the statement as a whole (nothing was written:
   *   the group is then made in a transaction, which finds the write at fault)
   */
  constructor(
    private readonly run: <T>(fn: (c: PoolClient) => Promise<T>) => Promise<T>,
    private readonly finish: (c: PoolClient, events: PendingEvent[], audit: AuditDraft[]) => Promise<Finished>,
    private readonly translate: (e: unknown) => unknown,
    private readonly batch?: (writes: readonly GroupedWrite[]) => Promise<Batched | undefined>,
    private readonly parallel = PARALLEL_GROUPS,
  ) {}

  /** Queues a write; resolves to the revision of its last event once committed. */
  write(w: GroupedWrite): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...w, resolve, reject });
      if (this.active < this.parallel) void this.drain();
    });
  }

  /** Settles once every group being committed now has settled; undefined when none is. */
  underway(): Promise<void> | undefined {
    if (!this.committing.size) return undefined;
    return Promise.all(this.committing).then(() => undefined);
  }

  /** One committer: takes a share of the queue at a time, until it is empty. */
  private async drain(): Promise<void> {
    this.active++;
    try {
      while (this.queue.length > 0) {
        const group = this.commitGroup(this.queue.splice(0, Math.min(MAX_GROUP, Math.ceil(this.queue.length / this.parallel))));
        this.committing.add(group);
        await group.finally(() => this.committing.delete(group));
      }
    } finally {
      this.active--;
    }
  }

  private async commitGroup(group: Queued[], guarded = false): Promise<void> {
    if (!guarded && this.batch && group.every((w) => w.batch !== undefined)) {
      let done: Batched | undefined;
      try {
        done = await this.batch(group);
      } catch (e) {
        for (const w of group) w.reject(e);
        return;
      }
      if (done) return this.settle(group, done);
    }
    let outcomes: WriteOutcome[];
    let last: number;
    let publish: () => Promise<void>;
    try {
      ({ outcomes, last, publish } = await this.run(async (c) => {
        const results = group.length === 1 ? [await this.alone(c, group[0])] : await this.together(c, group, guarded);
        const passed = results.flatMap((r, i) => (r.ok ? [{ r, w: group[i] }] : []));
        if (!passed.length) return { outcomes: results, last: 0, publish: async () => undefined };
        const events = passed.flatMap((p) => (p.r.ok ? p.r.events : []));
        const done = await this.finish(
          c,
          events,
          passed.flatMap((p) => [...p.w.audit]),
        );
        return { outcomes: results, ...done };
      }));
    } catch (e) {
      if (e instanceof Unguarded) return this.commitGroup(group, true);
      for (const w of group) w.reject(e);
      return;
    }
    await this.settle(group, { outcomes, last, publish });
  }

  /** Publishes what a group committed, then resolves (or rejects) each write. */
  private async settle(group: Queued[], { outcomes, last, publish }: Batched): Promise<void> {
    await publish();
    // each write's revision: that of its last event, counted back from the group's last
    let end = last;
    for (let i = group.length - 1; i >= 0; i--) {
      const o = outcomes[i];
      if (!o.ok) {
        group[i].reject(this.translate(o.error));
        continue;
      }
      group[i].resolve(end);
      end -= o.events.length;
    }
  }

  /** A write alone: no savepoint (its failure rolls the whole transaction back). */
  private async alone(c: PoolClient, w: Queued): Promise<WriteOutcome> {
    return { ok: true, events: await w.build(c) };
  }

  /**
   * Several writes, each in a savepoint (`clean` ones without, unless `guarded`): a failed one is
   * rolled back to it and the next goes on.
   */
  private async together(c: PoolClient, group: Queued[], guarded: boolean): Promise<WriteOutcome[]> {
    const out: WriteOutcome[] = [];
    // the release of one write's savepoint goes with the next one's (one round trip, not two)
    let held = false;
    for (const w of group) {
      const savepoint = guarded || !w.clean;
      if (savepoint) {
        await c.query(held ? 'RELEASE SAVEPOINT w; SAVEPOINT w' : 'SAVEPOINT w');
        held = true;
      }
      try {
        out.push({ ok: true, events: await w.build(c) });
      } catch (e) {
        // the whole group is retried (serialisation failure, deadlock) or fails (a lost connection)
        if (isRetryable(e)) throw e;
        if (!savepoint) {
          if (!(e instanceof ApiError)) throw new Unguarded(e);
          out.push({ ok: false, error: e });
          continue;
        }
        if (!(await rolledBack(c))) throw e;
        held = false;
        out.push({ ok: false, error: e });
      }
    }
    // the last savepoint is left open: the commit ends it
    return out;
  }
}

/** A write without a savepoint failed in a way that may have aborted the transaction: the group runs again, guarded. */
class Unguarded extends Error {
  constructor(override readonly cause: unknown) {
    super('a write without a savepoint failed');
  }
}

/** Rolls back to the write's savepoint; false when that fails too (the connection is gone). */
async function rolledBack(c: PoolClient): Promise<boolean> {
  try {
    await c.query('ROLLBACK TO SAVEPOINT w; RELEASE SAVEPOINT w');
    return true;
  } catch {
    return false;
  }
}
