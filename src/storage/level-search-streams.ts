import { SEP } from './level-keys.js';
import type { IteratorPool, Seeking } from './level-read.js';

/**
 * Sorted streams of objects (`kind NUL project NUL name`, see docOf) read from LevelStore's search
 * index as they are asked for: the objects of one term's entries of one class (a key range, in
 * object order), their union over the terms starting with a prefix, their intersection (a
 * leapfrog join: each stream jumps to the others' head with a LevelDB seek), a scope's filter.
 * A search built of them reads what its first results need, not every entry of its words.
 */
export interface Cursor {
  /** The first object at or after `target` (undefined: none left). Never goes back: later calls ask for `target`s at or after it. */
  seekGE(target: string): Promise<string | undefined>;
}

/** Above every character of a key: the exclusive end of a key prefix. */
export const TOP = '\u{10ffff}';
/** The first object after `doc`. */
export const after = (doc: string) => `${doc}\u0000`;

/** Entries read per call at first; doubled on each refill up to MAX_STEP (most searches need a page). */
const FIRST_STEP = 64;
const MAX_STEP = 1_024;

/** The objects of the entries under `prefix` (`x` class term NUL): one term of one class, in object order. */
export class TermCursor implements Cursor {
  private buf: string[] = [];
  private pos = 0;
  private step = FIRST_STEP;
  private done = false;
  /** The pool's iterator this cursor reads with, from its first read until it ends or is closed. */
  private it?: Seeking<string> | undefined;

  constructor(
    private readonly pool: IteratorPool<string>,
    private readonly prefix: string,
  ) {}

  async seekGE(target: string): Promise<string | undefined> {
    for (;;) {
      if (this.pos < this.buf.length && this.buf[this.buf.length - 1] >= target) {
        this.pos = lowerBound(this.buf, target, this.pos);
        return this.buf[this.pos];
      }
      if (this.done) {
        this.pos = this.buf.length;
        return undefined;
      }
      await this.refill(target);
    }
  }

  /** Reads the next entries from `target` on (a seek: what lies before it is never needed). */
  private async refill(target: string): Promise<void> {
    this.it ??= this.pool.take();
    const it = this.it;
    let keys: string[];
    try {
      it.seek(this.prefix + target);
      keys = await it.nextv(this.step);
    } catch (e) {
      // in an unknown state: not given back
      this.it = undefined;
      this.done = true;
      await it.close();
      throw e;
    }
    this.step = Math.min(this.step * 2, MAX_STEP);
    const end = this.pool.inRange(keys, this.prefix);
    this.buf = keys.slice(0, end).map((k) => k.slice(this.prefix.length));
    this.pos = 0;
    // keys past the prefix (or none): the range has ended
    if (end < keys.length || keys.length === 0) await this.close();
  }

  /** Gives the iterator back to the pool (the cursor answers from what it read, then nothing). */
  async close(): Promise<void> {
    const it = this.it;
    this.it = undefined;
    this.done = true;
    if (it) await this.pool.give(it);
  }
}

/** The union of cursors (the first object of any). */
export class UnionCursor implements Cursor {
  constructor(private readonly parts: readonly Cursor[]) {}

  async seekGE(target: string): Promise<string | undefined> {
    let min: string | undefined;
    for (const d of await Promise.all(this.parts.map((p) => p.seekGE(target))))
      if (d !== undefined && (min === undefined || d < min)) min = d;
    return min;
  }
}

/** The intersection of cursors: objects every one holds (leapfrog: each jumps to the furthest head so far). */
export class JoinCursor implements Cursor {
  constructor(private readonly parts: readonly Cursor[]) {}

  async seekGE(target: string): Promise<string | undefined> {
    let at = target;
    let agreed = 0;
    for (let i = 0; agreed < this.parts.length; i = (i + 1) % this.parts.length) {
      const d = await this.parts[i].seekGE(at);
      if (d === undefined) return undefined;
      if (d === at) agreed++;
      else {
        at = d;
        agreed = 1;
      }
    }
    return at;
  }
}

/** Only the objects `inScope` accepts; whole kinds and projects out of scope are skipped with one seek. */
export class ScopedCursor implements Cursor {
  constructor(
    private readonly inner: Cursor,
    private readonly skipTo: (doc: string) => string | undefined,
  ) {}

  async seekGE(target: string): Promise<string | undefined> {
    for (let at = target; ; ) {
      const d = await this.inner.seekGE(at);
      if (d === undefined) return undefined;
      const next = this.skipTo(d);
      if (next === undefined) return d;
      at = next;
    }
  }
}

/** An empty stream. */
export const NOTHING: Cursor = { seekGE: async () => undefined };

/**
 * The distinct terms starting with `term` that class `cls` holds (each one seek past the
 * previous term's entries); undefined when there are more than `max`.
 */
export async function termsStartingWith(pool: IteratorPool<string>, cls: string, term: string, max: number): Promise<string[] | undefined> {
  const base = `x${SEP}${cls}${SEP}`;
  return pool.with(async (it) => {
    const out: string[] = [];
    it.seek(base + term);
    for (;;) {
      const [key] = await it.nextv(1);
      if (key === undefined || !key.startsWith(base + term)) return out;
      const found = key.slice(base.length, key.indexOf(SEP, base.length));
      if (out.length === max) return undefined;
      out.push(found);
      it.seek(`${base}${found}${SEP}${TOP}`);
    }
  });
}

/** The first index at or after `from` whose item is >= `target`. */
function lowerBound(a: readonly string[], target: string, from: number): number {
  let lo = from;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
