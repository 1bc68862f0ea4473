import type { Level } from 'level';
import { CLASS_WEIGHT, EXACT_BONUS, MAX_WORD_WEIGHT, type TermClass } from '../lib/search-terms.js';
import { SEP } from './level-keys.js';
import type { SearchCandidate, SearchQuery, StoredText } from './store.js';

/** What a search reads besides the index: the objects' texts by object key (undefined: gone). */
export interface SearchReads {
  texts(keys: readonly string[]): Promise<(StoredText | undefined)[]>;
}

/** Above every character of a key: the exclusive end of a key prefix (non-ASCII terms included). */
const TOP = '\u{10ffff}';
const CLASSES: readonly TermClass[] = ['a', 'b', 'p', 's'];
/** Index entries read per call (each a short key). */
const STEP = 1_000;
/** Search records read per getMany. */
const RECORDS_STEP = 500;

/**
 * The cost model of a plan, from LevelDB's size estimates of key ranges (bytes of table files,
 * compressed), as measured on 2 KB dashboards: an index entry takes about 10 bytes and a search
 * record about 400; reading a record by key costs about ten entries read in a range, reading
 * records in a range about four.
 */
const ENTRY_BYTES = 10;
const RECORD_BYTES = 400;
const RECORD_LOOKUP_COST = 10;
const RECORD_SCAN_COST = 4;

/** Per candidate: the most each word can add (0: not found), and which words are a whole name or title. */
interface Candidate {
  weights: Uint8Array;
  exact: number;
}

/**
 * The candidates of `q` from LevelStore's search index (level-search.ts), best bound first, equal
 * bounds in key order, each with its text. Three plans, chosen from the estimated size of what
 * each reads:
 * - a caller who may read only some projects: the search records of those projects' objects;
 * - one word of one term: its entries class by class (name and title, tags, project, spec), each
 *   class handed out before the next is read, so a search satisfied by titles never reads the
 *   term's other entries;
 * - otherwise: the entries of the rarest term, narrowed by each other term's entries, or by the
 *   candidates' search records when those are fewer to read.
 * Every step reads in slices (an await between them): other requests are served meanwhile.
 */
export async function* searchIndex(db: Level<string, string>, q: SearchQuery, reads: SearchReads): AsyncGenerator<SearchCandidate> {
  const plan = new Plan(db, q);
  const terms = q.words.flatMap((w, i) => w.terms.map((term) => ({ word: i, term })));
  const sizes = await Promise.all(terms.map((t) => plan.entriesBytes(t.term)));
  const order = terms.map((t, i) => ({ ...t, entries: sizes[i] / ENTRY_BYTES })).sort((a, b) => a.entries - b.entries);
  const restricted = await plan.restrictedBytes();
  let candidates: Map<string, Candidate>;
  if (restricted !== undefined && (restricted / RECORD_BYTES) * RECORD_SCAN_COST < order[0].entries) candidates = await plan.fromRecords();
  else if (terms.length === 1) return yield* plan.byClass(terms[0].term, reads);
  else candidates = await plan.fromEntries(order);
  yield* inBoundOrder(candidates, reads);
}

class Plan {
  private readonly scopes = new Map<string, { projects?: Set<string>; names?: Set<string> }>();
  private readonly k: number;

  constructor(
    private readonly db: Level<string, string>,
    private readonly q: SearchQuery,
  ) {
    for (const s of q.scopes) this.scopes.set(s.kind, { ...(s.projects ? { projects: new Set(s.projects) } : {}), ...(s.names ? { names: new Set(s.names) } : {}) });
    this.k = q.words.length;
  }

  /** Estimated bytes of the index entries of terms starting with `term`. */
  async entriesBytes(term: string): Promise<number> {
    const sizes = await Promise.all(CLASSES.map((c) => approximateSize(this.db, prefixOf(c, term), prefixOf(c, term) + TOP)));
    return sizes.reduce((a, b) => a + b, 0);
  }

