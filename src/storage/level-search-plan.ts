import type { Level } from 'level';
import { CLASS_WEIGHT, type TermClass } from '../lib/search-terms.js';
import { SEP } from './level-keys.js';
import { IteratorPool } from './level-read.js';
import { TOP } from './level-search-streams.js';
import type { SearchQuery } from './store.js';

/** The classes of terms, best first (search-terms.ts). */
export const CLASSES: readonly TermClass[] = ['a', 'b', 'p', 's'];
/** Search records read per getMany. */
const RECORDS_STEP = 500;

/**
 * The cost model of a plan, from LevelDB's size estimates of key ranges (bytes of table files,
 * compressed), as measured on 2 KB dashboards: an index entry takes about 10 bytes and a search
 * record about 400; reading a record by key costs about ten entries read in a range.
 */
export const ENTRY_BYTES = 10;
export const RECORD_BYTES = 400;
const RECORD_LOOKUP_COST = 10;

/** Per candidate: the most each word can add (0: not found), and which words are a whole name or title. */
export interface Candidate {
  weights: Uint8Array;
  exact: number;
}

/**
 * What every plan of a search shares: its scopes, LevelDB's estimates of what a plan reads, and the
 * two plans that read all their candidates at once — from the search records of the places the
 * caller may read, or from the entries of the rarest term narrowed by the others'.
 */
export class Plan {
  private readonly scopes = new Map<string, { projects?: Set<string>; names?: Set<string> }>();
  private readonly k: number;
  /** The iterators of the search's key reads (index entries, and the lazy plan's cursors); closed by `close`. */
  readonly keys: IteratorPool<string>;
  /** The iterators of its reads of search records (keys and values). */
  private readonly records: IteratorPool<[string, string]>;

  constructor(
    private readonly db: Level<string, string>,
    private readonly q: SearchQuery,
  ) {
    for (const s of q.scopes)
      this.scopes.set(s.kind, {
        ...(s.projects ? { projects: new Set(s.projects) } : {}),
        ...(s.names ? { names: new Set(s.names) } : {}),
      });
    this.k = q.words.length;
    this.keys = new IteratorPool(
      () => db.keys(),
      (k) => k,
    );
    this.records = new IteratorPool(
      () => db.iterator(),
      (e) => e[0],
    );
  }

  /** Closes the search's iterators. */
  async close(): Promise<void> {
    await Promise.all([this.keys.close(), this.records.close()]);
  }

  /** Estimated bytes of the index entries of terms starting with `term`. */
  async entriesBytes(term: string): Promise<number> {
    const sizes = await Promise.all(CLASSES.map((c) => approximateSize(this.db, prefixOf(c, term), prefixOf(c, term) + TOP)));
    return sizes.reduce((a, b) => a + b, 0);
  }

  /** Estimated bytes of the search records of the scopes (of the places they name, or of their whole kinds). */
  async recordsBytes(): Promise<number> {
    const ranges = this.recordRanges();
    const sizes = await Promise.all(
      ranges.map((r) => (r.names ? r.names.length * RECORD_BYTES : approximateSize(this.db, r.prefix, r.prefix + TOP))),
    );
    return sizes.reduce((a, b) => a + b, 0);
  }

  /** Every candidate from the search records of the places the caller may read. */
  async fromRecords(): Promise<Map<string, Candidate>> {
    const out = new Map<string, Candidate>();
    const take = (doc: string, record: string | undefined) => {
      if (record === undefined) return;
      const c = this.fromRecord(record);
      if (c) out.set(doc, c);
    };
    for (const r of this.recordRanges()) {
      if (r.names) {
        for (let i = 0; i < r.names.length; i += RECORDS_STEP) {
          const docs = r.names.slice(i, i + RECORDS_STEP).map((n) => r.prefix.slice(2) + n);
          const records = await this.db.getMany(docs.map((d) => `y${SEP}${d}`));
          docs.forEach((d, j) => take(d, records[j]));
        }
        continue;
      }
      for await (const batch of this.records.range(r.prefix)) for (const [key, value] of batch) take(key.slice(2), value);
    }
    return out;
  }

  /** The entries of the rarest term, narrowed term by term (by their entries, or by the candidates' records when cheaper). */
  async fromEntries(order: readonly { word: number; term: string; entries: number }[]): Promise<Map<string, Candidate>> {
    const out = new Map<string, Candidate>();
    for await (const doc of this.entries(prefixOf('o', '')))
      out.set(doc, { weights: new Uint8Array(this.k).fill(CLASS_WEIGHT.a), exact: (1 << this.k) - 1 });
    const overflow = new Set(out.keys());
    const first = order[0];
    for (const [doc, w] of await this.bestOf(first.term)) {
      if (overflow.has(doc)) continue;
      const weights = new Uint8Array(this.k).fill(255);
      weights[first.word] = w;
      out.set(doc, { weights, exact: 0 });
    }
    const later: { word: number; term: string }[] = [];
    for (const t of order.slice(1)) {
      if (out.size === overflow.size) break;
      if (later.length || t.entries > out.size * RECORD_LOOKUP_COST) {
        later.push(t);
        continue;
      }
      const best = await this.bestOf(t.term, out);
      for (const [doc, c] of out) {
        if (overflow.has(doc)) continue;
        const w = best.get(doc);
        if (w === undefined) out.delete(doc);
        else c.weights[t.word] = Math.min(c.weights[t.word], w);
      }
    }
    if (later.length) await this.checkRecords(out, overflow, later);
    for (let i = 0; i < this.k; i++)
      for (const doc of await this.docsOf(exactPrefix(this.q.words[i].word))) {
        const c = out.get(doc);
        if (c) c.exact |= 1 << i;
      }
    return out;
  }

