/** Dotted-path helpers (`spec.plugin.kind`) for the declarative parts of kind descriptors. */

import { isObj } from './is-obj.js';

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * Sets a value at a dotted path; returns whether it did. A missing parent object is made when
 * `makeParents` is set, otherwise the value is not set; a parent that is not a plain object
 * (an array, a scalar) always stops it.
 */
export function setPath(obj: unknown, path: string, value: unknown, opts: { makeParents?: boolean } = { makeParents: true }): boolean {
  const parts = path.split('.');
  let cur: unknown = obj;
  for (const part of parts.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return false;
    const rec = cur as Record<string, unknown>;
    if (rec[part] === undefined && opts.makeParents) rec[part] = {};
    cur = rec[part];
  }
  if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return false;
  (cur as Record<string, unknown>)[parts[parts.length - 1]] = value;
  return true;
}

/** Sets a value at a dotted path when every parent object exists; returns whether it did. */
export function setPathIfParentExists(obj: unknown, path: string, value: unknown): boolean {
  return setPath(obj, path, value, { makeParents: false });
}

/** Deletes the value at a dotted path, if its parent exists. */
export function deletePath(obj: unknown, path: string): void {
  const parts = path.split('.');
  const parent = getPath(obj, parts.slice(0, -1).join('.'));
  if (parts.length === 1) {
    if (obj !== null && typeof obj === 'object') delete (obj as Record<string, unknown>)[parts[0]];
    return;
  }
  if (isObj(parent)) delete parent[parts[parts.length - 1]];
}

/** Appends a key or index to a dotted path: `a.b` + 3 -> `a.b[3]`, `a` + `x` -> `a.x`. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const safe = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  const seg = safe === key ? key : `[${safe}]`;
  if (base === '') return seg;
  return seg.startsWith('[') ? base + seg : `${base}.${seg}`;
}

/** A place in a walk of a value: its parent's place and its key there (the root has no parent). */
export interface Place {
  parent?: Place | undefined;
  key?: string | number | undefined;
}

/** The dotted path of a place (`spec.panels.a.kind`), '' for the root: spelled out only when a message needs it. */
export function pathOfPlace(place: Place | undefined): string {
  const keys: (string | number)[] = [];
  for (let at = place; at?.parent; at = at.parent) keys.push(at.key!);
  return keys.reverse().reduce<string>((path, k) => joinPath(path, k), '');
}
