import { defined, num, quoted, str, type Obj } from './read.js';

/** The specs of the Prometheus and Loki query plugins, from Grafana targets (their datasource is added by queries.ts). */

const DURATION = /^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
const VARIABLE_REF = /^\$([\w.-]+|\{[\w.-]+\})$/;

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

/** A target's legend format, unless Grafana's "auto" marker. */
const legendOf = (t: Obj): string | undefined => (str(t.legendFormat) !== '__auto' ? str(t.legendFormat) : undefined);

/** PrometheusTimeSeriesQuery: expr (`[[var]]` -> `${var}`), legend, min step, resolution, instant. */
export function prometheusSpec(t: Obj, panel: Obj, notes: string[]): Obj {
  return defined({
    query: modernVariables(t.expr),
    seriesNameFormat: legendOf(t),
    minStep: minStep(t, panel, notes),
    resolution: (num(t.intervalFactor) ?? 1) > 1 ? num(t.intervalFactor) : undefined,
    instant: t.instant === true ? true : undefined,
  });
}

/** LokiTimeSeriesQuery: the LogQL expression; Perses' Loki query has no legend format and always runs over the time range (noted). */
export function lokiMetricSpec(t: Obj, _panel: Obj, notes: string[]): Obj {
  const id = t.refId ? `query ${t.refId}` : 'a query';
  const legend = legendOf(t);
  if (legend) notes.push(`${id}: the legend format ${quoted(legend)} is not carried (LokiTimeSeriesQuery names series by their labels)`);
  if (t.instant === true || t.queryType === 'instant')
    notes.push(`${id} was an instant query: LokiTimeSeriesQuery runs it over the time range`);
  return { query: t.expr };
}

/** LokiLogQuery: the LogQL expression. */
export function lokiLogSpec(t: Obj): Obj {
  return { query: t.expr };
}
