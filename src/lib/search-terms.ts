/**
 * What the search finds in an object, and how a word of a query matches text: shared by the
 * stores' search indexes (which words each object holds, written with it) and the search itself
 * (which checks every match exactly).
 *
 * A word matches a text where it starts a word of that text: at the start of a run of letters and
 * digits, or inside one where it changes from lower to upper case (`MemAvailable`), from an
 * acronym to a word (`HTTPServer`) or between letters and digits (`p99`), ignoring case. So `cpu`
 * finds `node_cpu_seconds_total`, `avail` finds `MemAvailable` and `99` finds `p99`; `vail` finds
 * none of them. An index holds, for every such start, the rest of its run (a term): a word is
 * found by the terms it is a prefix of, without reading the objects.
 */

/** Where in an object a term was found: name or title, tag, project, or any other text of the spec. */
export type TermClass = 'a' | 'b' | 'p' | 's';

/** What a word found in each place adds to an object's score (as the search has always ranked). */
export const CLASS_WEIGHT: Readonly<Record<TermClass, number>> = { a: 4, b: 3, p: 2, s: 1 };

/** Added for a word that is the whole name or the whole title. */
export const EXACT_BONUS = 2;

/** The highest a word can add: the whole name or title. */
export const MAX_WORD_WEIGHT = CLASS_WEIGHT.a + EXACT_BONUS;

/** Where an object's title is (every searchable kind shows `spec.display.name`). */
export const TITLE_PATH = 'spec.display.name';

/** Longest term kept (characters); a longer word is looked up by its first ones, then checked. */
export const TERM_MAX = 32;

/** Longest whole name or title kept for the exact-match bonus (a query is at most 200 characters). */
export const EXACT_MAX = 200;

/**
 * Most terms kept for one object: a bigger one (a dashboard holding long Markdown texts) is
 * marked instead, and every search reads and checks it.
 */
export const MAX_TERMS = 4_096;

/** Deepest nesting walked for texts (as the search always did). */
const MAX_DEPTH = 40;

/** The terms of one object: the best class of each, its whole name and title, or too many to keep. */
export interface ObjectTerms {
  terms: Map<string, TermClass>;
  /** The lowercased name and title when each is one word: a query word equal to one gets EXACT_BONUS. */
  exact: string[];
  /** More than MAX_TERMS terms: none are kept, the object is checked by every search. */
  overflow: boolean;
}

/** What the search reads of an object (an Envelope, without depending on the store's types). */
export interface Searchable {
  metadata: { name: string; project?: string; tags?: readonly string[] };
  spec: unknown;
}

const RANK: Readonly<Record<TermClass, number>> = { a: 4, b: 3, p: 2, s: 1 };

/**
 * The terms of `obj`: its name and title (a), tags (b), project (p) and every other string of its
 * spec (s); none, `overflow` set, past `max` of them.
 */
export function termsOf(obj: Searchable, max = MAX_TERMS): ObjectTerms {
  const terms = new Map<string, TermClass>();
  const add = (text: string, cls: TermClass) =>
    eachTerm(text, (t) => {
      const had = terms.get(t);
      if (had === undefined || RANK[had] < RANK[cls]) terms.set(t, cls);
    });
  const title = titleOf(obj);
  add(obj.metadata.name, 'a');
  if (title !== undefined) add(title, 'a');
  for (const tag of obj.metadata.tags ?? []) add(tag, 'b');
  if (obj.metadata.project) add(obj.metadata.project, 'p');
  walkStrings(obj.spec, (s) => add(s, 's'));
  const exact = [
    ...new Set([obj.metadata.name, title].filter((s): s is string => s !== undefined && isOneWord(s)).map((s) => s.toLowerCase())),
  ];
  if (terms.size > max) return { terms: new Map(), exact, overflow: true };
  return { terms, exact, overflow: false };
}

