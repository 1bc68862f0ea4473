import type { LogFn } from '../lib/log-fn.js';
import type { PostgresPool } from './postgres-pool.js';

/** When the server looks at the tables' counters, and what calls for an analyse or a vacuum. */
export interface UpkeepLimits {
  /** How long after a write (an event, from any replica) the counters are looked at: at most one look per this while writes go on. */
  lookAfterMs: number;
  /** Rows of objects changed since the last analyse that call for another: this many, plus a share of the rows. */
  changedMin: number;
  changedShare: number;
  /** Dead rows in the event log that call for a vacuum. */
  eventsDeadMax: number;
}

const LIMITS: UpkeepLimits = { lookAfterMs: 2_000, changedMin: 1_000, changedShare: 0.2, eventsDeadMax: 10_000 };

/**
 * What the server does for PostgreSQL's upkeep where autovacuum comes too late: autovacuum wakes
 * once a minute and acts at a share of a table's rows, so a bulk load (an import, `dashctl apply`
 * of a large tree, P11's 200,000 creates in 30 s) runs without it.
 *
 * - **Statistics of `dashplane_objects`** (past 1,000 rows changed plus a fifth of the rows), so
 *   a search is planned from what the search column holds. Without them PostgreSQL guesses that a
 *   word is in one row of 200 and answers a search's page (key order, a limit) by walking the
 *   primary key: after a load of 200,000 dashboards a word found nowhere took 970 ms and the
 *   search p50 was 204 ms; analysed, 6 and 29 ms.
 * - **A vacuumed event log** (past 10,000 dead rows): each write trims the log, and its dead rows
 *   piled up (188,000 after 200,000 creates) and slowed every later write: a load's rate fell to
 *   0.67 of its start by the last 50,000; vacuumed every 10,000 creates it held (1.04).
 *
 * At open and two seconds after a write (one look per two seconds while writes go on, none while
 * idle) the tables' own counters (`n_mod_since_analyze`, `n_dead_tup`: shared by every replica,
 * counted by PostgreSQL a second or so after the writes) are read; one replica at a time (an advisory lock) runs
 * what they call for, in the background (no write waits for it).
 */
export class PostgresUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastWrite = -Infinity;
  private running: Promise<void> | undefined;
  /** Analyses and vacuums run by this process (for the tests). */
  readonly done = { analysed: 0, vacuumed: 0 };
  private readonly limits: UpkeepLimits;

  constructor(private readonly o: { db: PostgresPool; log: LogFn; limits?: Partial<UpkeepLimits> }) {
    this.limits = { ...LIMITS, ...o.limits };
  }

  /** After each committed write (an event). */
  written(): void {
    this.lastWrite = performance.now();
    this.arm();
  }

  /** A look in lookAfterMs, unless one is due; after it, another if writes came meanwhile (PostgreSQL may not have counted them yet). */
  private arm(): void {
    if (this.timer || this.stopped) return;
    const armedAt = performance.now();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.check();
      if (this.lastWrite > armedAt) this.arm();
    }, this.limits.lookAfterMs).unref();
  }

  /** Looks at the counters now, unless a look is running (it ends by itself; errors are logged). */
  check(): void {
    if (this.stopped) return;
    this.running ??= this.upkeep()
      .catch((e) => this.o.log('warn', `PostgreSQL upkeep (analyse, vacuum) failed: ${(e as Error).message}`))
      .finally(() => (this.running = undefined));
  }

  /** The look running, if any; no look is started after (close). */
  stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped = true;
    return this.settled();
  }

  /** The look running, if any. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async upkeep(): Promise<void> {
    const { rows } = await this.o.db.query<{ table: string; changed: string; dead: string; rows: number }>(
      `SELECT c.relname AS table, s.n_mod_since_analyze AS changed, s.n_dead_tup AS dead, c.reltuples AS rows
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE s.relid IN ('dashplane_objects'::regclass, 'dashplane_events'::regclass)`,
    );
    const of = (table: string) => rows.find((r) => r.table === table);
    const objects = of('dashplane_objects');
    // reltuples is -1 before the first analyse
    if (objects && Number(objects.changed) >= this.limits.changedMin + this.limits.changedShare * Math.max(0, objects.rows))
      await this.alone('analyse', `ANALYZE dashplane_objects`, `${objects.changed} rows changed since the last analyse`);
    const events = of('dashplane_events');
    if (events && Number(events.dead) >= this.limits.eventsDeadMax)
      await this.alone('vacuum', 'VACUUM dashplane_events', `${events.dead} dead rows`);
  }

  /** Runs `sql` (a VACUUM runs outside a transaction) unless another replica is running it. */
  private async alone(what: 'analyse' | 'vacuum', sql: string, why: string): Promise<void> {
    const started = performance.now();
    const c = await this.o.db.connect();
    let broken = false;
    try {
      const { rows } = await c.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got', [
        `dashplane:${what}`,
      ]);
      if (!rows[0].got) return;
      try {
        await c.query(sql);
      } finally {
        await c.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`dashplane:${what}`]).catch(() => (broken = true));
      }
    } catch (e) {
      broken = true;
      throw e;
    } finally {
      c.release(broken);
    }
    if (what === 'analyse') this.done.analysed++;
    else this.done.vacuumed++;
    this.o.log('info', `${sql} (${why}) in ${Math.round(performance.now() - started)} ms`);
  }
}