  /** Estimated bytes of the search records the caller may read, when every scope names its places; else undefined. */
  async restrictedBytes(): Promise<number | undefined> {
    const ranges = this.recordRanges();
    if (ranges === undefined) return undefined;
    const sizes = await Promise.all(ranges.map((r) => (r.names ? r.names.length * RECORD_BYTES : approximateSize(this.db, r.prefix, r.prefix + TOP))));
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
    for (const r of this.recordRanges()!) {
      if (r.names) {
        for (let i = 0; i < r.names.length; i += RECORDS_STEP) {
          const docs = r.names.slice(i, i + RECORDS_STEP).map((n) => r.prefix.slice(2) + n);
          const records = await this.db.getMany(docs.map((d) => `y${SEP}${d}`));
          docs.forEach((d, j) => take(d, records[j]));
        }
        continue;
      }
      const it = this.db.iterator({ gte: r.prefix, lt: r.prefix + TOP });
      try {
        for (let batch = await it.nextv(RECORDS_STEP); batch.length; batch = await it.nextv(RECORDS_STEP)) for (const [key, value] of batch) take(key.slice(2), value);
      } finally {
        await it.close();
      }
    }
    return out;
  }

  /** One word of one term: each class of its entries in turn, handed out before the next is read. */
  async *byClass(term: string, reads: SearchReads): AsyncGenerator<SearchCandidate> {
    const seen = new Set<string>();
    const unseen = async (prefix: string): Promise<string[]> => {
      const docs: string[] = [];
      for await (const doc of this.entries(prefix)) {
        if (seen.has(doc)) continue;
        seen.add(doc);
        docs.push(doc);
      }
      return docs;
    };
    // objects with too many terms to index may hold it anywhere, even as their whole name
    const overflow = await unseen(prefixOf('o', ''));
    const exact = await this.docsOf(exactPrefix(this.q.words[0].word));
    const named = await unseen(prefixOf('a', term));
    yield* texts([...overflow, ...named.filter((d) => exact.has(d))], MAX_WORD_WEIGHT, reads);
    yield* texts(
      named.filter((d) => !exact.has(d)),
      CLASS_WEIGHT.a,
      reads,
    );
    for (const cls of CLASSES.slice(1)) yield* texts(await unseen(prefixOf(cls, term)), CLASS_WEIGHT[cls], reads);
  }

