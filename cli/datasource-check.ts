import {
  type DatasourceScopes,
  fallbackDatasourceKinds,
  type KnownDatasource,
  missingDatasources,
  type PluginEntry,
  pluginEntries,
} from '../src/lib/datasource-refs.js';
import { isObj } from '../src/lib/is-obj.js';
import type { ApiClient } from './api-client.js';
import { collectionPath, KINDS } from './kinds.js';
import { where } from './manifests.js';
import type { Target } from './targets.js';

/** A datasource an object of the input asks for that will not exist: not refused, printed. */
export interface DatasourceWarning {
  target: Target;
  path: string;
  message: string;
}

/** Where the datasources come from: the server's lists (`api`, read as the caller), or the input alone (offline lint). */
export interface DatasourceSources {
  api?: ApiClient;
  /** The plugins (their datasource kinds); default: the server's GET /api/v1/plugins. */
  plugins?: PluginEntry[];
  /** Objects the run deletes (apply --prune): their datasources will not exist. */
  deleted?: readonly { d: { kind: string }; name: string; project?: string | undefined }[];
}

/**
 * The datasource warnings of the input (src/lib/datasource-refs.ts, the server's rules): for each
 * object of a kind that asks for datasources, each request that neither its own datasources, its
 * project's nor the global ones will answer once the input is applied. Those are the server's (as
 * the caller may list them; a list it may not read is not known, and nothing is said about it)
 * with the input's datasources added (they replace a stored one of the same name) and the deleted
 * ones removed. Offline, a scope is known only when the input holds datasources of it.
 */
export async function datasourceWarnings(targets: readonly Target[], o: DatasourceSources): Promise<DatasourceWarning[]> {
  const users = targets.filter((t) => t.d.usesDatasources);
  if (!users.length) return [];
  const plugins = o.plugins ?? (o.api ? await serverPlugins(o.api) : []);
  const fallback = fallbackDatasourceKinds(plugins);
  const lists = new Map<string, Promise<KnownDatasource[] | undefined>>();
  const scope = (kind: string, project: string | undefined): Promise<KnownDatasource[] | undefined> => {
    const key = `${kind}/${project ?? ''}`;
    let list = lists.get(key);
    if (!list) {
      list = known(targets, o, kind, project);
      lists.set(key, list);
    }
    return list;
  };
  const out: DatasourceWarning[] = [];
  for (const t of users) {
    const uses = t.d.usesDatasources!;
    const scopes: Omit<DatasourceScopes, 'dashboard'> = {
      project: t.project === undefined ? undefined : await scope(uses.project, t.project),
      global: await scope(uses.global, undefined),
    };
    for (const m of missingDatasources(t.m.object.spec, fallback, scopes, t.project))
      out.push({ target: t, path: m.path, message: m.message });
  }
  return out;
}

/** `warning: file.yaml:12 Dashboard p/d: spec.panels.a...: asks for ...` */
export function warningLine(w: DatasourceWarning): string {
  return `warning: ${where(w.target.m, w.path)} ${w.target.label}: ${w.path}: ${w.message}\n`;
}

async function serverPlugins(api: ApiClient): Promise<PluginEntry[]> {
  const res = await api.request('GET', '/api/v1/plugins');
  return res.status === 200 && Array.isArray(res.body) ? pluginEntries(res.body) : [];
}

/** The datasources of `kind` in a scope after the run, or undefined when they cannot be known. */
async function known(
  targets: readonly Target[],
  o: DatasourceSources,
  kind: string,
  project: string | undefined,
): Promise<KnownDatasource[] | undefined> {
  const d = KINDS.byName(kind);
  if (!d) return undefined;
  const inScope = (x: { d: { kind: string }; project?: string | undefined }) =>
    x.d.kind === kind && (d.scope === 'global' || x.project === project);
  const mine = targets.filter(inScope).map((t) => knownOf(t.name, t.m.object.spec));
  let stored: KnownDatasource[] = [];
  if (o.api) {
    const res = await o.api.request('GET', collectionPath(d, project));
    // a project this run creates has none yet (400 "doesn't exist", or 404 from an older server)
    if (res.status === 200 && Array.isArray(res.body))
      stored = res.body.map((x: { metadata: { name: string }; spec: unknown }) => knownOf(x.metadata.name, x.spec));
    else if (res.status !== 400 && res.status !== 404) return undefined;
  } else if (!mine.length) return undefined;
  const gone = new Set([...(o.deleted ?? []).filter(inScope).map((x) => x.name), ...mine.map((x) => x.name)]);
  return [...stored.filter((x) => !gone.has(x.name)), ...mine];
}

function knownOf(name: string, spec: unknown): KnownDatasource {
  const s = isObj(spec) ? spec : {};
  return { name, kind: isObj(s.plugin) && typeof s.plugin.kind === 'string' ? s.plugin.kind : '', isDefault: s.default === true };
}
