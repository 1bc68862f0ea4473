import type { MappedPanel } from './panel-mapper.js';
import { migrateTargets, targetType, type QueryContext } from './queries.js';
import { arr, isObj, obj, type Obj } from './read.js';

/** TracingGanttChart and TraceTable (Tempo), FlameChart (Pyroscope): the panels of trace and profile queries. */

/** Whether a Grafana table lists trace search results: every target it shows queries Tempo. */
export function isTraceSearch(panel: Obj, ctx: QueryContext): boolean {
  const shown = arr(panel.targets).filter((t) => isObj(t) && t.hide !== true);
  return shown.length > 0 && shown.every((t) => targetType(t, panel, ctx) === 'tempo');
}

/** `traces` (one trace, found by its ID or a TraceQL query) -> TracingGanttChart. */
export function tracesPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx, 'TraceQuery');
  return { plugin: { kind: 'TracingGanttChart', spec: {} }, queries: q.queries, notes: q.notes };
}

/** A `table` of Tempo search results -> TraceTable, which shows its own columns for each trace. */
export function traceTablePanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx, 'TraceQuery');
  const notes = [...q.notes];
  const overrides = arr(obj(panel.fieldConfig).overrides).length;
  if (overrides > 0) notes.push(`${overrides} column override(s) are not carried: TraceTable shows its own columns`);
  return { plugin: { kind: 'TraceTable', spec: {} }, queries: q.queries, notes };
}

/** `flamegraph` -> FlameChart showing the flame graph and its table, as Grafana's panel does. */
export function flameGraphPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx, 'ProfileQuery');
  const spec = { palette: 'package-name', showSettings: true, showSeries: false, showTable: true, showFlameGraph: true };
  return { plugin: { kind: 'FlameChart', spec }, queries: q.queries, notes: q.notes };
}
