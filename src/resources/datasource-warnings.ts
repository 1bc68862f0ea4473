import type { Authorizer, Principal } from '../access/authorizer.js';
import type { ErrorDetail } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import { fallbackDatasourceKinds, type KnownDatasource, missingDatasources } from '../lib/datasource-refs.js';
import { isObj } from '../lib/is-obj.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { Envelope, ObjectStore } from '../storage/store.js';

/** What the warnings need: the stored datasources, who may read them, the plugins' datasource kinds. */
export interface WarningDeps {
  store: Pick<ObjectStore, 'list'>;
  authorizer: Pick<Authorizer, 'readable'>;
  plugins: PluginRegistry;
}

const fallbacks = new WeakMap<PluginRegistry, Map<string, string>>();

/**
 * Warnings about an object that do not refuse it (docs/api.md §10): each datasource its spec asks
 * for (src/lib/datasource-refs.ts) that neither its own `spec.datasources`, its project nor the
 * global scope has, with its path. A scope counts only when `p` may read every datasource in it;
 * otherwise what is missing there is not known (and not told to whoever may not read it).
 */
export async function datasourceWarnings(deps: WarningDeps, p: Principal, d: KindDescriptor, obj: Envelope): Promise<ErrorDetail[]> {
  const uses = d.usesDatasources;
  if (!uses || !isObj(obj.spec)) return [];
  let fallback = fallbacks.get(deps.plugins);
  if (!fallback) {
    fallback = fallbackDatasourceKinds(deps.plugins.all().map((x) => ({ module: x.module, type: x.type, kind: x.kind })));
    fallbacks.set(deps.plugins, fallback);
  }
  const project = d.scope === 'project' ? obj.metadata.project : undefined;
  const [inProject, global] = await Promise.all([
    project ? readAll(deps, p, uses.project, project) : undefined,
    readAll(deps, p, uses.global, ''),
  ]);
  return missingDatasources(obj.spec, fallback, { project: inProject, global }, project).map((m) => ({ path: m.path, message: m.message }));
}

/** Every datasource of `kind` in `where` ("" for the global scope), or undefined when `p` may not read them all. */
async function readAll(deps: WarningDeps, p: Principal, kind: string, where: string): Promise<KnownDatasource[] | undefined> {
  try {
    if ((await deps.authorizer.readable(p, kind, where)) !== '*') return undefined;
  } catch {
    return undefined;
  }
  const all = await deps.store.list({ kind, ...(where ? { project: where } : {}) });
  return all.map((ds) => {
    const spec = isObj(ds.spec) ? ds.spec : {};
    return {
      name: ds.metadata.name,
      kind: isObj(spec.plugin) && typeof spec.plugin.kind === 'string' ? spec.plugin.kind : '',
      isDefault: spec.default === true,
    };
  });
}
