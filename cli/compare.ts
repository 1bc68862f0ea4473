import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { getPath } from '../src/lib/object-path.js';
import { mask, SECRET_MASK } from '../src/resources/masking.js';
import type { Envelope } from '../src/storage/store.js';
import { withoutServerFields } from '../src/lib/canonical.js';
import { isObj, type Obj } from '../src/lib/is-obj.js';

export { sameJson } from '../src/lib/same-json.js';

export { canonical, SERVER_OWNED, withoutServerFields } from '../src/lib/canonical.js';

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

/**
 * True when the input carries a real value in a field that the server only ever shows as
 * "<secret>": then nobody can tell whether it changed, so it has to be written.
 */
export function hasUnverifiableSecrets(d: KindDescriptor, input: Obj): boolean {
  // in the form the server stores: an older form (a User's spec.password) holds the same secret
  const obj = structuredClone(input);
  try {
    d.hooks?.normalize?.(obj);
  } catch {
    return true; // the server refuses it, naming the field: it has to be sent
  }
  return (d.sensitive ?? []).some((path) => {
    const v = getPath(obj, path);
    return v !== undefined && v !== null && v !== '' && v !== SECRET_MASK;
  });
}
