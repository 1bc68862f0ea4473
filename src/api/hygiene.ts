import { badRequest } from '../errors.js';
import { joinPath, pathOfPlace } from '../lib/object-path.js';

/** Keys that could reach Object.prototype through a careless merge: never accepted. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/** A node met during the walk: its parent and key, so its path is spelled out only for an error. */
interface Node {
  value: unknown;
  depth: number;
  parent?: Node;
  key?: string | number;
}

/**
 * Walks a parsed request body without recursion and rejects what dashplane never stores:
 * nesting deeper than `maxDepth`, prototype-pollution keys, and numbers that do not survive a
 * JSON round trip exactly (non-finite, or integers beyond 2^53 - 1). Paths are built only for the
 * error (building one per node was a few per cent of a create).
 */
export function assertSafeValue(root: unknown, maxDepth: number): void {
  const stack: Node[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, depth } = node;
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)) || Object.is(value, -0)) {
        const path = pathOfPlace(node);
        throw badRequest(`${path || 'body'}: the number is out of range; numbers must be finite, not -0, and integers within ±(2^53 - 1)`, [
          { path: path || '(root)', message: 'number out of range' },
        ]);
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) {
      const path = pathOfPlace(node);
      throw badRequest(`the body is nested more than ${maxDepth} levels deep (at ${path || 'the root'}); flatten it`, [
        { path: path || '(root)', message: 'too deeply nested' },
      ]);
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], depth: depth + 1, parent: node, key: i });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) {
        const path = joinPath(pathOfPlace(node), key);
        throw badRequest(`the key "${key}" is not allowed anywhere in a request body (at ${path})`, [{ path, message: 'forbidden key' }]);
      }
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: node, key });
    }
  }
}
