/**
 * Reading a LevelDB range without holding native memory. classic-level's iterator reserves room
 * for as many entries as a `nextv` asks for (64 bytes each, outside V8's heap) and frees it only
 * when the garbage collector finalizes the iterator, not when it is closed; an iterator that lived
 * through two young-generation collections waits for a full one. `all()` and `for await` ask for
 * 1,000 entries at a time: 64 KB for every read, however short. A create lists its project's
 * datasources and the global ones (two reads of a few entries); under 16 concurrent creates about
 * one iterator in ten was promoted, and the memory held by closed iterators grew by 200 MB in
 * 30 s (heaptrack: `std::vector::reserve` in classic-level's `NextWorker`, 578 MB at the peak).
 * Here a read asks for a few entries first and more as the range proves long.
 */

/** An iterator of `level` (keys, values or entries). */
export interface Nexting<T> {
  nextv(size: number): Promise<T[]>;
  close(): Promise<void>;
}

/** The first read's size: a short range (a project's datasources) is one native call. */
const FIRST = 16;
/** The largest read (classic-level's own): 64 KB reserved; its byte limit ends a batch sooner for large values. */
const MOST = 1_000;

/** The iterator's entries, in batches growing from FIRST to MOST; closes it. */
export async function* batches<T>(it: Nexting<T>): AsyncGenerator<T[]> {
  try {
    for (let size = FIRST; ; size = Math.min(size * 8, MOST)) {
      // an ended iterator answers [] without a native call
      const batch = await it.nextv(size);
      if (batch.length === 0) return;
      yield batch;
    }
  } finally {
    await it.close();
  }
}

/** Every entry of the iterator (its `limit` option applies); closes it. */
export async function readAll<T>(it: Nexting<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of batches(it)) for (const x of batch) out.push(x);
  return out;
}

/** The iterator's entries one by one (for `for await`); closes it when the loop ends. */
export async function* each<T>(it: Nexting<T>): AsyncGenerator<T> {
  for await (const batch of batches(it)) yield* batch;
}

/** An iterator that can be moved (`seek`) to read another range. */
export interface Seeking<T> extends Nexting<T> {
  seek(target: string): void;
}

/** Idle iterators a pool keeps for its next reads. */
const MAX_IDLE = 8;

/**
 * Iterators shared by the reads of one task (a search), each read moving one to its range with a
 * seek instead of opening its own. Every iterator costs native memory that classic-level frees
 * only when V8 finalizes it: a search of the index opened about 25 (one per class of each term,
 * one per kind's search records), so at 450 searches a second a full collection finalized some
 * 20,000 at once and the main thread spent 70-150 ms freeing them (perf: classic-level's
 * `~Iterator` and glibc's `malloc_consolidate` under N-API's finalizer queue), holding every
 * request meanwhile. A pool opens as many as its reads run at once.
 */
export class IteratorPool<T> {
  private readonly idle: Seeking<T>[] = [];
  private closed = false;

  constructor(
    private readonly open: () => Seeking<T>,
    /** The key of an item (the iterator's own for keys, the first of an entry). */
    private readonly keyOf: (item: T) => string,
  ) {}

  /** An iterator for a read of the caller's (give it back when done; an iterator that failed is closed instead). */
  take(): Seeking<T> {
    if (this.closed) throw new Error('the iterator pool is closed');
    return this.idle.pop() ?? this.open();
  }

  async give(it: Seeking<T>): Promise<void> {
    if (this.closed || this.idle.length >= MAX_IDLE) await it.close();
    else this.idle.push(it);
  }

  /** `fn` with an iterator of the pool, given back after (closed when `fn` fails: its state is unknown). */
  async with<R>(fn: (it: Seeking<T>) => Promise<R>): Promise<R> {
    const it = this.take();
    let result: R;
    try {
      result = await fn(it);
    } catch (e) {
      await it.close();
      throw e;
    }
    await this.give(it);
    return result;
  }

  /** How many of `batch`'s first items have keys starting with `prefix` (after a seek to it, those in the range). */
  inRange(batch: readonly T[], prefix: string): number {
    if (batch.length === 0 || this.keyOf(batch[batch.length - 1]).startsWith(prefix)) return batch.length;
    let lo = 0;
    let hi = batch.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keyOf(batch[mid]).startsWith(prefix)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The items whose keys start with `prefix`, in key order, in batches growing as `batches`' do. */
  async *range(prefix: string): AsyncGenerator<T[]> {
    const it = this.take();
    let broken = false;
    try {
      it.seek(prefix);
      for (let size = FIRST; ; size = Math.min(size * 8, MOST)) {
        const batch = await it.nextv(size);
        const end = this.inRange(batch, prefix);
        if (end > 0) yield end === batch.length ? batch : batch.slice(0, end);
        if (end < batch.length || batch.length === 0) return;
      }
    } catch (e) {
      broken = true;
      throw e;
    } finally {
      if (broken) await it.close();
      else await this.give(it);
    }
  }

  /** Closes the idle iterators, and those given back from now on. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((it) => it.close()));
  }
}
