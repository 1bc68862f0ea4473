/**
 * What Perses' own Grafana migration (perses/perses + perses/plugins, as of 2025) makes of a
 * dashboard, modelled from its documented rules, to compare against dashplane's on the same
 * corpus. The rules: panels are matched by type to the plugins that ship a migration script;
 * the legacy `rows[]` layout is never read; a query maps when it has an `expr` and either no
 * datasource or a Prometheus/Loki one; variables map by type (query variables only for
 * label_values, label_names and query_result); time range is always 1h; refresh and annotations
 * are dropped; links are converted.
 */

// biome-ignore lint/suspicious/noExplicitAny: corpus files read loosely
type Obj = Record<string, any>;

const MAPPED_TYPES = new Set([
  'timeseries',
  'graph',
  'stat',
  'gauge',
  'bargauge',
  'table',
  'table-old',
  'text',
  'piechart',
  'status-history',
  'logs',
]);
const DATASOURCE_VARIABLE_TYPES = new Set(['prometheus', 'loki', 'tempo', 'grafana-pyroscope-datasource']);

/** Per dashboard: what Perses' rules produce. */
export interface PersesOutcome {
  panels: number;
  panelsMapped: number;
  queries: number;
  queriesMapped: number;
  variables: number;
  variablesMapped: number;
  /** Perses uses the uid as the name: an export without uid gets an empty name, which its validation refuses. */
  validName: boolean;
  legacyRows: boolean;
  timeRangeKept: boolean;
}

function panelsOf(d: Obj): Obj[] {
  const out: Obj[] = [];
  for (const p of d.panels ?? []) {
    if (p?.type === 'row') out.push(...(p.panels ?? []));
    else if (p) out.push(p);
  }
  // copies Grafana saved for repeated panels are not Grafana panels of their own
  return out.filter((p) => p && p.repeatPanelId == null);
}

function queryMaps(t: Obj): boolean {
  if (typeof t.expr !== 'string') return false;
  const ds = t.datasource;
  if (ds === undefined || ds === null) return true;
  return typeof ds === 'object' && (ds.type === undefined || ds.type === 'prometheus' || ds.type === 'loki');
}

function variableMaps(v: Obj): boolean {
  if (['constant', 'textbox', 'custom', 'interval'].includes(v.type)) return true;
  if (v.type === 'datasource') return DATASOURCE_VARIABLE_TYPES.has(String(v.query));
  if (v.type !== 'query') return false;
  const q = typeof v.query === 'string' ? v.query : String(v.query?.query ?? '');
  return /^\s*(label_values|label_names|query_result)\s*\(/.test(q);
}

/** Perses' rules applied to one Grafana dashboard (already unwrapped). */
export function persesOutcome(d: Obj): PersesOutcome {
  const legacyRows = !(d.panels?.length > 0) && d.rows?.length > 0;
  const panels = legacyRows ? [] : panelsOf(d);
  const targets = panels
    .filter((p) => MAPPED_TYPES.has(p.type))
    .flatMap((p) => (p.targets ?? []).filter((t: unknown) => t && typeof t === 'object'));
  const variables = (d.templating?.list ?? []).filter((v: unknown) => v && typeof v === 'object');
  return {
    panels: panels.length,
    panelsMapped: panels.filter((p) => MAPPED_TYPES.has(p.type)).length,
    queries: targets.length,
    queriesMapped: targets.filter(queryMaps).length,
    variables: variables.length,
    variablesMapped: variables.filter(variableMaps).length,
    validName: typeof d.uid === 'string' && d.uid !== '',
    legacyRows,
    timeRangeKept: d.time?.from === 'now-1h' && (d.time?.to ?? 'now') === 'now',
  };
}
