import type { KindDescriptor } from '../kinds/descriptor.js';
import { getPath, joinPath } from '../lib/object-path.js';
import { CLASS_WEIGHT, EXACT_BONUS, matchesAt, TITLE_PATH } from '../lib/search-terms.js';
import type { Envelope } from '../storage/store.js';

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

/**
 * The hit `obj` is for `words` (lowercased), or undefined when a word matches nowhere in it. Each
 * word adds the weight of the best place it matches (search-terms.ts `matchesAt`: where a word of
 * the text starts): the name or title, a tag (a word `tag:x` matches the tag `x`), the project,
 * or any other text of the spec; a word that is the whole name or title adds EXACT_BONUS more.
 */
export function matchObject(d: KindDescriptor, obj: Envelope, words: string[]): SearchHit | undefined {
  const title = getPath(obj, TITLE_PATH);
  const titleText = typeof title === 'string' ? title : undefined;
  const tags = obj.metadata.tags ?? [];
  let score = 0;
  const fieldWords: string[] = [];
  for (const w of words) {
    const best = [
      matchesAt(obj.metadata.name, w) ? CLASS_WEIGHT.a : 0,
      titleText !== undefined && matchesAt(titleText, w) ? CLASS_WEIGHT.a : 0,
      tags.some((t) => matchesAt(t, w.replace(/^tag:/, ''))) ? CLASS_WEIGHT.b : 0,
      obj.metadata.project !== undefined && matchesAt(obj.metadata.project, w) ? CLASS_WEIGHT.p : 0,
    ].reduce((a, b) => Math.max(a, b), 0);
    if (best > 0) {
      score += best + (obj.metadata.name.toLowerCase() === w || titleText?.toLowerCase() === w ? EXACT_BONUS : 0);
      continue;
    }
    if (!findText(obj.spec, 'spec', [w], TITLE_PATH)) return undefined;
    score += CLASS_WEIGHT.s;
    fieldWords.push(w);
  }
  // the reason shown: the field holding the most of the words found only in the spec ("RAM Total" is
  // the panel titled so, not the first field holding "ram")
  const found = fieldWords.length ? findText(obj.spec, 'spec', fieldWords, TITLE_PATH) : undefined;
  const match = found
    ? { path: found.path, text: snippet(found.text, fieldWords.find((w) => matchesAt(found.text, w)) ?? fieldWords[0]) }
    : undefined;
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
      const count = words.filter((w) => matchesAt(v, w)).length;
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
