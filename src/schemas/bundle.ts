/**
 * Makes one self-contained JSON Schema out of a schema and the documents its `$ref`s reach:
 * every referenced schema is copied under `definitions` (keyed by its URI relative to `base`)
 * and every `$ref` points there, so a client needs nothing else to read it.
 */

type Json = Record<string, unknown>;

export interface BundleOptions {
  /** Documents by `$id` (absolute URI). */
  docs: ReadonlyMap<string, Json>;
  /** Prefix stripped from URIs to make definition names (`https://x/schemas/` -> `defs/a.json`). */
  base: string;
}

/** A copy of `root` with every reachable `$ref` bundled; `root` needs an `$id` when it has relative refs. */
export function bundle(root: Json, o: BundleOptions): Json {
  const definitions: Record<string, Json> = {};
  const rootId = typeof root.$id === 'string' ? root.$id : o.base;

  /** `https://x/schemas/defs/variable-spec.json#/definitions/Text` -> `defs.variable-spec.Text` (no "/": a pointer segment). */
  const nameOf = (uri: string) =>
    uri
      .replace(o.base, '')
      .replace(/\.json(?=#|$)/, '')
      .replace(/#\/?(definitions\/)?/, '.')
      .replace(/\.$/, '')
      .replace(/\//g, '.')
      .replace(/[^\w.-]/g, '_');

  /** The schema at `uri` (document + JSON pointer fragment). */
  const lookup = (uri: string): Json => {
    const [doc, fragment = ''] = uri.split('#');
    const d = doc === '' || doc === rootId ? root : o.docs.get(doc);
    if (!d) throw new Error(`$ref to an unknown schema: ${uri}`);
    let cur: unknown = d;
    for (const part of fragment.split('/').filter(Boolean))
      cur = (cur as Json | undefined)?.[decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))];
    if (cur === null || typeof cur !== 'object') throw new Error(`$ref to a missing place: ${uri}`);
    return cur as Json;
  };

  /** The `$ref` target's definition name, bundling it the first time. */
  const define = (uri: string): string => {
    const name = nameOf(uri);
    if (definitions[name] !== undefined) return name;
    definitions[name] = {}; // placeholder: a schema may refer to itself
    const docId = uri.split('#')[0] || rootId;
    definitions[name] = rewrite(lookup(uri), docId) as Json;
    return name;
  };

  const rewrite = (value: unknown, docId: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => rewrite(v, docId));
    if (value === null || typeof value !== 'object') return value;
    const out: Json = {};
    for (const [k, v] of Object.entries(value as Json)) {
      if (k === '$id' || k === '$schema' || k === 'definitions') continue;
      if (k === '$ref' && typeof v === 'string') {
        const target = new URL(v, docId).href;
        out.$ref = target === rootId || target === `${rootId}#` ? '#' : `#/definitions/${define(target)}`;
        continue;
      }
      out[k] = rewrite(v, docId);
    }
    return out;
  };

  const body = rewrite(root, rootId) as Json;
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...body, definitions };
}
