import { normalizeType, type DatasourceResolver } from './datasources.js';
import { arr, defined, isObj, obj, quoted, str, type Obj } from './read.js';
import type { ReportBuilder } from './report.js';
import { TARGET_PLUGINS, type QueryType } from './target-plugins.js';

/** What the query mappers need from the dashboard being migrated. */
export interface QueryContext {
  ds: DatasourceResolver;
  report: ReportBuilder;
  /** Whether the server knows a plugin kind (LokiLogQuery...). */
  hasPlugin(kind: string): boolean;
  /** Whether the web UI draws a plugin kind; absent: the report gives no render verdicts. */
  inUi?: ((kind: string) => boolean) | undefined;
}

/** A kept query: its Grafana refId and legend, and its index among the Perses queries. */
export interface QueryRef {
  refId?: string | undefined;
  legend?: string | undefined;
  index: number;
}

/** The queries of one panel and what became of its targets. */
export interface PanelQueries {
  queries: Obj[];
  refs: QueryRef[];
  notes: string[];
  /** Targets kept only as placeholder text. */
  placeholders: number;
}

/** Selector of nothing: what a placeholder query runs (an empty result, never an error). */
const PLACEHOLDER_SELECTOR = 'grafana_query_not_migrated';

/** The `queryType`s of Grafana's Tempo query editor. */
const TEMPO_QUERY_TYPES = new Set(['traceql', 'traceqlSearch', 'traceqlMetrics', 'nativeSearch', 'serviceMap', 'upload', 'clear']);

/** Grafana's plugin type of a target whose datasource says nothing: told from the target's fields. */
function typeFromShape(t: Obj, logs: boolean): string {
  if (t.panelId !== undefined && t.panelId !== null) return 'dashboard';
  if (typeof t.expr === 'string') return logs ? 'loki' : 'prometheus';
  if (typeof t.profileTypeId === 'string') return 'pyroscope';
  if (TEMPO_QUERY_TYPES.has(t.queryType)) return 'tempo';
  if (t.scenarioId !== undefined) return 'testdata';
  // before Graphite: InfluxDB targets of Grafana's editor carry an empty `target` too
  if (
    t.rawQuery !== undefined ||
    t.measurement !== undefined ||
    t.resultFormat !== undefined ||
    Array.isArray(t.groupBy) ||
    Array.isArray(t.select)
  )
    return 'influxdb';
  if (typeof t.target === 'string') return 'graphite';
  if (typeof t.rawSql === 'string') return 'sql';
  if (t.bucketAggs !== undefined || t.timeField !== undefined) return 'elasticsearch';
  if (t.namespace !== undefined && t.metricName !== undefined) return 'cloudwatch';
  return 'unknown';
}

/** The text of a target in its own query language, for placeholders and notes. */
export function targetText(t: Obj): string {
  for (const key of ['expr', 'target', 'rawSql', 'query', 'expression']) if (str(t[key])) return t[key];
  if (t.scenarioId !== undefined) return `testdata scenario ${String(t.scenarioId)}`;
  if (str(t.profileTypeId)) return `${t.profileTypeId}${str(t.labelSelector) ?? ''}`;
  const { refId: _r, datasource: _d, hide: _h, ...rest } = t;
  return JSON.stringify(rest).slice(0, 500);
}

/** Perses query plugins of Grafana datasource types the migration does not translate into (their query models differ). */
const UNTRANSLATED_PLUGINS: Record<string, string> = { influxdb: 'InfluxDBTimeSeriesQuery', cloudwatch: 'CloudWatchTimeSeriesQuery' };

/** Why a target of `type` is not migrated, in words for notes and placeholder queries. */
function whyNot(type: string, t: Obj, ctx: QueryContext): string {
  if (type === 'dashboard')
    return `it reused the results of panel ${String(t.panelId)} (Grafana's "-- Dashboard --" datasource), and Perses panels cannot share results: copy that panel's queries here`;
  if (type === 'unknown') return 'its datasource type cannot be told from the dashboard';
  if (type === 'grafana')
    return `it queried Grafana's built-in datasource${str(t.queryType) ? ` (${t.queryType})` : ''}, which exists only inside Grafana (random walks, live channels, files, dashboard search)`;
  const panels = TARGET_PLUGINS[type]?.panels;
  if (panels) return `dashplane migrates ${type} queries in ${panels} only: recreate this one`;
  const plugin = UNTRANSLATED_PLUGINS[type];
  if (plugin && ctx.hasPlugin(plugin))
    return `dashplane has the ${plugin} plugin, but the migration does not translate ${type} queries into it: recreate the query with it`;
  return `dashplane has no ${type} plugin`;
}

function placeholder(type: string, t: Obj, why: string): Obj {
  const lines = targetText(t)
    .replace(/[\u0000-\u0009\u000b-\u001f]/g, ' ')
    .split('\n');
  const text = [
    `# Grafana ${type} query ${t.refId ?? ''} was not migrated: ${why}. Original query:`,
    ...lines.map((l) => `#   ${l}`),
    PLACEHOLDER_SELECTOR,
  ].join('\n');
  return { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: text } } } };
}

