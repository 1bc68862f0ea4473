import { durationOf, msToDuration, UNIT_MS } from './dashboard-settings.js';
import { datasourcePicker, pickerKind } from './datasource-pickers.js';
import { normalizeType } from './datasources.js';
import type { QueryContext } from './queries.js';
import { arr, defined, isObj, num, obj, quoted, regexSource, str, type Obj } from './read.js';
import { variableVerdict } from './render.js';
import type { ReportEntry } from './report.js';
import { TARGET_PLUGINS } from './target-plugins.js';
import { lokiVariable, prometheusVariable } from './variable-queries.js';

/** Grafana template variables -> Perses variables, each with its report entry. */

/** Grafana sort codes 0-8 -> Perses sort (natural sorting is approximated). */
const SORTS = [
  undefined,
  'alphabetical-asc',
  'alphabetical-desc',
  'numerical-asc',
  'numerical-desc',
  'alphabetical-ci-asc',
  'alphabetical-ci-desc',
  'alphabetical-ci-asc',
  'alphabetical-ci-desc',
];
const VARIABLE_NAME = /^(?!__)[0-9]*[^0-9\W]\w*$/;
const ALL = '$__all';

/** The result for one variable: the Perses variable (absent when nothing is produced) and its entry. */
export interface MigratedVariable {
  variable?: Obj;
  entry: ReportEntry;
}

function display(v: Obj): Obj {
  // hide 1 hid only the label in Grafana: the selector stays visible
  return defined({ name: str(v.label), description: str(v.description), hidden: v.hide === 2 || v.hide === '2' });
}

/** The saved selection: a value, or a list for multi-value variables. */
function defaultValue(v: Obj): string | string[] | undefined {
  const value = obj(v.current).value;
  const list = (Array.isArray(value) ? value : [value]).filter((x): x is string => typeof x === 'string');
  if (list.length === 0) return undefined;
  if (list.includes(ALL)) return ALL;
  return v.multi === true && Array.isArray(value) ? list : list[0];
}

/** Custom variable text: comma-separated, `\,` escapes a comma, `text : value` labels a value. */
function parseCustom(query: string): (string | Obj)[] {
  return (query.match(/(?:\\,|[^,])+/g) ?? [])
    .map((item) => item.replace(/\\,/g, ',').trim())
    .filter((item) => item !== '')
    .map((item) => labelled(item) ?? item);
}

/**
 * `text : value` as its label and value: split at the first ":" with white space on both sides, as
 * /^(.+?)\s+:\s+(.+)$/ would (on one line), but in linear time: that expression rescans a long
 * run of spaces from each of its positions.
 */
function labelled(item: string): Obj | undefined {
  if (/[\n\r\u2028\u2029]/.test(item)) return undefined;
  for (let at = item.indexOf(':', 1); at > 0 && at < item.length - 1; at = item.indexOf(':', at + 1)) {
    if (/\s/.test(item[at - 1]) && /\s/.test(item[at + 1])) return { label: item.slice(0, at).trim(), value: item.slice(at + 1).trim() };
  }
  return undefined;
}

/** The values of a custom or interval variable: its saved options, else its query text. */
function staticValues(v: Obj): (string | Obj)[] {
  const options = arr(v.options).filter(
    (o) => isObj(o) && typeof o.value === 'string' && o.value !== ALL && !String(o.value).startsWith('$__auto'),
  );
  if (options.length > 0)
    return options.map((o) => (typeof o.text === 'string' && o.text !== o.value ? { label: o.text, value: o.value } : o.value));
  return typeof v.query === 'string' ? parseCustom(v.query) : [];
}

/**
 * What a variable whose query cannot run offers instead: the options saved with the dashboard and
 * its saved selection (Grafana saves the selection even when it saves no options), with a note
 * that says which. The variable comes back with a default among those values (or All).
 */
