import { normalizeType, type DatasourceResolver } from './datasources.js';
import { arr, defined, isObj, num, quoted, str, type Obj } from './read.js';
import type { ReportBuilder } from './report.js';

/** What the query mappers need from the dashboard being migrated. */
export interface QueryContext {
  ds: DatasourceResolver;
  report: ReportBuilder;
  /** Whether the server knows a plugin kind (LokiLogQuery...). */
  hasPlugin(kind: string): boolean;
}

/** A kept query: its Grafana refId and legend, and its index among the Perses queries. */
export interface QueryRef {
  refId?: string;
  legend?: string;
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

const DURATION = /^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
const VARIABLE_REF = /^\$([\w.-]+|\{[\w.-]+\})$/;

/** Grafana's plugin type of a target whose datasource says nothing: told from the target's fields. */
function typeFromShape(t: Obj, logs: boolean): string {
  if (t.panelId !== undefined && t.panelId !== null) return 'dashboard';
  if (typeof t.expr === 'string') return logs ? 'loki' : 'prometheus';
  if (t.scenarioId !== undefined) return 'testdata';
  // before Graphite: InfluxDB targets of Grafana's editor carry an empty `target` too
  if (t.rawQuery !== undefined || t.measurement !== undefined || t.resultFormat !== undefined || Array.isArray(t.groupBy) || Array.isArray(t.select)) return 'influxdb';
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
  const { refId: _r, datasource: _d, hide: _h, ...rest } = t;
  return JSON.stringify(rest).slice(0, 500);
}

/** Grafana's deprecated `[[var]]` syntax as `${var}`, which Perses understands. */
function modernVariables(expr: string): string {
  return expr.replace(/\[\[(\w+)(?::(\w+))?\]\]/g, (_m, name: string, fmt?: string) => (fmt ? `\${${name}:${fmt}}` : `\${${name}}`));
}

/**
 * A target's min step: its `interval`, else (also when empty) the panel's, as Grafana takes
 * `target.interval || options.interval`. The `step` Grafana 4 left on targets is not read: it
 * wrote the step it had computed for the last time range back onto the target, no setting.
 */
function minStep(t: Obj, panel: Obj, notes: string[]): string | undefined {
  const raw = str(t.interval) ?? str(panel.interval);
  if (raw === undefined) return undefined;
  const v = raw.replace(/^>/, '').trim();
  if (DURATION.test(v) || VARIABLE_REF.test(v)) return v;
  notes.push(`query ${t.refId ?? ''} min interval "${raw}" is not a duration: dropped`);
  return undefined;
}

/** Perses query plugins of Grafana datasource types the migration does not translate into (their query models differ). */
const UNTRANSLATED_PLUGINS: Record<string, string> = { influxdb: 'InfluxDBTimeSeriesQuery', cloudwatch: 'CloudWatchTimeSeriesQuery', tempo: 'TempoTraceQuery' };

/** Why a target of `type` is not migrated, in words for notes and placeholder queries. */
function whyNot(type: string, t: Obj, ctx: QueryContext): string {
  if (type === 'dashboard')
    return `it reused the results of panel ${String(t.panelId)} (Grafana's "-- Dashboard --" datasource), and Perses panels cannot share results: copy that panel's queries here`;
  if (type === 'unknown') return 'its datasource type cannot be told from the dashboard';
  if (type === 'grafana')
    return `it queried Grafana's built-in datasource${str(t.queryType) ? ` (${t.queryType})` : ''}, which exists only inside Grafana (random walks, live channels, files, dashboard search)`;
  const plugin = UNTRANSLATED_PLUGINS[type];
  if (plugin && ctx.hasPlugin(plugin)) return `dashplane has the ${plugin} plugin, but the migration does not translate ${type} queries into it: recreate the query with it`;
  return `dashplane has no ${type} plugin`;
}

function placeholder(type: string, t: Obj, why: string): Obj {
  const lines = targetText(t)
    .replace(/[\u0000-\u0009\u000b-\u001f]/g, ' ')
    .split('\n');
  const text = [`# Grafana ${type} query ${t.refId ?? ''} was not migrated: ${why}. Original query:`, ...lines.map((l) => `#   ${l}`), PLACEHOLDER_SELECTOR].join('\n');
  return { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: text } } } };
}

