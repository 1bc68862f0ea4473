import type { Principal, Visible } from '../access/authorizer.js';
import { ApiError } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { wordTerms } from '../lib/search-terms.js';
import { isExpired } from '../resources/listing.js';
import { mask } from '../resources/masking.js';
import type { ResourceService } from '../resources/service.js';
import type { Envelope, SearchCandidate, SearchScope, StoredText } from '../storage/store.js';
import { matchObject, type SearchHit } from './search-match.js';

export type { SearchHit };

/** Most words of a query used. */
const MAX_WORDS = 10;
/** Checking candidates gives the event loop back after this long (other requests wait no longer). */
const SLICE_MS = 10;

/** A kind the caller may read, and which of its objects. */
interface Readable {
  d: KindDescriptor;
  visible: Visible;
}

/**
 * Searches every kind marked `searchable` that the caller may read (across projects) for objects
 * matching every word of the query (search-match.ts), best first, equal scores in key order
 * (kind, project, name). Generic: it knows no kind. The store's search index hands out
 * candidates, each with the most it can score, best first; each is checked here, and the search
 * stops once no candidate left can enter the results. While a store builds its index, the
 * objects are read instead (as the search did before there was one).
 */
export class SearchService {
  constructor(private readonly o: { registry: KindRegistry; service: ResourceService; now?: () => Date }) {}

  async search(p: Principal, query: string, limit: number): Promise<SearchHit[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, MAX_WORDS);
    const looked = words.map((word) => ({ word, terms: wordTerms(word) })).filter((w) => w.terms.length > 0);
    // a query of neither letters nor digits finds nothing: every match starts where a word does
    if (looked.length === 0) return [];
    const kinds = await this.readable(p);
    if (kinds.size === 0) return [];
    const candidates = await this.o.service.store.search({ words: looked, scopes: [...kinds.values()].map(scopeOf) });
    const hits = new Hits(limit);
    const nowMs = (this.o.now?.() ?? new Date()).getTime();
    const check = (kind: string, text: StoredText) => {
      const k = kinds.get(kind);
      return k ? checked(k, text, words, nowMs) : undefined;
    };
    let sliceStart = performance.now();
    const pause = async () => {
      if (performance.now() - sliceStart < SLICE_MS) return;
      await new Promise((r) => setImmediate(r));
      sliceStart = performance.now();
    };
    if (candidates) {
      for await (const c of candidates as AsyncIterable<SearchCandidate>) {
        if (!hits.wants(c)) break;
        hits.add(check(c.kind, c.text));
        await pause();
      }
      return hits.result();
    }
    for (const k of kinds.values()) {
      for (const text of (await this.o.service.listText(p, k.d, {})).items) {
        hits.add(check(k.d.kind, text));
        await pause();
      }
    }
    return hits.result();
  }

  /** The searchable kinds the caller may read something of, by kind. */
  private async readable(p: Principal): Promise<Map<string, Readable>> {
    const out = new Map<string, Readable>();
    for (const d of this.o.registry.all().filter((k) => k.searchable)) {
      try {
        out.set(d.kind, { d, visible: await this.o.service.readableAcross(p, d) });
      } catch (e) {
        if (e instanceof ApiError && (e.reason === 'Forbidden' || e.reason === 'Unauthorized')) continue; // a kind the caller may not read
        throw e;
      }
    }
    return out;
  }
}

/** Where the store looks for a kind: the projects (or, for projects themselves, the names) the caller may read, when the permissions say. */
function scopeOf(k: Readable): SearchScope {
  const projects = k.visible === '*' ? undefined : k.visible.projects;
  if (!projects) return { kind: k.d.kind };
  if (k.d.isProjectScope) return { kind: k.d.kind, names: [...projects] };
  return k.d.scope === 'project' ? { kind: k.d.kind, projects: [...projects] } : { kind: k.d.kind };
}

/** The hit a stored object is, when the caller may read it, it has not expired and it matches every word. */
function checked(k: Readable, t: StoredText, words: string[], nowMs: number): SearchHit | undefined {
  const m = t.metadata;
  if (k.visible !== '*' && !k.visible(k.d.isProjectScope ? m.name : (m.project ?? ''), m.name)) return undefined;
  const json = typeof t.text === 'string' ? t.text : t.text.toString('utf8');
  // a word without characters JSON escapes appears as such in the stored text: skip objects without it unparsed
  const lower = json.toLowerCase();
  if (!words.every((w) => /["\\]/.test(w) || lower.includes(w.replace(/^tag:/, '')))) return undefined;
  const obj = JSON.parse(json) as Envelope;
  if (isExpired(k.d, obj, nowMs)) return undefined;
  return matchObject(k.d, mask(k.d, obj), words);
}

/** The best `limit` hits so far, best first, equal scores in key order. */
class Hits {
  private readonly hits: SearchHit[] = [];

  constructor(private readonly limit: number) {}

  /**
   * Whether a candidate can still enter the results (candidates come best bound first, equal
   * bounds in key order): it may score its bound, and an equal score ranks by key order.
   */
  wants(c: SearchCandidate): boolean {
    if (this.hits.length < this.limit) return true;
    const last = this.hits[this.hits.length - 1];
    if (c.bound !== last.score) return c.bound > last.score;
    return compareKeys([c.kind, c.text.metadata.project ?? '', c.text.metadata.name], [last.kind, last.project ?? '', last.name]) < 0;
  }

  add(hit: SearchHit | undefined): void {
    if (!hit) return;
    let i = this.hits.length;
    while (i > 0 && before(hit, this.hits[i - 1])) i--;
    if (i >= this.limit) return;
    this.hits.splice(i, 0, hit);
    if (this.hits.length > this.limit) this.hits.pop();
  }

  result(): SearchHit[] {
    return this.hits;
  }
}

/** Whether `a` ranks before `b`: a higher score, or an equal one earlier in key order (byte-wise). */
function before(a: SearchHit, b: SearchHit): boolean {
  if (a.score !== b.score) return a.score > b.score;
  return compareKeys([a.kind, a.project ?? '', a.name], [b.kind, b.project ?? '', b.name]) < 0;
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
