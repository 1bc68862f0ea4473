/** The keywords a query to the SQL proxy may start with (Perses' list: read statements of PostgreSQL, MySQL and MariaDB). */
export const READ_KEYWORDS: readonly string[] = ['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'VALUES', 'TABLE'];

/**
 * The first keyword of a statement, upper case, after white space, comments (`-- ...` to the end
 * of the line, `/* ... *\/` nested as PostgreSQL nests them) and opening parentheses (`(SELECT 1)
 * UNION (SELECT 2)`); '' when it starts with anything else.
 */
export function firstKeyword(text: string): string {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c) || c === '(') i++;
    else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) i = commentEnd(text, i);
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
