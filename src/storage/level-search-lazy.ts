import type { Level } from 'level';
import { CLASS_WEIGHT, EXACT_BONUS, type TermClass } from '../lib/search-terms.js';
import { SEP } from './level-keys.js';
import { type SearchReads, texts } from './level-search-order.js';
import { CLASSES, exactPrefix, type Plan, prefixOf } from './level-search-plan.js';
import {
  after,
  type Cursor,
  JoinCursor,
  NOTHING,
  ScopedCursor,
  TermCursor,
  termsStartingWith,
  UnionCursor,
} from './level-search-streams.js';
import type { SearchCandidate, SearchQuery } from './store.js';

/** Most terms a prefix may stand for in a class; a word of more (a letter or two) is left to the caller's check. */
const MAX_DISTINCT = 32;
/** Most words read (the rarest); the others are left to the caller's check, their bound counted at its most. */
const MAX_WORDS = 3;

/** A word read lazily: each of its terms with the distinct terms it stands for in each class. */
interface LazyWord {
  index: number;
  terms: Record<TermClass, string[]>[];
}

/**
 * The lazy plan of a search (level-search-query.ts). Every object's bound is the sum of its words'
 * classes (CLASS_WEIGHT), so the search goes through the combinations of classes (name or title,
 * tag, project, spec: one per word) by bound, best first; the objects of one bound are the union,
 * in key order, of each combination's intersection of its words' entries of those classes (cursors
 * of level-search-streams.ts, each read as far as the caller asks). An object already handed out
 * under a better combination is skipped. The objects whose whole name or title is a word, and
 * those with too many terms to index, are read first with their search records (their bound is
 * higher than their classes say) and handed out in their place.
 */
export class LazySearch {
  private readonly open: TermCursor[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly db: Level<string, string>,
    private readonly q: SearchQuery,
    private readonly plan: Plan,
  ) {}

  async *run(order: readonly { word: number; term: string }[], reads: SearchReads): AsyncGenerator<SearchCandidate> {
    const words = (await this.wordsOf(order)).slice(0, MAX_WORDS);
    const rest = this.q.words.length - words.length;
    const specials = await this.specials();
    for (const s of specials) this.seen.add(s.doc);
    let next = 0;
    const specialsAbove = async function* (bound: number) {
      while (next < specials.length && specials[next].bound > bound) {
        const b = specials[next].bound;
        const docs: string[] = [];
        while (next < specials.length && specials[next].bound === b) docs.push(specials[next++].doc);
        yield* texts(docs, b, reads);
      }
    };
    for (const [bound, combinations] of groupsOf(words, rest)) {
      yield* specialsAbove(bound);
      const same: string[] = [];
      while (next < specials.length && specials[next].bound === bound) same.push(specials[next++].doc);
      const cursor =
        words.length === 0
          ? new TermCursor(this.plan.keys, `y${SEP}`)
          : new UnionCursor(combinations.map((classes) => new JoinCursor(words.map((w, i) => this.wordCursor(w, classes[i])))));
      if (cursor instanceof TermCursor) this.open.push(cursor);
      yield* this.emit(new ScopedCursor(cursor, (d) => this.plan.skipTo(d)), same, bound, reads);
      await this.close();
    }
    yield* specialsAbove(-1);
  }

  async close(): Promise<void> {
    await Promise.all(this.open.splice(0).map((c) => c.close()));
  }

  /** The objects of `cursor` not handed out yet, merged in key order with `extra`, with their texts, a page at a time. */
  private async *emit(cursor: Cursor, extra: readonly string[], bound: number, reads: SearchReads): AsyncGenerator<SearchCandidate> {
    let at = '';
    let e = 0;
    for (let page = 32; ; page = Math.min(page * 2, 512)) {
      const docs: string[] = [];
      while (docs.length < page) {
        const d = await cursor.seekGE(at);
        if (e < extra.length && (d === undefined || extra[e] <= d)) {
          docs.push(extra[e++]);
          continue;
        }
        if (d === undefined) break;
        at = after(d);
        if (this.seen.has(d)) continue;
        this.seen.add(d);
        docs.push(d);
      }
      if (!docs.length) return;
      // already in key order: `texts` keeps it
      yield* texts(docs, bound, reads);
    }
  }

