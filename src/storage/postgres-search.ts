import type pg from 'pg';
import { CLASS_WEIGHT, EXACT_BONUS, type TermClass, termsOf } from '../lib/search-terms.js';
import type { Envelope, SearchCandidate, SearchQuery, SearchScope } from './store.js';
import { storedText } from './stored-text.js';

/** The classes of terms, best first (search-terms.ts). */
const CLASSES: readonly TermClass[] = ['a', 'b', 'p', 's'];
/** Most words whose classes a search goes through; the others only have to be found (their bound counted at its most). */
const MAX_WORDS = 3;

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * The search column of an object (a tsvector's text): each term as a lexeme, its class letter
 * first (`alatency`, `snode`), and each whole one-word name or title after an `e`; '' for a kind
 * the search does not look into. PostgreSQL's own text search parses nothing here: the terms are
 * search-terms.ts', the same as LevelStore's, so both stores find the same objects.
 */
export function searchVector(obj: Envelope, kinds: ReadonlySet<string>): string {
  if (!kinds.has(obj.kind)) return '';
  // every term: a tsvector holds a large object's (no bound like LevelStore's MAX_TERMS)
  const t = termsOf(obj, Infinity);
  const lexemes: string[] = [];
  for (const [term, cls] of t.terms) lexemes.push(lexeme(cls + term));
  for (const e of t.exact) lexemes.push(lexeme(`e${e}`));
  return lexemes.join(' ');
}

/** A lexeme in tsvector or tsquery text: quoted, its quotes and backslashes escaped. */
const lexeme = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Matches an entry of class `cls` starting with `term`. */
const prefix = (cls: string, term: string) => `${lexeme(cls + term)}:*`;

/**
 * The candidates of `q` from the search column, best bound first, equal bounds in key order.
 * The objects of each bound are those whose words' classes (the best class each word's terms are
 * all found in: CLASS_WEIGHT) add up to it, read a page at a time in key order — one query per
 * page, which the planner answers from the GIN index for rare words or by walking the primary key
 * for common ones — and only while the caller asks. An object a combination of lower classes also
 * matches comes again in a lower bound's rows, and is skipped there. Objects whose whole name or
 * title is a word come first (their bound is higher than their classes say).
 */
export async function* searchRows(query: Query, q: SearchQuery): AsyncGenerator<SearchCandidate> {
  const words = q.words.slice(0, MAX_WORDS);
  const rest = q.words.slice(MAX_WORDS);
  const exact = q.words.map((w) => lexeme(`e${w.word}`)).join(' | ');
  // in scope, and every other word found in any class
  const base = (p: Params) => [scopeSql(q.scopes, p), ...rest.map((w) => `search @@ ${p.add(all(w.terms, CLASSES))}::tsquery`)];
  // objects handed out already: each object comes once, under the best bound it has
  const seen = new Set<string>();
  // the whole names and titles first (holding every word), at the most they can score
  const specials = new Params();
  const found = specials.add(q.words.map((w) => `(${all(w.terms, CLASSES)})`).join(' & '));
  yield* pages(
    query,
    [...base(specials), `search @@ ${specials.add(exact)}::tsquery`, `search @@ ${found}::tsquery`],
    specials,
    q.words.length * (CLASS_WEIGHT.a + EXACT_BONUS),
    seen,
  );
  for (const [bound, combos] of groupsOf(words.length, rest.length)) {
    const p = new Params();
    yield* pages(query, [...base(p), `search @@ ${p.add(combosQuery(words, combos))}::tsquery`], p, bound, seen);
  }
}

/** The parameters of one query, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** The rows matching every condition of `where` and not `seen` (then seen), in key order, a page at a time (pages doubling), each with `bound`. */
async function* pages(
  query: Query,
  where: readonly string[],
  p: Params,
  bound: number,
  seen: Set<string>,
): AsyncGenerator<SearchCandidate> {
  let after: [string, string, string] | undefined;
  const n = p.values.length;
  const keyset = ` AND (kind, project, name) > ($${n + 1}::text COLLATE "C", $${n + 2}::text COLLATE "C", $${n + 3}::text COLLATE "C")`;
  for (let page = 32; ; page = Math.min(page * 2, 512)) {
    const { rows } = await query<{ kind: string; project: string; name: string; text: string }>(
      `SELECT kind, project, name, doc::text AS text FROM dashplane_objects WHERE ${where.join(' AND ')}${after ? keyset : ''} ORDER BY kind, project, name LIMIT ${page}`,
      after ? [...p.values, ...after] : p.values,
    );
    for (const r of rows) {
      const key = `${r.kind}\u0000${r.project}\u0000${r.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      yield { kind: r.kind, text: storedText(r.text), bound };
    }
    if (rows.length < page) return;
    const last = rows[rows.length - 1];
    after = [last.kind, last.project, last.name];
  }
}

/** Every combination of classes of `k` words grouped by bound (with `rest` more words at the best class), best first. */
function groupsOf(k: number, rest: number): [number, TermClass[][]][] {
  let combos: TermClass[][] = [[]];
  for (let i = 0; i < k; i++) combos = combos.flatMap((c) => CLASSES.map((x) => [...c, x]));
  const groups = new Map<number, TermClass[][]>();
  for (const c of combos) {
    const bound = c.reduce((sum, x) => sum + CLASS_WEIGHT[x], rest * CLASS_WEIGHT.a);
    groups.set(bound, [...(groups.get(bound) ?? []), c]);
  }
  return [...groups].sort((a, b) => b[0] - a[0]);
}

/** A tsquery matching the objects of any of `combos`: each word of class (exactly) its class in the combination. */
function combosQuery(words: SearchQuery['words'], combos: readonly TermClass[][]): string {
  return combos.map((c) => `(${words.map((w, i) => wordQuery(w.terms, c[i])).join(' & ')})`).join(' | ');
}

/**
 * A word found in class `cls`: a word of one term, that term in that class; a word of several,
 * each of its terms in that class or a better one (a word's class is the least of its terms'
 * best). An object found in a better class too belongs to a better combination, which hands it
 * out first.
 */
function wordQuery(terms: readonly string[], cls: TermClass): string {
  if (terms.length === 1) return prefix(cls, terms[0]);
  return all(
    terms,
    CLASSES.filter((c) => CLASS_WEIGHT[c] >= CLASS_WEIGHT[cls]),
  );
}

/** Matches objects holding every term in one of `classes`. */
function all(terms: readonly string[], classes: readonly TermClass[]): string {
  return terms.map((t) => `(${classes.map((c) => prefix(c, t)).join(' | ')})`).join(' & ');
}

/** The SQL condition of the scopes: kinds, and the projects or names a scope names. */
function scopeSql(scopes: readonly SearchScope[], p: Params): string {
  const parts = scopes.map((s) => {
    const c = [`kind = ${p.add(s.kind)}`];
    if (s.projects) c.push(`project = ANY(${p.add(s.projects)}::text[])`);
    if (s.names) c.push(`name = ANY(${p.add(s.names)}::text[])`);
    return `(${c.join(' AND ')})`;
  });
  return parts.length ? `(${parts.join(' OR ')})` : 'false';
}
