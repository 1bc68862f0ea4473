import type { ErrorDetail } from '../errors.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { proxyProblems } from '../proxy/proxy-block.js';
import { joinPath } from '../lib/object-path.js';
import { isObj, type Obj } from '../lib/is-obj.js';

const entries = (v: unknown): [string, unknown][] => (isObj(v) ? Object.entries(v) : []);
const items = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Letters, digits and "_", not only digits: the digits before the first other character, then any (written so a long name is read in linear time). */
const VARIABLE_NAME_RE = /^[0-9]*[^0-9\W]\w*$/;
const PANEL_REF_PREFIX = '#/spec/panels/';

/** The time range a dashboard shows when it names none (Perses fills the same). */
const DEFAULT_DURATION = '1h';

/** Older forms: a single variable object in `spec.variables` becomes a one-item list; no duration means 1h. */
export function normalizeDashboard(body: Obj): void {
  const spec = body.spec;
  if (!isObj(spec)) return;
  if (isObj(spec.variables)) spec.variables = [spec.variables];
  if (spec.duration === undefined) spec.duration = DEFAULT_DURATION;
  // Perses accepts a dashboard without panels or layouts (an empty one, as SDKs create it) and
  // answers them as null: absent or null, they are an empty map and list here
  if (spec.panels === undefined || spec.panels === null) spec.panels = {};
  if (spec.layouts === undefined || spec.layouts === null) spec.layouts = [];
}

/**
 * Semantic rules of a dashboard spec (docs/api.md §10), all problems at once:
 * panel/query/variable/datasource plugins known and valid, layout references resolve,
 * variable names valid and unique, one local default datasource per plugin kind.
 */
export function dashboardProblems(spec: unknown, plugins: PluginRegistry, base = 'spec'): ErrorDetail[] {
  if (!isObj(spec)) return [];
  return [
    ...panelProblems(spec.panels, plugins, joinPath(base, 'panels')),
    ...layoutProblems(spec.layouts, spec.panels, joinPath(base, 'layouts')),
    ...variableListProblems(spec.variables, plugins, joinPath(base, 'variables')),
    ...localDatasourceProblems(spec.datasources, plugins, joinPath(base, 'datasources')),
  ];
}

function panelProblems(panels: unknown, plugins: PluginRegistry, base: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [key, panel] of entries(panels)) {
    // Perses' clients check each key as a name when they read a dashboard back: one they refuse
    // would make a whole list unreadable to percli
    if (/^\.|\.$|\.\./.test(key))
      out.push({
        path: joinPath(base, key),
        message: 'is not a valid key here: it must not start or end with "." nor hold ".." (Perses clients refuse such a key)',
      });
    const pspec = isObj(panel) ? panel.spec : undefined;
    if (!isObj(pspec)) continue;
    const path = joinPath(joinPath(base, key), 'spec');
    out.push(...plugins.check(pspec.plugin, ['Panel'], joinPath(path, 'plugin')));
    for (const [i, query] of items(pspec.queries).entries()) {
      if (!isObj(query) || typeof query.kind !== 'string') continue;
      const qpath = joinPath(joinPath(path, 'queries'), i);
      if (!plugins.queryTypes.has(query.kind)) {
        out.push({ path: joinPath(qpath, 'kind'), message: `unknown query type "${query.kind}"; known: ${plugins.queryTypeList}` });
        continue;
      }
      if (isObj(query.spec)) out.push(...plugins.check(query.spec.plugin, [query.kind], joinPath(joinPath(qpath, 'spec'), 'plugin')));
    }
  }
  return out;
}

function layoutProblems(layouts: unknown, panels: unknown, base: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const keys = new Set(entries(panels).map(([k]) => k));
  for (const [li, layout] of items(layouts).entries()) {
    const lspec = isObj(layout) ? layout.spec : undefined;
    if (!isObj(lspec)) continue;
    for (const [ii, item] of items(lspec.items).entries()) {
      const content = isObj(item) ? item.content : undefined;
      if (!isObj(content) || typeof content.$ref !== 'string') continue;
      const ref = content.$ref;
      const path = `${joinPath(joinPath(joinPath(base, li), 'spec'), 'items')}[${ii}].content.$ref`;
      if (!ref.startsWith(PANEL_REF_PREFIX)) {
        out.push({ path, message: `"${ref}" must have the form "#/spec/panels/<panel key>"` });
      } else if (!keys.has(ref.slice(PANEL_REF_PREFIX.length))) {
        out.push({ path, message: `refers to panel "${ref.slice(PANEL_REF_PREFIX.length)}", which is not in spec.panels` });
      }
    }
  }
  return out;
}

/** Rules of one variable spec `{kind, spec}` (dashboard variables and Variable resources). */
export function variableProblems(variable: unknown, plugins: PluginRegistry, path: string): ErrorDetail[] {
  if (!isObj(variable) || variable.kind !== 'ListVariable' || !isObj(variable.spec)) return [];
  return plugins.check(variable.spec.plugin, ['Variable'], joinPath(joinPath(path, 'spec'), 'plugin'));
}

function variableListProblems(variables: unknown, plugins: PluginRegistry, base: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  for (const [i, v] of items(variables).entries()) {
    const path = joinPath(base, i);
    out.push(...variableProblems(v, plugins, path));
    const name = isObj(v) && isObj(v.spec) ? v.spec.name : undefined;
    if (typeof name !== 'string') continue;
    const npath = joinPath(joinPath(path, 'spec'), 'name');
    if (!VARIABLE_NAME_RE.test(name)) {
      out.push({ path: npath, message: `variable name "${name}" must be letters, digits and "_" with at least one non-digit` });
    } else if (name.startsWith('__')) {
      out.push({ path: npath, message: `variable name "${name}" must not start with "__" (reserved for built-in variables)` });
    }
    const first = seen.get(name);
    if (first !== undefined) out.push({ path: npath, message: `variable name "${name}" is already used by ${joinPath(base, first)}` });
    else seen.set(name, i);
  }
  return out;
}

function localDatasourceProblems(datasources: unknown, plugins: PluginRegistry, base: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const defaults = new Map<string, string>();
  for (const [name, ds] of entries(datasources)) {
    if (!isObj(ds)) continue;
    const path = joinPath(base, name);
    out.push(...plugins.check(ds.plugin, ['Datasource'], joinPath(path, 'plugin')));
    if (isObj(ds.plugin)) out.push(...proxyProblems(ds.plugin.spec, joinPath(joinPath(path, 'plugin'), 'spec')));
    const kind = isObj(ds.plugin) ? ds.plugin.kind : undefined;
    if (ds.default !== true || typeof kind !== 'string') continue;
    const first = defaults.get(kind);
    if (first !== undefined) {
      out.push({
        path: joinPath(path, 'default'),
        message: `datasource "${first}" is already the default ${kind} of this dashboard; only one may be default`,
      });
    } else defaults.set(kind, name);
  }
  return out;
}
