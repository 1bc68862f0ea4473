import { isObj } from '../../src/lib/is-obj.js';
import { hasOnly, pluginCode, queryTypeOf, withPlugins } from './plugins.js';
import { call, data, object, type Node } from './print.js';

/** `panel({...})`, or undefined when the panel has what `panel` cannot write. */
export function panelCode(
  p: unknown,
  key: string | undefined,
  size: { width?: number; height?: number },
  used: Set<string>,
): Node | undefined {
  if (!isObj(p) || p.kind !== 'Panel' || !hasOnly(p, ['kind', 'spec'], ['kind', 'spec']) || !isObj(p.spec)) return undefined;
  const s = p.spec;
  if (!hasOnly(s, ['display', 'plugin', 'queries', 'links'], ['plugin'])) return undefined;
  if (s.queries !== undefined && !Array.isArray(s.queries)) return undefined;
  const d = s.display;
  const simple =
    isObj(d) && Object.keys(d).length > 0 && hasOnly(d, ['name', 'description']) && Object.values(d).every((v) => typeof v === 'string');
  used.add('panel');
  return call(
    'panel',
    object({
      key,
      title: simple ? (d.name as string | undefined) : undefined,
      description: simple ? (d.description as string | undefined) : undefined,
      display: d !== undefined && !simple ? data(d) : undefined,
      ...size,
      plugin: pluginCode(s.plugin, used),
      queries: Array.isArray(s.queries) ? s.queries.map((q) => queryCode(q, used)) : undefined,
      links: s.links === undefined ? undefined : data(s.links),
    }),
  );
}

/** A panel query: the plugin alone where the panel adds the rest, else `query(plugin, {...})`, else data. */
function queryCode(q: unknown, used: Set<string>): Node {
  if (!isObj(q) || !hasOnly(q, ['kind', 'spec'], ['kind', 'spec']) || !isObj(q.spec) || !hasOnly(q.spec, ['name', 'plugin'], ['plugin']))
    return data(q);
  const plugin = q.spec.plugin;
  if (!isObj(plugin) || typeof plugin.kind !== 'string' || typeof q.kind !== 'string') return data(q);
  const type = queryTypeOf(plugin.kind);
  const code = pluginCode(plugin, used);
  if (type === q.kind && q.spec.name === undefined) return code;
  used.add('query');
  return call(
    'query',
    code,
    object({ name: q.spec.name === undefined ? undefined : data(q.spec.name), kind: type === q.kind ? undefined : q.kind }),
  );
}

/** `listVariable({...})` / `textVariable({...})`, or data. */
export function variableCode(v: unknown, used: Set<string>): Node {
  if (!isObj(v) || !hasOnly(v, ['kind', 'spec'], ['kind', 'spec']) || !isObj(v.spec) || typeof v.spec.name !== 'string')
    return withPlugins(v, used);
  const builder = v.kind === 'ListVariable' ? 'listVariable' : v.kind === 'TextVariable' ? 'textVariable' : undefined;
  if (!builder) return withPlugins(v, used);
  used.add(builder);
  return call(builder, withPlugins(v.spec, used));
}
