/**
 * The datasources a dashboard asks for, and how Perses finds them: one implementation for the
 * server's warnings (/api/validate), dashctl's plans and lint, the web UI's panels, Import
 * preview, Explore and delete confirmation. Pure: no I/O, no Node or browser API.
 *
 * Perses' rules (DatasourceStoreProvider of @perses-dev/dashboards, docs/api.md §8): a query or
 * variable names a datasource with a selector `{kind, name?}`; a selector without a name means
 * the default datasource of that kind; a plugin spec without `datasource` uses the default of its
 * own datasource kind (Prometheus' queries `{kind: "PrometheusDatasource"}`). A selector is looked
 * for in the dashboard's own `spec.datasources` (by key, of that kind), then the project's
 * datasources, then the global ones, the first found winning. A name holding `$` is a variable's
 * value, known only when the dashboard runs.
 */

import { isObj, type Obj } from './is-obj.js';
import { joinPath } from './object-path.js';

/** A datasource selector as Perses writes it in a query or a variable. */
export interface DatasourceSelector {
  kind: string;
  name?: string;
}

/** Where a dashboard asks for a datasource, and what it asks for. */
export interface DatasourceRef {
  /** The JSON path of the `datasource` field, or of the plugin that names none. */
  path: string;
  selector: DatasourceSelector;
  /** The plugin names no datasource: it uses the default of `selector.kind`. */
  implicit: boolean;
}

/** A datasource as resolution needs it. */
export interface KnownDatasource {
  name: string;
  kind: string;
  isDefault: boolean;
}

/** A plugin of a plugin module (PluginRegistry entries, or GET /api/v1/plugins flattened). */
export interface PluginEntry {
  module: string;
  /** `Datasource`, `TimeSeriesQuery`, `Variable`, `Panel`... */
  type: string;
  kind: string;
}

export type DatasourceScope = 'dashboard' | 'project' | 'global';

/** The datasources of each scope; a scope left undefined is not known (its datasources could not be read). */
export interface DatasourceScopes {
  dashboard?: KnownDatasource[] | undefined;
  project?: KnownDatasource[] | undefined;
  global?: KnownDatasource[] | undefined;
}

/**
 * Plugin kind -> the datasource kind it uses when its spec names none: of its module's datasource
 * kinds, the one sharing the longest prefix with it (PrometheusTimeSeriesQuery ->
 * PrometheusDatasource, MetricsTimeSeriesQuery -> MetricsDatasource), else the module's first.
 */
export function fallbackDatasourceKinds(plugins: readonly PluginEntry[]): Map<string, string> {
  const byModule = new Map<string, string[]>();
  for (const p of plugins) if (p.type === 'Datasource') byModule.set(p.module, [...(byModule.get(p.module) ?? []), p.kind]);
  const out = new Map<string, string>();
  for (const p of plugins) {
    const kinds = byModule.get(p.module);
    if (!kinds || p.type === 'Datasource' || p.type === 'Panel') continue;
    const shared = (k: string) => {
      let n = 0;
      while (n < k.length && k[n] === p.kind[n]) n++;
      return n;
    };
    out.set(
      p.kind,
      kinds.reduce((best, k) => (shared(k) > shared(best) ? k : best), kinds[0]),
    );
  }
  return out;
}

/** GET /api/v1/plugins (Perses PluginModule objects) as plugin entries. */
export function pluginEntries(
  modules: readonly { metadata?: { name?: string }; spec?: { plugins?: { kind: string; spec: { name: string } }[] } }[],
): PluginEntry[] {
  return modules.flatMap((m, i) =>
    (m.spec?.plugins ?? []).map((p) => ({ module: m.metadata?.name ?? String(i), type: p.kind, kind: p.spec.name })),
  );
}

/**
 * Every datasource a dashboard spec asks for (its panels' queries, its variables...): each
 * `datasource` selector, and each plugin that names none (the default of its kind). Selectors
 * naming a variable (`$ds`) are left out: their datasource is known only when the dashboard runs.
 */
export function datasourceRefs(spec: unknown, fallback: ReadonlyMap<string, string>, base = 'spec'): DatasourceRef[] {
  const out: DatasourceRef[] = [];
  const walk = (value: unknown, path: string, depth: number): void => {
    if (depth > 40 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, joinPath(path, i), depth + 1));
      return;
    }
    const o = value as Obj;
    const own = typeof o.kind === 'string' && isObj(o.spec) ? fallback.get(o.kind) : undefined;
    if (own !== undefined && !('datasource' in (o.spec as Obj))) out.push({ path, selector: { kind: own }, implicit: true });
    for (const [k, v] of Object.entries(o)) {
      if (k !== 'datasource') walk(v, joinPath(path, k), depth + 1);
      else if (isObj(v) && typeof v.kind === 'string') {
        const name = typeof v.name === 'string' && v.name !== '' ? v.name : undefined;
        if (name === undefined || !name.includes('$'))
          out.push({ path: joinPath(path, k), selector: { kind: v.kind, ...(name !== undefined ? { name } : {}) }, implicit: false });
      }
    }
  };
  if (!isObj(spec)) return out;
  for (const [k, v] of Object.entries(spec)) if (k !== 'datasources') walk(v, joinPath(base, k), 0);
  return out;
}

