// The canonical form of an object that dashctl diffs (and the web UI's history compares): keys
// in a fixed order and no server-owned metadata, so only real changes show. The web UI bundles
// this file: it imports only dependency-free modules.

import { isObj, type Obj } from './is-obj.js';

/** Metadata the server owns (with older Perses exports' spellings): never part of a comparison or a diff. */
export const SERVER_OWNED = ['createdAt', 'updatedAt', 'version', 'created_at', 'updated_at'] as const;

/** A copy without createdAt/updatedAt/version (and created_at/updated_at). */
export function withoutServerFields(obj: Obj): Obj {
  const copy = { ...obj };
  if (isObj(copy.metadata)) {
    const meta = { ...copy.metadata };
    for (const k of SERVER_OWNED) delete meta[k];
    copy.metadata = meta;
  }
  return copy;
}

/** Keys sorted at every level, except `kind`, `metadata`, `spec` first at the top (stable diffs). */
export function canonical(v: unknown, top = true): unknown {
  if (Array.isArray(v)) return v.map((x) => canonical(x, false));
  if (!isObj(v)) return v;
  const first = top ? ['kind', 'metadata', 'spec'].filter((k) => k in v) : [];
  const rest = Object.keys(v)
    .filter((k) => !first.includes(k) && v[k] !== undefined)
    .sort();
  return Object.fromEntries([...first, ...rest].map((k) => [k, canonical(v[k], false)]));
}