/** Fields of a target that say nothing of what it queries: a target with nothing else is empty. */
const BOOKKEEPING = new Set([
  'refId',
  'datasource',
  'hide',
  'key',
  '$$hashKey',
  'editorMode',
  'range',
  'instant',
  'interval',
  'intervalFactor',
  'step',
  'format',
  'legendFormat',
  'exemplar',
]);

/** Whether a target (of a type without a query text of its own) holds nothing but bookkeeping and blank values. */
function isBlank(t: Obj): boolean {
  return Object.entries(t).every(
    ([k, v]) =>
      BOOKKEEPING.has(k) ||
      v === undefined ||
      v === null ||
      v === '' ||
      (Array.isArray(v) && v.length === 0) ||
      (isObj(v) && Object.keys(v).length === 0),
  );
}

/** The normalised Grafana datasource type a target queries ("prometheus", "loki", "tempo", "testdata"...). */
export function targetType(t: Obj, panel: Obj, ctx: QueryContext, logs = false): string {
  let type = ctx.ds.typeOf(t.datasource ?? panel.datasource) ?? typeFromShape(t, logs);
  if (type === 'mixed' || type === 'dashboard' || type === 'grafana') {
    // a target on Grafana's built-in datasource ({type: "datasource", uid: "grafana"}) stays one unless its fields say otherwise
    const shape = typeFromShape(t, logs);
    type = shape === 'unknown' && type === 'grafana' ? 'grafana' : shape;
  }
  return normalizeType(type) ?? type;
}

/** Whether a Perses query is a placeholder kept for a target that could not be migrated (it returns no data). */
export function isPlaceholderQuery(q: unknown): boolean {
  return String(obj(obj(obj(q).spec).plugin).spec?.query ?? '').startsWith('# Grafana ');
}

/** The panel a query type feeds, in words for notes. */
const PANEL_WORD: Record<QueryType, string> = {
  TimeSeriesQuery: 'time series',
  LogQuery: 'log',
  TraceQuery: 'trace',
  ProfileQuery: 'profile',
};

/**
 * Grafana targets -> Perses queries of `queryType` (TARGET_PLUGINS says which plugin each
 * datasource type becomes). A target that cannot become one is kept, in time series panels, as a
 * placeholder query that keeps the original text in a PromQL comment and returns no data, and is
 * left out of log, trace and profile panels. Hidden and empty targets are left out. Each case
 * has its note.
 */
export function migrateTargets(panel: Obj, ctx: QueryContext, queryType: QueryType = 'TimeSeriesQuery'): PanelQueries {
  const out: PanelQueries = { queries: [], refs: [], notes: [], placeholders: 0 };
  for (const t of arr(panel.targets)) {
    if (!isObj(t)) continue;
    const ref = t.datasource ?? panel.datasource;
    const type = targetType(t, panel, ctx, queryType === 'LogQuery');
    const id = t.refId ? `query ${t.refId}` : 'a query';
    if (t.hide === true) {
      out.notes.push(`${id} was hidden in Grafana and is not migrated: ${quoted(targetText(t))}`);
      ctx.report.countQuery('dropped');
      continue;
    }
    const target = TARGET_PLUGINS[type];
    if (target ? target.text(t).trim() === '' : isBlank(t)) {
      out.notes.push(`${id} is empty and is not migrated`);
      ctx.report.countQuery('dropped');
      continue;
    }
    const plugin = target?.queries[queryType];
    const built = !plugin
      ? undefined
      : ctx.hasPlugin(plugin.kind)
        ? plugin.build(t, panel, out.notes)
        : `the server has no ${plugin.kind} plugin`;
    if (isObj(built)) {
      const spec = defined({ datasource: ctx.ds.selector(target!.datasource, ref), ...built });
      out.refs.push({ refId: str(t.refId), legend: str(t.legendFormat), index: out.queries.length });
      out.queries.push({ kind: queryType, spec: { plugin: { kind: plugin!.kind, spec } } });
      ctx.report.countQuery('mapped');
    } else if (queryType === 'TimeSeriesQuery') {
      out.refs.push({ refId: str(t.refId), legend: str(t.legendFormat), index: out.queries.length });
      const why = built ?? whyNot(type, t, ctx);
      out.queries.push(placeholder(type, t, why));
      const original = type === 'dashboard' ? '' : `; the original: ${quoted(targetText(t))}`;
      out.notes.push(
        `${type === 'dashboard' ? id : `${id} (${type})`} is kept as a placeholder query that returns no data: ${why}${original}`,
      );
      out.placeholders++;
      ctx.report.countQuery('placeholder');
    } else {
      const why = built ?? `it cannot feed a ${PANEL_WORD[queryType]} panel`;
      out.notes.push(`${id} (${type}) is not migrated: ${why}; the original: ${quoted(targetText(t))}`);
      ctx.report.countQuery('dropped');
    }
  }
  return out;
}
