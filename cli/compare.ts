import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { getPath } from '../src/lib/object-path.js';
import { mask, SECRET_MASK } from '../src/resources/masking.js';
import type { Envelope } from '../src/storage/store.js';
import { isObj, type Obj } from '../src/lib/is-obj.js';

export { sameJson } from '../src/lib/same-json.js';

/** Metadata the server owns: never part of a comparison or a diff. */
export const SERVER_OWNED = ['createdAt', 'updatedAt', 'version'] as const;

/**
 * What the server would store for this input, as far as it can be known offline: canonical kind,
 * name/project filled, the kind's own normalisation of older forms (the server's hook, reused),
 * tags sorted and de-duplicated, sensitive fields masked as responses show them, server-owned
 * metadata dropped.
 */
export function desiredForm(d: KindDescriptor, input: Obj, name: string, project: string | undefined): Obj {
  const obj = structuredClone(input);
  obj.kind = d.kind;
  const meta: Obj = isObj(obj.metadata) ? obj.metadata : {};
  meta.name = name;
  if (d.scope === 'project') meta.project = project;
  else delete meta.project;
  if (meta.tags === null) delete meta.tags;
  if (Array.isArray(meta.tags) && meta.tags.every((t) => typeof t === 'string')) meta.tags = [...new Set(meta.tags as string[])].sort();
  obj.metadata = meta;
  d.hooks?.normalize?.(obj);
  return withoutServerFields(mask(d, obj as unknown as Envelope) as unknown as Obj);
}

/** A copy without createdAt/updatedAt/version. */
export function withoutServerFields(obj: Obj): Obj {
  const copy = { ...obj };
  if (isObj(copy.metadata)) {
    const meta = { ...copy.metadata };
    for (const k of SERVER_OWNED) delete meta[k];
    copy.metadata = meta;
  }
  return copy;
}

/**
 * True when the input carries a real value in a field that the server only ever shows as
 * "<secret>": then nobody can tell whether it changed, so it has to be written.
 */
export function hasUnverifiableSecrets(d: KindDescriptor, input: Obj): boolean {
  return (d.sensitive ?? []).some((path) => {
    const v = getPath(input, path);
    return v !== undefined && v !== null && v !== '' && v !== SECRET_MASK;
  });
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
