import { badRequest } from '../errors.js';
import { joinPath } from '../resources/object-path.js';

/** Keys that could reach Object.prototype through a careless merge: never accepted. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/**
 * Walks a parsed request body without recursion and rejects what dashplane never stores:
 * nesting deeper than `maxDepth`, prototype-pollution keys, and numbers that do not survive a
 * JSON round trip exactly (non-finite, or integers beyond 2^53 - 1).
 */
export function assertSafeValue(root: unknown, maxDepth: number): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: root, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)) || Object.is(value, -0)) {
        throw badRequest(`${path || 'body'}: the number is out of range; numbers must be finite, not -0, and integers within ±(2^53 - 1)`, [{ path: path || '(root)', message: 'number out of range' }]);
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) {
      throw badRequest(`the body is nested more than ${maxDepth} levels deep (at ${path || 'the root'}); flatten it`, [{ path: path || '(root)', message: 'too deeply nested' }]);
    }
    if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, depth: depth + 1, path: joinPath(path, i) }));
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) {
        throw badRequest(`the key "${key}" is not allowed anywhere in a request body (at ${joinPath(path, key)})`, [{ path: joinPath(path, key), message: 'forbidden key' }]);
      }
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: joinPath(path, key) });
    }
  }
}
