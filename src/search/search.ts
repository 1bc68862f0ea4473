import type { Principal } from '../access/authorizer.js';
import { ApiError } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath, joinPath } from '../lib/object-path.js';
import type { ResourceService } from '../resources/service.js';
import type { Envelope, StoredText } from '../storage/store.js';

/** One object that matches every word of a search. */
export interface SearchHit {
  kind: string;
  /** The kind's path segment, so clients build URLs without a table of kinds. */
  plural: string;
  project?: string;
  name: string;
  title?: string;
  tags?: string[];
  /** Where a word matched when it was not the name or the title: the field's path and its text. */
  match?: { path: string; text: string };
  score: number;
}

/** Longest text shown around a match. */
const SNIPPET = 120;
/** Field weights: a word in the name or title counts more than one deep inside the spec. */
const WEIGHT = { name: 4, title: 4, tag: 3, project: 2, field: 1 };

/**
 * Searches every kind marked `searchable` that the caller may read (across projects) for objects
 * matching every word of the query in their name, `spec.display.name`, tags, project or any text inside
 * the spec (panel titles, query expressions, descriptions...). Generic: it knows no kind.
 */
export class SearchService {
  constructor(private readonly o: { registry: KindRegistry; service: ResourceService }) {}

  async search(p: Principal, query: string, limit: number): Promise<SearchHit[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 10);
    if (words.length === 0) return [];
    // a word without characters JSON escapes appears as such in the stored text: skip objects without it unparsed
    const raw = words.filter((w) => !/["\\]/.test(w));
    const hits: SearchHit[] = [];
    for (const d of this.o.registry.all().filter((k) => k.searchable)) {
      let texts: StoredText[];
      try {
        texts = (await this.o.service.listText(p, d, {})).items;
      } catch (e) {
        if (e instanceof ApiError && (e.reason === 'Forbidden' || e.reason === 'Unauthorized')) continue; // a kind the caller may not read
        throw e;
      }
      for (const t of texts) {
        const text = (typeof t.text === 'string' ? t.text : t.text.toString('utf8')).toLowerCase();
        if (!raw.every((w) => text.includes(w))) continue;
        const hit = matchObject(d, JSON.parse(typeof t.text === 'string' ? t.text : t.text.toString('utf8')) as Envelope, words);
        if (hit) hits.push(hit);
      }
    }
    return hits.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, limit);
  }
}

function matchObject(d: KindDescriptor, obj: Envelope, words: string[]): SearchHit | undefined {
  const title = getPath(obj, 'spec.display.name');
  const titleText = typeof title === 'string' ? title : undefined;
  const tags = obj.metadata.tags ?? [];
  let score = 0;
  const fieldWords: string[] = [];
  for (const w of words) {
    const best = [
      obj.metadata.name.toLowerCase().includes(w) ? WEIGHT.name : 0,
      titleText?.toLowerCase().includes(w) ? WEIGHT.title : 0,
      tags.some((t) => t.toLowerCase().includes(w.replace(/^tag:/, ''))) ? WEIGHT.tag : 0,
      obj.metadata.project?.toLowerCase().includes(w) ? WEIGHT.project : 0,
    ].reduce((a, b) => Math.max(a, b), 0);
    if (best > 0) {
      score += best + (obj.metadata.name.toLowerCase() === w || titleText?.toLowerCase() === w ? 2 : 0);
      continue;
    }
    if (!findText(obj.spec, 'spec', [w], 'spec.display.name')) return undefined;
    score += WEIGHT.field;
    fieldWords.push(w);
  }
  // the reason shown: the field holding the most of the words found only in the spec ("RAM Total" is
  // the panel titled so, not the first field holding "ram")
  const found = fieldWords.length ? findText(obj.spec, 'spec', fieldWords, 'spec.display.name') : undefined;
  const match = found ? { path: found.path, text: snippet(found.text, fieldWords.find((w) => found.text.toLowerCase().includes(w)) ?? fieldWords[0]) } : undefined;
  return {
    kind: d.kind,
    plural: d.plural,
    ...(d.scope === 'project' ? { project: obj.metadata.project } : {}),
    name: obj.metadata.name,
    ...(titleText ? { title: titleText } : {}),
    ...(tags.length ? { tags } : {}),
    ...(match ? { match } : {}),
    score,
  };
}

/**
 * The string inside `value` (depth first, keys in order) holding the most of `words`, the first of
 * those when several hold as many; undefined when none holds any.
 */
function findText(value: unknown, path: string, words: string[], skip: string): { path: string; text: string } | undefined {
  let best: { path: string; text: string; count: number } | undefined;
  const walk = (v: unknown, at: string, depth: number): void => {
    if (depth > 40 || best?.count === words.length) return;
    if (typeof v === 'string') {
      if (at === skip) return;
      const lower = v.toLowerCase();
      const count = words.filter((w) => lower.includes(w)).length;
      if (count > 0 && count > (best?.count ?? 0)) best = { path: at, text: v, count };
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], joinPath(at, i), depth + 1);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, joinPath(at, k), depth + 1);
    }
  };
  walk(value, path, 0);
  return best ? { path: best.path, text: best.text } : undefined;
}

/** The text around the first occurrence of `word`, on one line. */
function snippet(text: string, word: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET) return flat;
  const at = Math.max(0, flat.toLowerCase().indexOf(word) - 40);
  const cut = flat.slice(at, at + SNIPPET);
  return `${at > 0 ? '…' : ''}${cut}${at + SNIPPET < flat.length ? '…' : ''}`;
}
