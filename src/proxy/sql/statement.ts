/** The keywords a query to the SQL proxy may start with (Perses' list: read statements of PostgreSQL, MySQL and MariaDB). */
export const READ_KEYWORDS: readonly string[] = ['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'VALUES', 'TABLE'];

/** Whose comment rules apply: PostgreSQL's, or MySQL's (MariaDB's are the same). */
export type SqlDialect = 'postgres' | 'mysql';

/**
 * The first keyword of a statement, upper case, after white space, comments and opening
 * parentheses (`(SELECT 1) UNION (SELECT 2)`); '' when it starts with anything else. Comments as
 * the server reads them: PostgreSQL's `-- ...` to the end of the line and `/* ... *\/` nested;
 * MySQL's `#` and `-- ` (a space after the dashes) to the end of the line and `/* ... *\/` ending at
 * the first `*\/`, except the executable ones (`/*!...*\/`, `/*M!...*\/`), whose text the server
 * runs: a query starting with one has no read keyword.
 */
export function firstKeyword(text: string, dialect: SqlDialect = 'postgres'): string {
  const mysql = dialect === 'mysql';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c) || c === '(') i++;
    else if (mysql ? /^(?:#|--(?:[\s\x00-\x1f]|$))/.test(text.slice(i, i + 3)) : text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i) && !(mysql && /^\/\*M?!/.test(text.slice(i, i + 4))))
      i = mysql ? flatCommentEnd(text, i) : commentEnd(text, i);
    else break;
  }
  return /^[A-Za-z]+/.exec(text.slice(i))?.[0].toUpperCase() ?? '';
}

/** Where a block comment starting at `start` ends (comments nest in PostgreSQL); the text's end when it does not. */
function commentEnd(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (text.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return text.length;
}

/** Where a MySQL block comment starting at `start` ends (at the first `*\/`: they do not nest); the text's end when it does not. */
function flatCommentEnd(text: string, start: number): number {
  const end = text.indexOf('*/', start + 2);
  return end < 0 ? text.length : end + 2;
}

/**
 * The word `OUTFILE` or `DUMPFILE` of a MySQL query, anywhere in its text (upper case), or ''.
 * `SELECT ... INTO OUTFILE` and `INTO DUMPFILE` write a file on the database server (with the FILE
 * privilege), and a read-only transaction does not stop them (MySQL and MariaDB allow both in
 * one). The text is searched as it is, strings and comments included, as Perses does: no reading
 * of quotes (which depends on sql_mode) can then be fooled into missing it; the price is that a
 * string holding the word is refused too.
 */
export function fileWriteKeyword(text: string): string {
  return /\b(OUTFILE|DUMPFILE)\b/i.exec(text)?.[1].toUpperCase() ?? '';
}
