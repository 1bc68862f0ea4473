import { badRequest } from '../errors.js';

/** Resource names: `^[a-zA-Z0-9_.-]{1,75}$`, no leading or trailing dot, no `..` anywhere. */
const NAME_RE = /^[a-zA-Z0-9_.-]{1,75}$/;

/** Why a name is not valid, or undefined when it is. */
export function nameProblem(name: unknown): string | undefined {
  if (name === undefined || name === null || name === '') return 'is required (1 to 75 characters of a-z, A-Z, 0-9, "_", "-", ".")';
  if (typeof name !== 'string')
    return `must be a string, not a ${Array.isArray(name) ? 'list' : typeof name} (in YAML, quote a name such as "0123")`;
  if (name.length > 75) return `is ${name.length} characters long; at most 75 are allowed`;
  if (!NAME_RE.test(name)) return 'may only contain a-z, A-Z, 0-9, "_", "-" and "." (no spaces, slashes or other characters)';
  if (name.startsWith('.') || name.endsWith('.')) return 'must not start or end with "."';
  if (name.includes('..')) return 'must not contain ".." (as in Perses: it would read as a parent folder in a path)';
  return undefined;
}

/** Perses' words for a bad name, which its clients and tests look for. */
export const invalidNameWords = (field: string) => (/project/.test(field) ? 'the project name is invalid' : 'the name is invalid');

/** Throws a 400 naming `field` when `name` is not a valid resource name. */
export function assertName(name: unknown, field: string): asserts name is string {
  const problem = nameProblem(name);
  if (problem)
    throw badRequest(`${invalidNameWords(field)}: ${field} ${JSON.stringify(String(name))} ${problem}`, [
      { path: field, message: problem },
    ]);
}