/**
 * Grafana targets -> Perses queries. Prometheus targets become PrometheusTimeSeriesQuery, Loki
 * targets LokiLogQuery (log panels) or LokiTimeSeriesQuery; any other target becomes a placeholder
 * query that keeps the original text in a PromQL comment and returns no data. Hidden and empty
 * targets are left out, with a note.
 */
export function migrateTargets(panel: Obj, ctx: QueryContext, logs = false): PanelQueries {
  const out: PanelQueries = { queries: [], refs: [], notes: [], placeholders: 0 };
  for (const t of arr(panel.targets)) {
    if (!isObj(t)) continue;
    const ref = t.datasource ?? panel.datasource;
    let type = ctx.ds.typeOf(ref) ?? typeFromShape(t, logs);
    if (type === 'mixed' || type === 'dashboard' || type === 'grafana') {
      // a target on Grafana's built-in datasource ({type: "datasource", uid: "grafana"}) stays one unless its fields say otherwise
      const shape = typeFromShape(t, logs);
      type = shape === 'unknown' && type === 'grafana' ? 'grafana' : shape;
    }
    type = normalizeType(type) ?? type;
    const id = t.refId ? `query ${t.refId}` : 'a query';
    if (t.hide === true) {
      out.notes.push(`${id} was hidden in Grafana and is not migrated: ${quoted(targetText(t))}`);
      ctx.report.countQuery('dropped');
      continue;
    }
    const expr = typeof t.expr === 'string' ? t.expr.trim() : '';
    if ((type === 'prometheus' || type === 'loki') && expr === '') {
      out.notes.push(`${id} is empty and is not migrated`);
      ctx.report.countQuery('dropped');
      continue;
    }
    let query: Obj | undefined;
    if (type === 'prometheus' && !logs) {
      const legend = str(t.legendFormat) !== '__auto' ? str(t.legendFormat) : undefined;
      const spec = defined({
        datasource: ctx.ds.selector('PrometheusDatasource', ref),
        query: modernVariables(t.expr),
        seriesNameFormat: legend,
        minStep: minStep(t, panel, out.notes),
        resolution: (num(t.intervalFactor) ?? 1) > 1 ? num(t.intervalFactor) : undefined,
        instant: t.instant === true ? true : undefined,
      });
      query = { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec } } };
    } else if (type === 'loki') {
      const kind = logs ? 'LokiLogQuery' : 'LokiTimeSeriesQuery';
      if (ctx.hasPlugin(kind))
        query = { kind: logs ? 'LogQuery' : 'TimeSeriesQuery', spec: { plugin: { kind, spec: defined({ datasource: ctx.ds.selector('LokiDatasource', ref), query: t.expr }) } } };
    }
    if (query) {
      out.refs.push({ refId: str(t.refId), legend: str(t.legendFormat), index: out.queries.length });
      out.queries.push(query);
      ctx.report.countQuery('mapped');
    } else if (!logs) {
      out.refs.push({ refId: str(t.refId), legend: str(t.legendFormat), index: out.queries.length });
      const why = whyNot(type, t, ctx);
      out.queries.push(placeholder(type, t, why));
      const original = type === 'dashboard' ? '' : `; the original: ${quoted(targetText(t))}`;
      out.notes.push(`${type === 'dashboard' ? id : `${id} (${type})`} is kept as a placeholder query that returns no data: ${why}${original}`);
      out.placeholders++;
      ctx.report.countQuery('placeholder');
    } else {
      out.notes.push(`${id} (${type}) cannot feed a log panel and is not migrated: ${quoted(targetText(t))}`);
      ctx.report.countQuery('dropped');
    }
  }
  return out;
}
