/**
 * Which dashboards a datasource serves, for the delete confirmation. Pure (no fetch, no React), so
 * the rules are tested against the plugin modules a real server serves (test/datasource-users.test.ts);
 * the rules themselves are Perses' resolution, shared with the server (src/lib/datasource-refs.ts).
 */
import {
  datasourceRefs,
  fallbackDatasourceKinds,
  localDatasources,
  pickDatasource,
  pluginEntries,
  resolveDatasource,
} from '../../../src/lib/datasource-refs.js';

/** A Perses PluginModule as GET /api/v1/plugins serves it: its plugins by type (`kind`) and kind (`spec.name`). */
export interface PluginModuleInfo {
  metadata?: { name?: string };
  spec: { plugins: { kind: string; spec: { name: string } }[] };
}

/** The datasource a dashboard might use: its plugin kind, its name and whether it is its scope's default. */
export interface DatasourceRef {
  pluginKind: string | undefined;
  name: string;
  isDefault: boolean;
}

/**
 * Plugin kind -> the datasource kind it uses when its spec names none (Perses' Prometheus plugins
 * fall back to `{kind: PrometheusDatasource}`, the default of that kind).
 */
export function implicitDatasourceKinds(modules: PluginModuleInfo[]): Map<string, string> {
  return fallbackDatasourceKinds(pluginEntries(modules));
}

/**
 * Whether a dashboard spec uses the datasource: a selector of its kind that picks it (by name, or
 * without one when it is the default), or a plugin naming none whose kind's default it is, unless
 * the dashboard's own datasources answer first. (A project datasource of the same name that would
 * shadow a global one is not known here: the global one counts as used.)
 */
export function dashboardUses(spec: unknown, ds: DatasourceRef, implicit: ReadonlyMap<string, string>): boolean {
  if (!ds.pluginKind) return false;
  const target = [{ name: ds.name, kind: ds.pluginKind, isDefault: ds.isDefault }];
  const local = localDatasources(spec);
  return datasourceRefs(spec, implicit).some(
    (r) =>
      r.selector.kind === ds.pluginKind &&
      resolveDatasource(r.selector, { dashboard: local, project: [], global: [] }) === undefined &&
      pickDatasource(target, r.selector) !== undefined,
  );
}