  /** The words read lazily, rarest first (by their rarest term): their terms that stand for few enough others. */
  private async wordsOf(order: readonly { word: number; term: string }[]): Promise<LazyWord[]> {
    const out = new Map<number, LazyWord>();
    for (const { word, term } of order) {
      // one class after another: one iterator of the pool, not one per class (see IteratorPool)
      const found: (string[] | undefined)[] = [];
      for (const c of CLASSES) found.push(await termsStartingWith(this.plan.keys, c, term, MAX_DISTINCT));
      if (found.some((f) => f === undefined)) continue;
      const byClass = Object.fromEntries(CLASSES.map((c, i) => [c, found[i]!])) as Record<TermClass, string[]>;
      const w = out.get(word) ?? { index: word, terms: [] };
      w.terms.push(byClass);
      out.set(word, w);
    }
    return [...out.values()];
  }

  /**
   * A word's objects of class `cls`: of that class exactly for a word of one term (its best class
   * is found under a better combination first), of that class or a better one for each term of a
   * word of several (its class is the least of its terms').
   */
  private wordCursor(w: LazyWord, cls: TermClass): Cursor {
    const classes = w.terms.length === 1 ? [cls] : CLASSES.filter((c) => CLASS_WEIGHT[c] >= CLASS_WEIGHT[cls]);
    const perTerm = w.terms.map((byClass) => {
      const parts = classes.flatMap((c) => byClass[c].map((t) => this.termCursor(`${prefixOf(c, t)}${SEP}`)));
      return parts.length === 0 ? NOTHING : parts.length === 1 ? parts[0] : new UnionCursor(parts);
    });
    return perTerm.length === 1 ? perTerm[0] : new JoinCursor(perTerm);
  }

  private termCursor(prefix: string): TermCursor {
    const c = new TermCursor(this.plan.keys, prefix);
    this.open.push(c);
    return c;
  }

  /**
   * Objects with too many terms to index, and those whose whole name or title is one of the words,
   * with their bounds from their search records: best first, then in key order.
   */
  private async specials(): Promise<{ doc: string; bound: number }[]> {
    const docs = new Set(await this.plan.docsOf(prefixOf('o', '')));
    for (const w of this.q.words) for (const d of await this.plan.docsOf(exactPrefix(w.word))) docs.add(d);
    const list = [...docs];
    const records = list.length ? await this.db.getMany(list.map((d) => `y${SEP}${d}`)) : [];
    const out: { doc: string; bound: number }[] = [];
    list.forEach((doc, i) => {
      const c = records[i] === undefined ? undefined : this.plan.fromRecord(records[i]!);
      if (!c) return;
      let bound = 0;
      for (let j = 0; j < c.weights.length; j++) bound += c.weights[j] + (c.exact & (1 << j) ? EXACT_BONUS : 0);
      out.push({ doc, bound });
    });
    return out.sort((a, b) => b.bound - a.bound || (a.doc < b.doc ? -1 : 1));
  }
}

/**
 * The combinations of classes of `words` grouped by bound, best first (with `rest` more words
 * counted at the best class). Combinations of a class some word has no term of are left out.
 */
function groupsOf(words: readonly LazyWord[], rest: number): [number, TermClass[][]][] {
  let combos: TermClass[][] = [[]];
  for (const w of words) {
    const usable = CLASSES.filter((c) =>
      w.terms.some((byClass) => CLASSES.some((x) => CLASS_WEIGHT[x] >= CLASS_WEIGHT[c] && byClass[x].length > 0)),
    );
    combos = combos.flatMap((combo) => usable.map((c) => [...combo, c]));
  }
  const groups = new Map<number, TermClass[][]>();
  for (const combo of combos) {
    const bound = combo.reduce((sum, c) => sum + CLASS_WEIGHT[c], rest * CLASS_WEIGHT.a);
    groups.set(bound, [...(groups.get(bound) ?? []), combo]);
  }
  return [...groups].sort((a, b) => b[0] - a[0]);
}