/** A dashboard's own datasources (`spec.datasources`, keyed by name). */
export function localDatasources(spec: unknown): KnownDatasource[] {
  const ds = isObj(spec) && isObj(spec.datasources) ? spec.datasources : {};
  return Object.entries(ds).flatMap(([name, d]) =>
    isObj(d) && isObj(d.plugin) && typeof d.plugin.kind === 'string' ? [{ name, kind: d.plugin.kind, isDefault: d.default === true }] : [],
  );
}

/**
 * The datasource of a list (a project's, the global ones) a selector picks: without a name the
 * default of its kind; with one, that name exactly, else ignoring case (Perses lower-cases names,
 * dashplane keeps them as written).
 */
export function pickDatasource<T extends KnownDatasource>(all: readonly T[], selector: DatasourceSelector): T | undefined {
  const ofKind = all.filter((d) => d.kind === selector.kind);
  const name = selector.name;
  if (name === undefined || name === '') return ofKind.find((d) => d.isDefault);
  return ofKind.find((d) => d.name === name) ?? ofKind.find((d) => d.name.toLowerCase() === name.toLowerCase());
}

/**
 * Where a selector resolves: the dashboard's own datasources (by key), then the project's, then
 * the global ones. Undefined when no known scope has it; `unknown` when it is in none of the known
 * scopes but a scope could not be read.
 */
export function resolveDatasource(
  selector: DatasourceSelector,
  scopes: DatasourceScopes,
): { scope: DatasourceScope; datasource: KnownDatasource } | 'unknown' | undefined {
  const local = scopes.dashboard ?? [];
  const mine =
    selector.name === undefined || selector.name === ''
      ? local.find((d) => d.kind === selector.kind && d.isDefault)
      : local.find((d) => d.name === selector.name && d.kind === selector.kind);
  if (mine) return { scope: 'dashboard', datasource: mine };
  for (const scope of ['project', 'global'] as const) {
    const found = scopes[scope] && pickDatasource(scopes[scope], selector);
    if (found) return { scope, datasource: found };
  }
  return scopes.project === undefined || scopes.global === undefined ? 'unknown' : undefined;
}

/** "datasource "prom" of kind PrometheusDatasource", or "the default datasource of kind PrometheusDatasource". */
export function describeSelector(selector: DatasourceSelector): string {
  return selector.name ? `datasource "${selector.name}" of kind ${selector.kind}` : `the default datasource of kind ${selector.kind}`;
}

/** Where a reference was looked for: the dashboard's own datasources (if it has any), a project, the global ones (if they could be read). */
export interface LookedIn {
  dashboard: boolean;
  project?: string;
  global: boolean;
}

/**
 * What a reference no scope answers asks for, where it is not, and what to do: `asks for
 * datasource "x" of kind K, which is not in project "p" or the global datasources: create it, or
 * name another`.
 */
export function notFoundSentence(ref: Pick<DatasourceRef, 'selector' | 'implicit'>, looked: LookedIn): string {
  const places = [
    ...(looked.dashboard ? ["this dashboard's own datasources"] : []),
    ...(looked.project ? [`project "${looked.project}"`] : []),
    ...(looked.global ? ['the global datasources'] : []),
  ];
  const listed = places.length > 1 ? `${places.slice(0, -1).join(', ')} or ${places[places.length - 1]}` : (places[0] ?? 'any datasource');
  const where = looked.global ? listed : `${listed} (the global datasources could not be checked)`;
  return ref.selector.name
    ? `asks for ${describeSelector(ref.selector)}, which is not in ${where}: create it, or name another`
    : `${ref.implicit ? 'names no datasource, so it asks for' : 'asks for'} ${describeSelector(ref.selector)}, which is not in ${where}: make a datasource of that kind the default, or name one`;
}

/**
 * The references of a dashboard spec no scope resolves, one per path, each with its sentence
 * (`notFoundSentence`). A reference that might be in the project's datasources when they could
 * not be read is not reported; when only the global ones could not be read, the sentence says
 * they were not checked.
 */
export function missingDatasources(
  spec: unknown,
  fallback: ReadonlyMap<string, string>,
  scopes: Omit<DatasourceScopes, 'dashboard'>,
  project: string | undefined,
  base = 'spec',
): (DatasourceRef & { message: string })[] {
  const all = { project: scopes.project, global: scopes.global ?? [], dashboard: localDatasources(spec) };
  const looked = { dashboard: all.dashboard.length > 0, ...(project ? { project } : {}), global: scopes.global !== undefined };
  return datasourceRefs(spec, fallback, base)
    .filter((r) => resolveDatasource(r.selector, all) === undefined)
    .map((r) => ({ ...r, message: notFoundSentence(r, looked) }));
}
