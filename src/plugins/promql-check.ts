import { parser } from '@prometheus-io/lezer-promql';

/**
 * Syntax check of a PromQL query with the Prometheus project's own grammar (lezer-promql, strict:
 * no error recovery, so one linear pass that stops at the first error). A query referring to a
 * dashboard variable (`$name`, `${name}`, anywhere, string literals included) is not checked, as
 * Perses v0.54 skips it: a variable's value may be any text, and VictoriaMetrics users write
 * MetricsQL (`range_last(...)`) in Prometheus queries, which Perses then accepts.
 */
const VARIABLE_REF = /\$\{?\w/;
const STRICT = parser.configure({ strict: true });

/**
 * Tokens of a query checked at most. lezer cuts parse stacks deeper than 2800 frames and long
 * chains of left-associative operators (past about 1100 tokens, e.g. 552 selectors joined by
 * `or`), which valid PromQL can reach: the first tokens, well below that, are checked, which also
 * bounds the cost of a query (a few kilobytes of PromQL hold fewer).
 */
export const MAX_CHECKED_TOKENS = 500;

/** Characters of a query checked at most (a string literal is never cut). */
export const MAX_CHECKED_CHARS = 65_536;

/** Where a query is wrong: 0-based offset, 1-based line and column, and what is found there. */
export interface PromQLError {
  offset: number;
  line: number;
  column: number;
  found: string;
}

/** The first syntax error of `query`, or undefined when it parses (or where it cannot be told). */
export function promqlError(query: string): PromQLError | undefined {
  if (query.trim() === '' || VARIABLE_REF.test(query)) return undefined;
  const scan = scanQuery(query);
  let offset: number;
  try {
    STRICT.parse(query.slice(0, scan.end));
    return undefined;
  } catch (e) {
    const at = /No parse at (\d+)/.exec((e as Error).message);
    if (!at) throw e;
    offset = Number(at[1]);
  }
  // a part cut at a limit ends anywhere: its last tokens (a two-character operator may be cut in
  // two) and its end say nothing
  const starts = scan.tokenStarts;
  if (scan.end < query.length && offset >= (starts.length > 1 ? starts[starts.length - 2] : 0)) return undefined;
  return { offset, ...lineColumn(query, offset), found: foundAt(query, offset) };
}

/**
 * One pass over the query outside string literals and comments: where checking ends (a `$`, or
 * a token boundary within the limits) and where tokens start (approximately: each string, each
 * run of word characters and each other character).
 */
function scanQuery(query: string): { end: number; tokenStarts: number[] } {
  const tokenStarts: number[] = [];
  let boundary = 0;
  let i = 0;
  while (i < query.length) {
    if (i >= MAX_CHECKED_CHARS || tokenStarts.length >= MAX_CHECKED_TOKENS) return { end: boundary, tokenStarts };
    const c = query[i];
    if (c === '$') return { end: i, tokenStarts };
    if (c === '"' || c === "'" || c === '`') {
      tokenStarts.push(i);
      i = stringEnd(query, i);
      boundary = i;
      continue;
    }
    if (c === '#') {
      const nl = query.indexOf('\n', i);
      i = nl < 0 ? query.length : nl;
      boundary = i;
      continue;
    }
    if (/\s/.test(c)) {
      boundary = ++i;
      continue;
    }
    tokenStarts.push(i);
    if (/\w/.test(c)) {
      while (i < query.length && /[\w.:]/.test(query[i])) i++;
    } else {
      i++;
    }
    boundary = i;
  }
  return { end: query.length, tokenStarts };
}

/** The index after the string literal opening at `start` (raw strings have no escapes); the end when unterminated. */
function stringEnd(query: string, start: number): number {
  const quote = query[start];
  for (let i = start + 1; i < query.length; i++) {
    if (query[i] === '\\' && quote !== '`') i++;
    else if (query[i] === quote) return i + 1;
  }
  return query.length;
}

function lineColumn(query: string, offset: number): { line: number; column: number } {
  const before = query.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** What the parser stopped at, as a user reads it: a word, one character, or the end. */
function foundAt(query: string, offset: number): string {
  const rest = query.slice(offset).trimStart();
  if (rest === '') return 'the end of the query';
  const word = /^[\w.:]{1,40}/.exec(rest)?.[0];
  return JSON.stringify(word ?? rest[0]);
}

/** The message of a query's first syntax error, naming its position, or undefined. */
export function promqlProblem(query: string): string | undefined {
  const e = promqlError(query);
  return e && `invalid PromQL at line ${e.line}, column ${e.column}: unexpected ${e.found}`;
}