function savedValues(v: Obj): { values: (string | Obj)[]; variable: Obj; note: string } {
  const options = staticValues({ ...v, query: undefined });
  const listed = new Set(options.map((o) => (typeof o === 'string' ? o : String(o.value))));
  const value = obj(v.current).value;
  const selection = (Array.isArray(value) ? value : [value]).filter(
    (x): x is string => typeof x === 'string' && x !== ALL && !x.startsWith('$__auto'),
  );
  const extra = selection.filter((x) => !listed.has(x));
  const values = [...options, ...extra];
  const all = defaultValue(v) === ALL;
  // a default must be one of the values, or All when the variable offers All
  const keep = all ? v.includeAll === true : selection.length > 0;
  const variable = keep ? v : { ...v, current: undefined };
  const shown = (list: string[]) => list.map((x) => JSON.stringify(x)).join(', ');
  let note: string;
  if (options.length > 0) {
    note = `the variable offers the ${options.length} value(s) saved with the dashboard${extra.length > 0 ? ` and its saved selection ${shown(extra)}` : ''}`;
  } else if (extra.length > 0) {
    note = `no options were saved with the dashboard: the variable offers only its saved selection ${shown(extra)}`;
  } else {
    note = 'no values were saved with the dashboard: the variable offers none until values are listed in it';
  }
  return { values, variable, note };
}

function listVariable(v: Obj, plugin: Obj, notes: string[], capturingRegexp?: string | null): Obj {
  const regex = capturingRegexp === undefined ? (str(v.regex) ? regexSource(v.regex) : undefined) : (capturingRegexp ?? undefined);
  const sort = SORTS[Number(v.sort ?? 0)];
  if (Number(v.sort) >= 7) notes.push('natural sorting is approximated by case-insensitive alphabetical sorting');
  const spec = defined({
    name: v.name,
    display: display(v),
    defaultValue: defaultValue(v),
    allowAllValue: v.includeAll === true,
    allowMultiple: v.multi === true,
    customAllValue: v.includeAll === true && str(v.allValue) ? v.allValue : undefined,
    capturingRegexp: regex,
    sort,
    plugin,
  });
  return { kind: 'ListVariable', spec };
}

/** A variable's query as text: Grafana's string, a structured query's `query`, its `definition`, or what a Loki/Tempo label query lists. */
function queryText(v: Obj): string {
  if (typeof v.query === 'string') return v.query;
  const q = obj(v.query);
  const text = str(q.query) ?? str(v.definition);
  if (text) return text;
  if (str(q.label)) return str(q.stream) ? `label_values(${q.stream}, ${q.label})` : `label_values(${q.label})`;
  const { refId: _r, ...rest } = q;
  return Object.keys(rest).length > 0 ? JSON.stringify(rest) : '';
}

/** Whether a query of an unknown datasource still reads as a Prometheus variable function. */
const PROMETHEUS_FUNCTION = /^\s*(label_values|label_names|metrics|query_result)\s*\(/;

/** The datasource type a structured variable query is written for, told from its fields (Grafana's query editors). */
function typeFromQueryShape(query: unknown): string | undefined {
  if (!isObj(query)) return undefined;
  const editor = /^(\w+)VariableQueryEditor/.exec(String(query.refId ?? ''))?.[1]?.toLowerCase();
  if (editor) return editor;
  if (query.qryType !== undefined) return 'prometheus';
  if (typeof query.type === 'number' && (query.label !== undefined || query.stream !== undefined)) return 'loki';
  return undefined;
}

/**
 * The datasource a query variable ran on and its type: its own datasource; without one (or one of
 * unknown type), what its structured query's fields tell, else Grafana's default datasource as far
 * as the dashboard tells it (the export's only datasource input).
 */
function sourceOf(v: Obj, ctx: QueryContext): { ref: unknown; type?: string | undefined } {
  const own = v.datasource !== undefined && v.datasource !== null && v.datasource !== '';
  const fallback = own ? undefined : ctx.ds.defaultRef();
  const type = normalizeType(ctx.ds.typeOf(v.datasource) ?? typeFromQueryShape(v.query) ?? fallback?.type);
  return { ref: own ? v.datasource : normalizeType(fallback?.type) === type ? fallback?.ref : undefined, type };
}

/** A duration ("10m", "1h30m", "7d") in milliseconds; undefined when it is not one. */
function durationMs(text: string): number | undefined {
  const t = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d|w|M|y))+$/.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w|M|y)/g)) ms += Number(m[1]) * UNIT_MS[m[2]];
  return ms;
}

/** Whether a saved value is Grafana's marker of the "auto" interval option (`$__auto_interval_<name>`). */
function isAutoMarker(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('$__auto');
}

