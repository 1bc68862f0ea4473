import { EXACT_BONUS } from '../lib/search-terms.js';
import { SEP } from './level-keys.js';
import type { Candidate } from './level-search-plan.js';
import type { SearchCandidate, StoredText } from './store.js';

/** What a search reads besides the index: the objects' texts by object key (undefined: gone). */
export interface SearchReads {
  texts(keys: readonly string[]): Promise<(StoredText | undefined)[]>;
}

/** Candidates by bound, highest first, each bound in key order. */
export async function* inBoundOrder(candidates: Map<string, Candidate>, reads: SearchReads): AsyncGenerator<SearchCandidate> {
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
export async function* texts(docs: readonly string[], bound: number, reads: SearchReads): AsyncGenerator<SearchCandidate> {
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
