import { profileText, pyroscopeSpec } from './profile-queries.js';
import type { Obj } from './read.js';
import { lokiLogSpec, lokiMetricSpec, prometheusSpec } from './target-specs.js';
import { tempoSpec, tempoText } from './trace-queries.js';

/** The Perses query types panels take: time series for charts and tables, logs, traces and profiles. */
export type QueryType = 'TimeSeriesQuery' | 'LogQuery' | 'TraceQuery' | 'ProfileQuery';

/** Builds a query plugin's spec (its datasource aside) from a Grafana target; a string says why it cannot. */
export type SpecBuilder = (target: Obj, panel: Obj, notes: string[]) => Obj | string;

/** What the targets of one Grafana datasource type become. */
export interface TargetPlugins {
  /** The Perses datasource plugin the queries run on. */
  datasource: string;
  /** The target's query text: a target whose text is blank is empty and is not migrated. */
  text(target: Obj): string;
  /** Per Perses query type: the query plugin and how its spec is built. */
  queries: Partial<Record<QueryType, { kind: string; build: SpecBuilder }>>;
  /** The variable and annotation plugins the migration makes for this datasource type. */
  others?: readonly string[];
  /** The Grafana panels whose targets of this type are migrated, when time series panels are not among them. */
  panels?: string;
  /** Its query plugins take a datasource variable for a datasource (`datasource: "$ds"`): a Grafana datasource variable of this type stays a picker. */
  datasourceVariable?: boolean;
}

const expr = (t: Obj): string => (typeof t.expr === 'string' ? t.expr : '');

/**
 * Grafana datasource type (normalised: datasources.ts) -> the Perses plugins its targets become.
 * A target of another type is kept as a placeholder query in time series panels and left out of
 * log, trace and profile panels.
 */
export const TARGET_PLUGINS: Readonly<Record<string, TargetPlugins>> = {
  prometheus: {
    datasource: 'PrometheusDatasource',
    text: expr,
    queries: { TimeSeriesQuery: { kind: 'PrometheusTimeSeriesQuery', build: prometheusSpec } },
    others: ['PrometheusLabelValuesVariable', 'PrometheusLabelNamesVariable', 'PrometheusPromQLVariable', 'PrometheusPromQLAnnotation'],
    datasourceVariable: true,
  },
  loki: {
    datasource: 'LokiDatasource',
    text: expr,
    queries: {
      TimeSeriesQuery: { kind: 'LokiTimeSeriesQuery', build: lokiMetricSpec },
      LogQuery: { kind: 'LokiLogQuery', build: lokiLogSpec },
    },
    others: ['LokiLabelValuesVariable', 'LokiLabelNamesVariable'],
    datasourceVariable: true,
  },
  tempo: {
    datasource: 'TempoDatasource',
    text: tempoText,
    queries: { TraceQuery: { kind: 'TempoTraceQuery', build: tempoSpec } },
    panels: 'traces panels and tables of trace search results',
    datasourceVariable: true,
  },
  pyroscope: {
    datasource: 'PyroscopeDatasource',
    text: profileText,
    queries: { ProfileQuery: { kind: 'PyroscopeProfileQuery', build: pyroscopeSpec } },
    panels: 'flame graph panels',
  },
};

const DATASOURCE_OF = new Map<string, string>(
  Object.values(TARGET_PLUGINS).flatMap((p) =>
    [...Object.values(p.queries).map((q) => q.kind), ...(p.others ?? [])].map((kind) => [kind, p.datasource] as [string, string]),
  ),
);

/** The datasource plugin a query, variable or annotation plugin the migration makes runs on (undefined for other kinds). */
export function datasourceOfPlugin(kind: string): string | undefined {
  return DATASOURCE_OF.get(kind);
}