  /** Narrows `out` by the terms of `later`, read from the candidates' search records. */
  private async checkRecords(
    out: Map<string, Candidate>,
    overflow: Set<string>,
    later: readonly { word: number; term: string }[],
  ): Promise<void> {
    const docs = [...out.keys()].filter((d) => !overflow.has(d));
    for (let i = 0; i < docs.length; i += RECORDS_STEP) {
      const slice = docs.slice(i, i + RECORDS_STEP);
      const records = await this.db.getMany(slice.map((d) => `y${SEP}${d}`));
      slice.forEach((doc, j) => {
        const c = out.get(doc)!;
        const entries = records[j]?.split(SEP) ?? [];
        for (const t of later) {
          const w = bestIn(entries, t.term);
          if (w === 0) return void out.delete(doc);
          c.weights[t.word] = Math.min(c.weights[t.word], w);
        }
      });
    }
  }

  /** A candidate from its search record: each word's weight and whole-match, or undefined when a word is not in it. */
  fromRecord(record: string): Candidate | undefined {
    const entries = record.split(SEP);
    if (entries[0] === 'o') return { weights: new Uint8Array(this.k).fill(CLASS_WEIGHT.a), exact: (1 << this.k) - 1 };
    const weights = new Uint8Array(this.k);
    let exact = 0;
    for (let i = 0; i < this.k; i++) {
      const word = this.q.words[i];
      let w = 255;
      for (const term of word.terms) w = Math.min(w, bestIn(entries, term));
      if (w === 0) return undefined;
      weights[i] = w;
      if (entries.includes(`e${word.word}`)) exact |= 1 << i;
    }
    return { weights, exact };
  }

  /** The best weight of each object (in scope, and in `among` when given) holding a term starting with `term`. */
  private async bestOf(term: string, among?: ReadonlyMap<string, unknown>): Promise<Map<string, number>> {
    const best = new Map<string, number>();
    for (const cls of CLASSES) {
      const w = CLASS_WEIGHT[cls];
      for await (const doc of this.entries(prefixOf(cls, term)))
        if ((!among || among.has(doc)) && (best.get(doc) ?? 0) < w) best.set(doc, w);
    }
    return best;
  }

  async docsOf(prefix: string): Promise<Set<string>> {
    const out = new Set<string>();
    for await (const doc of this.entries(prefix)) out.add(doc);
    return out;
  }

  /** The objects (in scope) of the entries under `prefix`: `x` class term, then the object. */
  private async *entries(prefix: string): AsyncGenerator<string> {
    for await (const batch of this.keys.range(prefix)) {
      for (const key of batch) {
        // after `x`, the class and the term (which holds no NUL)
        const doc = key.slice(key.indexOf(SEP, 4) + 1);
        if (this.inScope(doc)) yield doc;
      }
    }
  }

  /** Where a stream goes on from `doc` when it is out of scope (past its kind, project or name), or undefined when it is in scope. */
  skipTo(doc: string): string | undefined {
    const i = doc.indexOf(SEP);
    const kind = doc.slice(0, i);
    const scope = this.scopes.get(kind);
    if (!scope) return `${kind}\u0001`;
    if (!scope.projects && !scope.names) return undefined;
    const j = doc.indexOf(SEP, i + 1);
    if (scope.projects && !scope.projects.has(doc.slice(i + 1, j))) return `${doc.slice(0, j)}\u0001`;
    if (scope.names && !scope.names.has(doc.slice(j + 1))) return `${doc}\u0000`;
    return undefined;
  }

  inScope(doc: string): boolean {
    const i = doc.indexOf(SEP);
    const scope = this.scopes.get(doc.slice(0, i));
    if (!scope) return false;
    if (!scope.projects && !scope.names) return true;
    const j = doc.indexOf(SEP, i + 1);
    return (!scope.projects || scope.projects.has(doc.slice(i + 1, j))) && (!scope.names || scope.names.has(doc.slice(j + 1)));
  }

  /** The `y` ranges of the scopes: of the projects a scope names, its names (read by key), or its whole kind. */
  private recordRanges(): { prefix: string; names?: string[] }[] {
    const out: { prefix: string; names?: string[] }[] = [];
    for (const [kind, s] of this.scopes) {
      if (!s.projects && !s.names) out.push({ prefix: `y${SEP}${kind}${SEP}` });
      else
        for (const project of s.projects ?? [''])
          out.push({ prefix: `y${SEP}${kind}${SEP}${project}${SEP}`, ...(s.names ? { names: [...s.names] } : {}) });
    }
    return out;
  }
}

/** The best weight of a search record's entries for a term starting with `term` (0: none). */
function bestIn(entries: readonly string[], term: string): number {
  let best = 0;
  for (const e of entries) {
    const w = CLASS_WEIGHT[e[0] as TermClass];
    if (w !== undefined && w > best && e.startsWith(term, 1)) best = w;
  }
  return best;
}

export const prefixOf = (cls: string, term: string) => `x${SEP}${cls}${SEP}${term}`;
/** The entries of objects whose whole name or title is `word`. */
export const exactPrefix = (word: string) => `x${SEP}e${SEP}${word}${SEP}`;

/** LevelDB's estimate of the bytes of a key range (classic-level's `approximateSize`, which `level`'s types do not declare). */
function approximateSize(db: Level<string, string>, start: string, end: string): Promise<number> {
  return (db as unknown as { approximateSize(s: string, e: string): Promise<number> }).approximateSize(start, end);
}
