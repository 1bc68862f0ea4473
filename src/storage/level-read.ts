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
