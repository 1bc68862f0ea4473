import type { Level } from 'level';
import { rmSync } from 'node:fs';
import { open, readdir, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../errors.js';
import type { LogFn } from '../lib/log-fn.js';
import { translateWriteError } from './level-upgrades.js';
import { Gate, type Mutex } from './mutex.js';

/** First wait before a re-open is tried; doubled after each try that fails, up to MAX_PROBE_MS. */
const PROBE_MS = 1000;
const MAX_PROBE_MS = 30_000;
/** Longest wait for the reads in flight before a re-open (a slow watch replay or backup is then cut). */
const DRAIN_MS = 2000;
/** Room asked for beyond the size of the write-ahead logs and manifests a re-open turns into tables. */
const MARGIN_BYTES = 1 << 20;
/** Written and removed to see that the disk takes that much (statfs knows nothing of quotas or `ulimit -f`). */
const PROBE_FILE = 'dashplane-space-probe';

/**
 * Brings LevelStore back after a failed write (a full disk) without a restart. LevelDB keeps a
 * failed background write's error until the database is re-opened, and after a failed append to
 * its log it goes on writing behind the torn record, where a later write, acknowledged, is lost at
 * the next open (measured: a write answered after space returned was gone after a re-open). So
 * from the first failure no write reaches LevelDB: each answers the same error (507 for a full
 * disk) until the database has been closed and opened again, which is tried once the disk has room
 * for it (every second at first, backing off to 30 s, and at once when a write or health check
 * comes a second after the last try). The LevelDB message is logged once per failure episode.
 * Reads go on throughout, through `read` and `iterate`: a re-open waits for those in flight and
 * holds new ones back while it runs; it runs under the store's write lock.
 */
export class LevelRecovery {
  private readonly gate = new Gate();
  private episode?: { reason: 'InsufficientStorage' | 'Unavailable'; message: string; since: number; logged: boolean } | undefined;
  private timer?: NodeJS.Timeout;
  private delayMs = PROBE_MS;
  private lastTry = 0;
  private trying = false;
  private stopped = false;

  constructor(private readonly o: { path: string; db: () => Level<string, string>; writes: Mutex; log: LogFn }) {}

  /** A read of the database, held back while a re-open runs; a closed database answers 503. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.gate.run(fn);
    } catch (e) {
      throw translateReadError(e);
    }
  }

  /** The items of a long read (a watch replay, a dump), as one reader. */
  iterate<T>(source: () => AsyncIterable<T>): AsyncIterable<T> {
    return this.gate.iterate(source);
  }

  /** Throws the episode's error while a failed write is not behind a re-open yet (and nudges the next try). */
  check(): void {
    if (!this.episode) return;
    this.nudge();
    throw new ApiError(this.episode.reason, this.episode.message);
  }

  /** For health: throws 503 while writes fail (and nudges the next try). */
  checkHealth(): void {
    if (!this.episode) return;
    this.nudge();
    throw new ApiError('Unavailable', `writes are failing: ${this.episode.message}`);
  }

  /** The error a failed write answers. The first of an episode logs LevelDB's own message and starts the tries. */
  failed(e: unknown): Error {
    const translated = translateWriteError(e);
    const reason = translated instanceof ApiError && translated.reason === 'InsufficientStorage' ? 'InsufficientStorage' : 'Unavailable';
    const message =
      reason === 'InsufficientStorage'
        ? translated.message
        : 'the database could not write (the server log says why): nothing was written; retry in a moment';
    if (!this.episode && !this.stopped) {
      this.episode = { reason, message, since: Date.now(), logged: false };
      const status = reason === 'InsufficientStorage' ? 507 : 503;
      this.o.log(
        'error',
        `LevelDB could not write in ${this.o.path} (${(e as Error).message}): writes answer ${status} until it is re-opened, which is tried once the disk has room`,
        e,
      );
      this.delayMs = PROBE_MS;
      this.lastTry = Date.now();
      this.schedule();
    }
    return new ApiError(reason, message);
  }

  /** No more tries (the store is closing). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** A try now rather than at the timer, when the last one is a second old. */
  private nudge(): void {
    if (!this.trying && Date.now() - this.lastTry >= PROBE_MS) {
      clearTimeout(this.timer);
      void this.tryReopen();
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tryReopen(), this.delayMs).unref();
  }

  private async tryReopen(): Promise<void> {
    const episode = this.episode;
    if (!episode || this.stopped || this.trying) return;
    this.trying = true;
    this.lastTry = Date.now();
    try {
      if (await roomToReopen(this.o.path)) {
        await this.reopen();
        this.episode = undefined;
        this.o.log(
          'info',
          `LevelDB in ${this.o.path} re-opened ${Math.round((Date.now() - episode.since) / 1000)} s after the failed write: writes work again`,
        );
        return;
      }
    } catch (e) {
      // told once an episode; "no room yet" is the normal waiting and says nothing
      if (!episode.logged)
        this.o.log('warn', `LevelDB in ${this.o.path} could not be re-opened yet (${(e as Error).message}); trying again`, e);
      episode.logged = true;
    } finally {
      this.trying = false;
    }
    this.delayMs = Math.min(this.delayMs * 2, MAX_PROBE_MS);
    if (!this.stopped) this.schedule();
  }

  /** Closes and opens the database with no write (the write lock) and no read (the gate) in flight. */
  private reopen(): Promise<void> {
    return this.o.writes.run(() =>
      this.gate.exclusive(async () => {
        if (this.stopped) return;
        const db = this.o.db();
        if (db.status === 'open') await db.close();
        await db.open();
      }, DRAIN_MS),
    );
  }
}

/**
 * Whether the disk takes what a re-open writes: the write-ahead logs become tables and the
 * manifest is written anew. statfs first (free space), then a file of that size written and removed
 * (quotas, file size limits).
 */
async function roomToReopen(path: string): Promise<boolean> {
  let need = MARGIN_BYTES;
  for (const f of await readdir(path)) if (/^(\d+\.log|MANIFEST-\d+)$/.test(f)) need += (await stat(join(path, f))).size;
  const fs = await statfs(path);
  if (fs.bavail * fs.bsize < need) return false;
  const file = join(path, PROBE_FILE);
  const chunk = Buffer.alloc(Math.min(need, MARGIN_BYTES));
  try {
    const fh = await open(file, 'w', 0o600);
    try {
      for (let written = 0; written < need; written += chunk.length) await fh.write(chunk);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  } catch {
    return false;
  } finally {
    await rm(file, { force: true });
  }
}

/** Removes a probe file a process stopped in the middle of a probe left behind (call before opening). */
export function dropProbeFile(path: string): void {
  rmSync(join(path, PROBE_FILE), { force: true });
}

/** A read of a closed database (a re-open that failed, or the store closing): 503, not an anonymous 500. */
function translateReadError(e: unknown): unknown {
  if ((e as { code?: string }).code === 'LEVEL_DATABASE_NOT_OPEN')
    return new ApiError(
      'Unavailable',
      'the database is not open (the server is stopping, or re-opening it after a failed write); retry in a moment',
    );
  return e;
}