/** The object's title (`spec.display.name`) when it is a string. */
export function titleOf(obj: Searchable): string | undefined {
  const display = isRecord(obj.spec) ? obj.spec.display : undefined;
  const name = isRecord(display) ? display.name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** Every string inside `value`, depth first, keys in order. */
function walkStrings(value: unknown, fn: (s: string) => void, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') fn(value);
  else if (Array.isArray(value)) for (const v of value) walkStrings(v, fn, depth + 1);
  else if (isRecord(value)) for (const k in value) walkStrings(value[k], fn, depth + 1);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether `s` is one word of a query: no whitespace (a query is split at it), no NUL, not too long. */
const isOneWord = (s: string) => s.length > 0 && s.length <= EXACT_MAX && !/[\s\u0000]/.test(s);

/** Runs of letters and digits. */
const RUN = /[\p{L}\p{N}]+/gu;

/** Calls `fn` with every term of `text`: from each word start of each run, the rest of the run, lowercased and cut at TERM_MAX. */
export function eachTerm(text: string, fn: (term: string) => void): void {
  for (const m of text.matchAll(RUN)) {
    const run = m[0];
    for (let i = 0; i < run.length; i++) if (i === 0 || startsWord(run, i)) fn(run.slice(i, i + TERM_MAX).toLowerCase());
  }
}

/**
 * The terms a query word is looked up by: each run of letters and digits of the word, lowercased
 * and cut at TERM_MAX (a `tag:` prefix aside). A text the word matches holds, for each, a term it
 * is a prefix of. Empty for a word of neither letters nor digits.
 */
export function wordTerms(word: string): string[] {
  const runs = [...word.replace(/^tag:/i, '').matchAll(RUN)].map((m) => m[0].toLowerCase().slice(0, TERM_MAX));
  return [...new Set(runs)];
}

/**
 * Whether `word` (lowercased) matches `text`: found in it, ignoring case, where a word of the
 * text starts (a word beginning with neither a letter nor a digit matches wherever it is found).
 */
export function matchesAt(text: string, word: string): boolean {
  if (word.length === 0) return false;
  const lower = text.toLowerCase();
  const anywhere = !isWordChar(word, 0);
  if (lower.length !== text.length) return matchesSlowly(text, word, anywhere);
  for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
    if (anywhere || startsWord(text, at)) return true;
  }
  return false;
}

/** `matchesAt` for a text whose lowercase has another length (a few Unicode letters): word start by word start. */
function matchesSlowly(text: string, word: string, anywhere: boolean): boolean {
  for (let at = 0; at < text.length; at++) {
    if (
      (anywhere || startsWord(text, at)) &&
      text
        .slice(at, at + word.length + 8)
        .toLowerCase()
        .startsWith(word)
    )
      return true;
  }
  return false;
}

/** Whether a word starts at `i` of `s` (a letter or digit there). */
export function startsWord(s: string, i: number): boolean {
  if (!isWordChar(s, i)) return false;
  if (i === 0 || !isWordChar(s, i - 1)) return true;
  const prev = s.charCodeAt(i - 1);
  const cur = s.charCodeAt(i);
  if (isDigit(prev, s, i - 1) !== isDigit(cur, s, i)) return true;
  if (!isUpper(cur, s, i)) return false;
  if (isLower(prev, s, i - 1)) return true;
  // the last capital of an acronym starts the next word: HTTP|Server
  return isUpper(prev, s, i - 1) && i + 1 < s.length && isLower(s.charCodeAt(i + 1), s, i + 1);
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const DIGIT = /\p{N}/u;

function isWordChar(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return WORD_CHAR.test(String.fromCodePoint(s.codePointAt(i)!));
}

// ASCII by its code; other characters by what Unicode says of them (`c` is s.charCodeAt(i))
const isDigit = (c: number, s: string, i: number) => (c < 128 ? c >= 48 && c <= 57 : DIGIT.test(s[i]));
const isUpper = (c: number, s: string, i: number) =>
  c < 128 ? c >= 65 && c <= 90 : s[i] !== s[i].toLowerCase() && s[i] === s[i].toUpperCase();
const isLower = (c: number, s: string, i: number) =>
  c < 128 ? c >= 97 && c <= 122 : s[i] !== s[i].toUpperCase() && s[i] === s[i].toLowerCase();
