/**
 * Which dashboards a datasource serves, for the delete confirmation. Pure (no fetch, no React), so
 * the rules are tested against the plugin modules a real server serves (test/datasource-users.test.ts).
 */

/** A Perses PluginModule as GET /api/v1/plugins serves it: its plugins by type (`kind`) and kind (`spec.name`). */
export interface PluginModuleInfo {
  spec: { plugins: { kind: string; spec: { name: string } }[] };
}

/** The datasource a dashboard might use: its plugin kind, its name and whether it is its scope's default. */
export interface DatasourceRef {
  pluginKind: string | undefined;
  name: string;
  isDefault: boolean;
}

/**
 * Plugin kind → the datasource plugin kinds of its module. A query or variable plugin whose spec
 * names no `datasource` goes through the default datasource of its module's datasource kind (Perses'
 * Prometheus plugins fall back to `{kind: PrometheusDatasource}`, the default of that kind).
 */
export function implicitDatasourceKinds(modules: PluginModuleInfo[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of modules) {
    const plugins = m.spec?.plugins ?? [];
    const dsKinds = plugins.filter((p) => p.kind === 'Datasource').map((p) => p.spec.name);
    if (!dsKinds.length) continue;
    for (const p of plugins) if (p.kind !== 'Datasource' && p.kind !== 'Panel') out.set(p.spec.name, dsKinds);
  }
  return out;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a dashboard spec uses the datasource: by name, or (a default) through selectors without a name or plugins that name none. */
export function dashboardUses(spec: unknown, ds: DatasourceRef, implicit: Map<string, string[]>): boolean {
  if (!ds.pluginKind) return false;
  const kind = ds.pluginKind;
  // a default datasource of the same kind in the dashboard itself comes first for unnamed selectors
  const locals = isObj(spec) && isObj(spec.datasources) ? Object.values(spec.datasources) : [];
  const shadowed = locals.some((l) => isObj(l) && l.default === true && isObj(l.plugin) && l.plugin.kind === kind);
  const viaDefault = ds.isDefault && !shadowed;
  let found = false;
  const walk = (value: unknown, depth: number): void => {
    if (found || depth > 30 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1);
      return;
    }
    const o = value as Json;
    if (viaDefault && typeof o.kind === 'string' && isObj(o.spec) && !('datasource' in o.spec) && implicit.get(o.kind)?.includes(kind)) {
      found = true;
      return;
    }
    for (const [k, v] of Object.entries(o)) {
      if (k === 'datasource' && isObj(v)) {
        if (v.kind === kind && (v.name === ds.name || (viaDefault && !v.name))) found = true;
      } else walk(v, depth + 1);
    }
  };
  walk(isObj(spec) ? { ...spec, datasources: undefined } : spec, 0);
  return found;
}
