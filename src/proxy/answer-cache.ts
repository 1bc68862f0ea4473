/** An upstream answer held whole: its status, the headers the caller gets (filtered, Content-Length set) and its body. */
export interface StoredAnswer {
  status: number;
  headers: Readonly<Record<string, string | string[]>>;
  body: Buffer;
}

/** An answer as the cache serves it, with how long ago it came from upstream. */
export interface KeptAnswer {
  answer: StoredAnswer;
  ageMs: number;
}

interface Entry {
  answer: StoredAnswer;
  /** When it was kept, and when it stops being served (the clock's milliseconds). */
  kept: number;
  expires: number;
  bytes: number;
}

export interface AnswerCacheOptions {
  maxBytes: number;
  maxEntries: number;
  /** Milliseconds of a monotonic clock (tests give their own). */
  now?: () => number;
}

/** What an entry is counted as besides its body: its key (UTF-16), its headers and the bookkeeping. */
const ENTRY_OVERHEAD = 256;

/**
 * Answers kept for their time to live, bounded by count and by bytes (bodies, headers and keys):
 * the least recently used go first. A Map keeps insertion order, so a hit is moved to its end and
 * eviction takes from its start. An expired answer is dropped when it is next asked for, or when
 * it reaches the start of the order.
 *
 * The start is found by one iterator kept across calls: a deleted entry stays a hole in V8's Map
 * until the table is rebuilt, so a new iterator from the start on every `set` stepped over up to
 * half the table's size of holes (2.7 % of P4's CPU with the cache full).
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private used = 0;
  /** Where the oldest entries are read from: every entry before it was deleted or moved to the end. */
  private cursor: Iterator<[string, Entry]> = this.entries.entries();
  /** The oldest entry, read from `cursor` and still in place (forgotten when it is deleted or moved). */
  private head: [string, Entry] | undefined;
  private readonly now: () => number;

  constructor(private readonly o: AnswerCacheOptions) {
    this.now = o.now ?? (() => performance.now());
  }

  /** The answer kept for `key`, when it has not expired. */
  get(key: string): KeptAnswer | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.remove(key, e);
    const now = this.now();
    if (e.expires <= now) return undefined;
    this.entries.set(key, e);
    this.used += e.bytes;
    return { answer: e.answer, ageMs: now - e.kept };
  }

  /** Keeps `answer` for `ttlMs`, unless it alone is larger than the whole cache. */
  set(key: string, answer: StoredAnswer, ttlMs: number): void {
    this.delete(key);
    const bytes = answer.body.length + key.length * 2 + headerBytes(answer.headers) + ENTRY_OVERHEAD;
    if (ttlMs <= 0 || bytes > this.o.maxBytes) return;
    const now = this.now();
    this.entries.set(key, { answer, kept: now, expires: now + ttlMs, bytes });
    this.used += bytes;
    for (let oldest = this.oldest(); oldest !== undefined; oldest = this.oldest()) {
      const [k, e] = oldest;
      if (this.used <= this.o.maxBytes && this.entries.size <= this.o.maxEntries && e.expires > now) break;
      this.remove(k, e);
    }
  }

  /** The least recently used entry. */
  private oldest(): [string, Entry] | undefined {
    if (this.head) return this.head;
    let next = this.cursor.next();
    if (next.done) {
      // an iterator that reached the end stays there: start again (the entries before were all removed)
      this.cursor = this.entries.entries();
      next = this.cursor.next();
      if (next.done) return undefined;
    }
    this.head = next.value;
    return this.head;
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    this.used -= e.bytes;
    if (this.head?.[0] === key) this.head = undefined;
  }

  /** Answers kept (expired ones not yet dropped included). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes the kept answers are counted as. */
  get bytes(): number {
    return this.used;
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (e) this.remove(key, e);
  }
}

function headerBytes(headers: Readonly<Record<string, string | string[]>>): number {
  let n = 0;
  for (const [k, v] of Object.entries(headers)) n += k.length + (Array.isArray(v) ? v.join('').length : v.length);
  return n;
}