/**
 * The listed interval nearest (by ratio) to what Grafana's "auto" option chose over the
 * dashboard's time range: the range in `auto_count` steps (30), at least `auto_min` (10s).
 */
function autoInterval(
  v: Obj,
  values: (string | Obj)[],
  range: string,
): { value: string; interval: string; count: number; min: string } | undefined {
  const rangeMs = durationMs(range);
  const count = Math.max(1, Math.floor(num(v.auto_count) ?? 30));
  const min = str(v.auto_min) && durationMs(v.auto_min) !== undefined ? v.auto_min : '10s';
  if (rangeMs === undefined) return undefined;
  const target = Math.max(rangeMs / count, durationMs(min)!);
  let best: { value: string; distance: number } | undefined;
  for (const item of values) {
    const value = typeof item === 'string' ? item : String(item.value);
    const ms = durationMs(value);
    if (ms === undefined || ms <= 0) continue;
    const distance = Math.abs(Math.log(ms / target));
    if (!best || distance < best.distance) best = { value, distance };
  }
  return best && { value: best.value, interval: msToDuration(Math.round(target)), count, min };
}

/** One Grafana variable -> Perses variable and report entry; `range`: the migrated dashboard's time range (Perses duration). */
function migrateVariable(v: Obj, path: string, ctx: QueryContext, range = '1h'): MigratedVariable {
  const name = str(v.name) ?? '';
  const notes: string[] = [];
  const entry = (outcome: ReportEntry['outcome'], result?: string): ReportEntry => ({
    subject: 'variable',
    source: `${String(v.type)} variable "${name}"`,
    path: result ? path : undefined,
    result,
    outcome: outcome === 'mapped' && notes.length > 0 ? 'approximated' : outcome,
    notes,
  });
  if (!VARIABLE_NAME.test(name)) {
    notes.push(`"${name}" is not a valid Perses variable name (letters, digits and _, not starting with __)`);
    return { entry: entry('dropped') };
  }
  switch (v.type) {
    case 'constant':
      return {
        variable: {
          kind: 'TextVariable',
          spec: defined({
            name,
            display: display({ ...v, hide: 2 }),
            value: str(v.query) ?? String(defaultValue(v) ?? ''),
            constant: true,
          }),
        },
        entry: entry('mapped', 'TextVariable (constant)'),
      };
    case 'textbox':
      return {
        variable: {
          kind: 'TextVariable',
          spec: defined({ name, display: display(v), value: String(defaultValue(v) ?? str(v.query) ?? '') }),
        },
        entry: entry('mapped', 'TextVariable'),
      };
    case 'custom':
    case 'interval': {
      const values = staticValues(v);
      if (v.type !== 'interval' || (v.auto !== true && !isAutoMarker(defaultValue(v)))) {
        return {
          variable: listVariable(v, { kind: 'StaticListVariable', spec: { values } }, notes),
          entry: entry('mapped', 'StaticListVariable'),
        };
      }
      if (!isAutoMarker(defaultValue(v))) {
        notes.push('the "auto" interval option is not supported: the variable offers the listed intervals only');
        return {
          variable: listVariable(v, { kind: 'StaticListVariable', spec: { values } }, notes),
          entry: entry('mapped', 'StaticListVariable'),
        };
      }
      // "auto" was the saved choice: its marker ($__auto_interval_x) is no value of the list
      const auto = autoInterval(v, values, range);
      notes.push(
        auto
          ? `the "auto" interval option is not supported: the default is ${auto.value}, the listed interval nearest to the ${auto.interval} "auto" chose (the dashboard's ${range} in ${auto.count} steps, at least ${auto.min})`
          : 'the "auto" interval option is not supported: the first listed interval is the default',
      );
      const current = { ...v, current: auto ? { value: auto.value } : undefined };
      return {
        variable: listVariable(current, { kind: 'StaticListVariable', spec: { values } }, notes),
        entry: entry('mapped', 'StaticListVariable'),
      };
    }
    case 'datasource': {
      const type = normalizeType(ctx.ds.variables.get(name));
      const kind = type ? TARGET_PLUGINS[type]?.datasource : undefined;
      if (!kind) {
        // the queries of such a datasource are placeholders: no datasource of the project runs them
        notes.push(
          type && type !== 'unknown'
            ? `it chose a ${type} datasource, and the migration does not translate ${type} queries: the queries that used $${name} are kept as placeholder queries`
            : `it names no datasource type: the queries that used $${name} are migrated by their own fields`,
        );
        return { entry: entry('dropped') };
      }
      if (pickerKind(v, ctx) === kind)
        return { variable: datasourcePicker(v, kind, display(v), ctx, notes), entry: entry('mapped', 'DatasourceVariable') };
      notes.push(`queries that used $${name} now use ${ctx.ds.target(kind, name)}: the choice among datasources is not kept`);
      return { entry: { ...entry('approximated', `${kind} of the project`), path: undefined } };
    }
    case 'query': {
      const { ref, type } = sourceOf(v, ctx);
      const text = queryText(v);
      if (type === 'loki') {
        const loki = lokiVariable(v.query);
        if (loki && ctx.hasPlugin(loki.kind)) {
          const plugin = { kind: loki.kind, spec: defined({ datasource: ctx.ds.selector('LokiDatasource', ref), ...loki.spec }) };
          return { variable: listVariable(v, plugin, notes), entry: entry('mapped', loki.kind) };
        }
      }
      const prom =
        type === 'prometheus' || ((type === undefined || type === 'unknown') && PROMETHEUS_FUNCTION.test(text))
          ? prometheusVariable(text, str(v.regex), notes)
          : undefined;
      if (prom) {
        const selector = ctx.ds.selector('PrometheusDatasource', ref);
        const plugin = { kind: prom.plugin.kind, spec: defined({ datasource: selector, ...prom.plugin.spec }) };
        return { variable: listVariable(v, plugin, notes, prom.capturingRegexp), entry: entry('mapped', prom.plugin.kind) };
      }
      const loki = type === 'loki' ? lokiVariable(v.query) : undefined;
      const why = loki
        ? `the server has no ${loki.kind} plugin`
        : text
          ? `the ${type ?? 'unknown'} query ${quoted(text)} cannot run in dashplane`
          : `the variable has no query (datasource type: ${type ?? 'unknown'})`;
      const saved = savedValues(v);
      notes.push(`${why}; ${saved.note}`);
      return {
        variable: listVariable(saved.variable, { kind: 'StaticListVariable', spec: { values: saved.values } }, [], null),
        entry: entry('placeholder', 'StaticListVariable (placeholder)'),
      };
    }
    case 'adhoc':
      notes.push('ad hoc filters have no Perses equivalent: queries run without them');
      return { entry: entry('dropped') };
    default:
      notes.push(`variables of type "${String(v.type)}" have no Perses equivalent`);
      return { entry: entry('dropped') };
  }
}