  /** The entries of the rarest term, narrowed term by term (by their entries, or by the candidates' records when cheaper). */
  async fromEntries(order: readonly { word: number; term: string; entries: number }[]): Promise<Map<string, Candidate>> {
    const out = new Map<string, Candidate>();
    for await (const doc of this.entries(prefixOf('o', ''))) out.set(doc, { weights: new Uint8Array(this.k).fill(CLASS_WEIGHT.a), exact: (1 << this.k) - 1 });
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
  private async checkRecords(out: Map<string, Candidate>, overflow: Set<string>, later: readonly { word: number; term: string }[]): Promise<void> {
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
  private fromRecord(record: string): Candidate | undefined {
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
      for await (const doc of this.entries(prefixOf(cls, term))) if ((!among || among.has(doc)) && (best.get(doc) ?? 0) < w) best.set(doc, w);
    }
    return best;
  }

  private async docsOf(prefix: string): Promise<Set<string>> {
    const out = new Set<string>();
    for await (const doc of this.entries(prefix)) out.add(doc);
    return out;
  }

  /** The objects (in scope) of the entries under `prefix`: `x` class term, then the object. */
  private async *entries(prefix: string): AsyncGenerator<string> {
    const it = this.db.keys({ gte: prefix, lt: prefix + TOP });
    try {
      for (let batch = await it.nextv(STEP); batch.length; batch = await it.nextv(STEP)) {
        for (const key of batch) {
          // after `x`, the class and the term (which holds no NUL)
          const doc = key.slice(key.indexOf(SEP, 4) + 1);
          if (this.inScope(doc)) yield doc;
        }
      }
    } finally {
      await it.close();
    }
  }

  private inScope(doc: string): boolean {
    const i = doc.indexOf(SEP);
    const scope = this.scopes.get(doc.slice(0, i));
    if (!scope) return false;
    if (!scope.projects && !scope.names) return true;
    const j = doc.indexOf(SEP, i + 1);
    return (!scope.projects || scope.projects.has(doc.slice(i + 1, j))) && (!scope.names || scope.names.has(doc.slice(j + 1)));
  }

  /** The `y` ranges of the places every scope names (names: read by key), or undefined when a scope names none. */
  private recordRanges(): { prefix: string; names?: string[] }[] | undefined {
    const out: { prefix: string; names?: string[] }[] = [];
    for (const [kind, s] of this.scopes) {
      if (!s.projects && !s.names) return undefined;
      for (const project of s.projects ?? ['']) out.push({ prefix: `y${SEP}${kind}${SEP}${project}${SEP}`, ...(s.names ? { names: [...s.names] } : {}) });
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

/** Candidates by bound, highest first, each bound in key order. */
async function* inBoundOrder(candidates: Map<string, Candidate>, reads: SearchReads): AsyncGenerator<SearchCandidate> {
  const buckets = new Map<number, string[]>();
  for (const [doc, c] of candidates) {
    let bound = 0;
    for (let i = 0; i < c.weights.length; i++) bound += c.weights[i] + (c.exact & (1 << i) ? EXACT_BONUS : 0);
    const b = buckets.get(bound);
    if (b) b.push(doc);
    else buckets.set(bound, [doc]);
  }
  for (const bound of [...buckets.keys()].sort((a, b) => b - a)) yield* texts(buckets.get(bound)!, bound, reads);
}

/** `docs` in key order, with their texts, read a page at a time as the caller asks (pages doubling). */
async function* texts(docs: readonly string[], bound: number, reads: SearchReads): AsyncGenerator<SearchCandidate> {
  let page = 32;
  for (const chunk of inKeyOrder(docs, () => (page = Math.min(page * 2, 512)))) {
    const found = await reads.texts(chunk.map((d) => `o${SEP}${d}`));
    for (let i = 0; i < chunk.length; i++) {
      const text = found[i];
      if (text !== undefined) yield { kind: chunk[i].slice(0, chunk[i].indexOf(SEP)), text, bound };
    }
  }
}

/**
 * `docs` sorted, in pages of the size `next` says: a long list is made a heap (linear) and popped
 * as pages are asked for, so a search stopping after a page never sorts the rest.
 */
function* inKeyOrder(docs: readonly string[], next: () => number): Generator<string[]> {
  if (docs.length <= 4_096) {
    const sorted = [...docs].sort();
    for (let i = 0, size = 32; i < sorted.length; i += size, size = next()) yield sorted.slice(i, i + size);
    return;
  }
  const heap = new MinHeap(docs);
  for (let size = 32; heap.size > 0; size = next()) {
    const page: string[] = [];
    while (page.length < size && heap.size > 0) page.push(heap.pop());
    yield page;
  }
}

class MinHeap {
  private readonly a: string[];
  constructor(items: readonly string[]) {
    this.a = [...items];
    for (let i = (this.a.length >> 1) - 1; i >= 0; i--) this.down(i);
  }
  get size(): number {
    return this.a.length;
  }
  pop(): string {
    const top = this.a[0];
    const last = this.a.pop()!;
    if (this.a.length) {
      this.a[0] = last;
      this.down(0);
    }
    return top;
  }
  private down(i: number): void {
    const a = this.a;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && a[l] < a[m]) m = l;
      if (r < a.length && a[r] < a[m]) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }
}

const prefixOf = (cls: string, term: string) => `x${SEP}${cls}${SEP}${term}`;
/** The entries of objects whose whole name or title is `word`. */
const exactPrefix = (word: string) => `x${SEP}e${SEP}${word}${SEP}`;

/** LevelDB's estimate of the bytes of a key range (classic-level's `approximateSize`, which `level`'s types do not declare). */
function approximateSize(db: Level<string, string>, start: string, end: string): Promise<number> {
  return (db as unknown as { approximateSize(s: string, e: string): Promise<number> }).approximateSize(start, end);
}
