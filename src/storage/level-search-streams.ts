import type { Level } from 'level';
import { SEP } from './level-keys.js';

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
  private it?: ReturnType<Level<string, string>['keys']> | undefined;

  constructor(
    private readonly db: Level<string, string>,
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
    this.it ??= this.db.keys({ gte: this.prefix, lt: this.prefix + TOP });
    this.it.seek(this.prefix + target);
    const keys = (await this.it.nextv(this.step)) as string[];
    this.step = Math.min(this.step * 2, MAX_STEP);
    this.buf = keys.map((k) => k.slice(this.prefix.length));
    this.pos = 0;
    if (keys.length === 0) {
      this.done = true;
      await this.close();
    }
  }

  async close(): Promise<void> {
    const it = this.it;
    this.it = undefined;
    this.done = true;
    await it?.close();
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
export async function termsStartingWith(db: Level<string, string>, cls: string, term: string, max: number): Promise<string[] | undefined> {
  const base = `x${SEP}${cls}${SEP}`;
  const it = db.keys({ gte: base + term, lt: base + term + TOP });
  const out: string[] = [];
  try {
    for (;;) {
      const [key] = await it.nextv(1);
      if (key === undefined) return out;
      const found = key.slice(base.length, key.indexOf(SEP, base.length));
      if (out.length === max) return undefined;
      out.push(found);
      it.seek(`${base}${found}${SEP}${TOP}`);
    }
  } finally {
    await it.close();
  }
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