/** Every variable of `templating.list`, in order; duplicates after the first are dropped with a note. `range`: the migrated dashboard's time range. */
export function migrateVariables(
  dashboard: Obj,
  ctx: QueryContext,
  range = durationOf(dashboard.time, []) ?? '1h',
): { variables: Obj[]; entries: ReportEntry[] } {
  const variables: Obj[] = [];
  const entries: ReportEntry[] = [];
  const seen = new Set<string>();
  // datasource variables first: a variable listed before the one it queries through names it too
  for (const v of arr(obj(dashboard.templating).list)) if (isObj(v) && v.type === 'datasource') pickerKind(v, ctx);
  for (const v of arr(obj(dashboard.templating).list)) {
    if (!isObj(v)) continue;
    const m = migrateVariable(v, `spec.variables[${variables.length}]`, ctx, range);
    if (m.variable && seen.has(m.variable.spec.name)) {
      entries.push({
        ...m.entry,
        outcome: 'dropped',
        path: undefined,
        notes: [...m.entry.notes, 'a variable of the same name comes first'],
      });
      continue;
    }
    if (m.variable) {
      seen.add(m.variable.spec.name);
      variables.push(m.variable);
      if (ctx.inUi) {
        const render = variableVerdict(m.variable, ctx.inUi);
        const unrendered = !render.renders && (m.entry.outcome === 'mapped' || m.entry.outcome === 'approximated');
        entries.push({ ...m.entry, outcome: unrendered ? 'unrendered' : m.entry.outcome, render });
        continue;
      }
    }
    entries.push(m.entry);
  }
  return { variables, entries };
}
