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
  let match: SearchHit['match'];
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
    const found = findText(obj.spec, 'spec', w, 'spec.display.name');
    if (!found) return undefined;
    score += WEIGHT.field;
    match ??= { path: found.path, text: snippet(found.text, w) };
  }
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

/** The first string inside `value` (depth first, keys in order) that contains `word`. */
function findText(value: unknown, path: string, word: string, skip: string, depth = 0): { path: string; text: string } | undefined {
  if (depth > 40) return undefined;
  if (typeof value === 'string') return path !== skip && value.toLowerCase().includes(word) ? { path, text: value } : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const f = findText(value[i], joinPath(path, i), word, skip, depth + 1);
      if (f) return f;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const f = findText(v, joinPath(path, k), word, skip, depth + 1);
      if (f) return f;
    }
  }
  return undefined;
}

/** The text around the first occurrence of `word`, on one line. */
function snippet(text: string, word: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET) return flat;
  const at = Math.max(0, flat.toLowerCase().indexOf(word) - 40);
  const cut = flat.slice(at, at + SNIPPET);
  return `${at > 0 ? '…' : ''}${cut}${at + SNIPPET < flat.length ? '…' : ''}`;
}
