import { DATASOURCE_KINDS, PLUGIN_SYNONYMS, PLUGIN_TYPES } from '../../sdk/generated/catalog.js';
import { builderName } from '../../sdk/names.js';
import { call, data, object, type Node } from './print.js';
import { isObj, type Obj } from '../../src/lib/is-obj.js';

const TYPES: Readonly<Record<string, string>> = PLUGIN_TYPES;

/** Only these keys (and all of `required`). */
export function hasOnly(o: Obj, allowed: readonly string[], required: readonly string[] = []): boolean {
  return Object.keys(o).every((k) => allowed.includes(k)) && required.every((k) => k in o);
}

/**
 * A plugin `{kind, spec}` as its builder call (`timeSeriesChart({...})`, the datasource selector
 * by name where the builder turns a name back into it), or `plugin('Kind', {...})` for a kind
 * without one; anything else stays data.
 */
export function pluginCode(p: unknown, used: Set<string>): Node {
  if (!isObj(p) || typeof p.kind !== 'string' || !isObj(p.spec) || !hasOnly(p, ['kind', 'spec'])) return data(p);
  const spec = { ...p.spec };
  const dsKind = DATASOURCE_KINDS[p.kind];
  const ds = spec.datasource;
  if (
    dsKind &&
    isObj(ds) &&
    hasOnly(ds, ['kind', 'name'], ['kind', 'name']) &&
    ds.kind === dsKind &&
    typeof ds.name === 'string' &&
    !ds.name.startsWith('$')
  )
    spec.datasource = ds.name;
  if (TYPES[p.kind] && !PLUGIN_SYNONYMS[p.kind]) {
    const name = builderName(p.kind);
    used.add(name);
    return call(name, data(spec));
  }
  used.add('plugin');
  return call('plugin', p.kind, data(p.spec));
}

/** The query type a plugin answers (`TimeSeriesQuery`...), if the catalog knows the plugin. */
export const queryTypeOf = (kind: unknown): string | undefined =>
  typeof kind === 'string' && TYPES[kind]?.endsWith('Query') ? TYPES[kind] : undefined;

/** Any value with every `plugin: {kind, spec}` inside it written with its builder. */
export function withPlugins(v: unknown, used: Set<string>): Node {
  if (Array.isArray(v)) return v.map((x) => withPlugins(x, used));
  if (!isObj(v)) return data(v);
  const out: Record<string, Node> = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === 'plugin' ? pluginCode(x, used) : withPlugins(x, used);
  return object(out);
}
