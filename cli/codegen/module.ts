import { SERVER_OWNED } from '../../src/lib/canonical.js';
import { isObj, type Obj } from '../../src/lib/is-obj.js';
import { dashboardCode, type CodeParts } from './dashboard.js';
import { hasOnly, withPlugins } from './plugins.js';
import { call, data, print, type Node } from './print.js';

/** A resource without the metadata the server sets (the SDK never writes it). */
export function withoutServerOwned(r: Obj): Obj {
  if (!isObj(r.metadata)) return r;
  const metadata = Object.fromEntries(Object.entries(r.metadata).filter(([k]) => !(SERVER_OWNED as readonly string[]).includes(k)));
  return { ...r, metadata };
}

/** The code of one resource: `dashboard({...})` for a dashboard the builder can say, else `resource(kind, {...})`. */
function resourceCode(r: Obj, parts: CodeParts): Node {
  const meta = r.metadata;
  const isDashboard =
    r.kind === 'Dashboard' && hasOnly(r, ['kind', 'metadata', 'spec'], ['kind', 'metadata', 'spec']) && isObj(r.spec) && isObj(meta);
  if (isDashboard && hasOnly(meta, ['name', 'project', 'tags'], ['name']) && typeof meta.name === 'string') return dashboardCode(r, parts);
  const { kind, ...body } = r;
  if (typeof kind !== 'string') return data(r);
  parts.used.add('resource');
  return call('resource', kind, withPlugins(body, parts.used) as Node);
}

/**
 * A TypeScript module whose default export builds `resources` (one, or an array) with the SDK:
 * `dashctl generate`. Server-owned metadata is left out; everything else is kept, so that
 * `dashctl build` gives back the input.
 */
export function moduleCode(resources: readonly Obj[], sdk = 'dashplane/sdk'): string {
  const parts: CodeParts = { used: new Set(), consts: [] };
  const nodes = resources.map((r) => resourceCode(withoutServerOwned(r), parts));
  const value = nodes.length === 1 ? nodes[0] : (nodes as Node);
  const imports = [...parts.used].sort();
  const lines = [`import { ${imports.join(', ')} } from '${sdk}';`, ''];
  for (const c of parts.consts) lines.push(`const ${c.name} = ${print(c.value)};`, '');
  lines.push(`export default ${print(value)};`, '');
  return lines.join('\n');
}
