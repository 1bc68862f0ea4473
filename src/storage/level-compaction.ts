import type { LogFn } from '../lib/log-fn.js';
import { HIGH, SEP } from './level-keys.js';

/** What the compaction needs of the database (classic-level's, which `level`'s types do not declare). */
export interface Compacting {
  compactRange(start: string, end: string): Promise<void>;
}

/** Keys deleted by one write past which the store is compacted. */
export const COMPACT_AFTER_DELETED = 100_000;

/**
 * The key space in slices compacted one after another (level-keys.ts: the search index's entries,
 * `x`, are most of a store, split by class), so that stopping waits for one slice at most:
 * LevelDB cannot stop a compaction it has begun, and classic-level's close waits for it.
 */
export const SLICES: readonly string[] = ['\u0000', 'o', 'x', `x${SEP}b`, `x${SEP}p`, `x${SEP}s`, 'y', `${HIGH}${HIGH}`];

/**
 * Compaction after large deletes. LevelDB deletes by writing tombstones, and every range read and
 * seek steps over them until a compaction carries them down to where nothing older is left: after
 * 300,000 dashboards were deleted from a store of 1,300,000 (a project's deletion takes its objects,
 * their search index entries and records), searches there went from 3.4 to 144 ms at the median
 * and held other requests up to 135 ms, until a compaction of the store (20-45 s) removed them.
 * A write deleting more than `threshold` keys starts one in the background (LevelDB's own thread:
 * reads and writes go on meanwhile); writes deleting more while it runs start one more after it.
 * The store's close stops it after the slice it is in (SLICES).
 */
export class LevelCompaction {
  private running?: Promise<void> | undefined;
  /** Keys deleted since the running compaction started (another follows it when past the threshold). */
  private pending = 0;
  private stopped = false;

  constructor(
    private readonly o: {
      db: () => Compacting;
      log: LogFn;
      threshold?: number;
    },
  ) {}

  /** After a write that deleted `count` keys. */
  deleted(count: number): void {
    this.pending += count;
    if (this.stopped || this.running || this.pending < (this.o.threshold ?? COMPACT_AFTER_DELETED)) return;
    const deleted = this.pending;
    this.pending = 0;
    this.running = this.compact(deleted).finally(() => {
      this.running = undefined;
      this.deleted(0);
    });
  }

  /** No compaction starts from now on, the running one stops after its slice; resolves when it has. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Started again after `stop` (the store reopened). */
  start(): void {
    this.stopped = false;
  }

  private async compact(deleted: number): Promise<void> {
    const started = performance.now();
    try {
      for (let i = 0; i + 1 < SLICES.length; i++) {
        if (this.stopped) return;
        await this.o.db().compactRange(SLICES[i], SLICES[i + 1]);
      }
      const s = ((performance.now() - started) / 1000).toFixed(1);
      this.o.log('info', `compacted the database after ${deleted} keys were deleted (${s} s): reads no longer step over them`);
    } catch (e) {
      this.o.log('warn', `the database was not compacted after ${deleted} keys were deleted (reads step over them until LevelDB does)`, e);
    }
  }
}
