import { toHexColor } from './colors.js';
import { calculationOf, colorSchemeNote, fieldFormat, formatOf, mappingsOf, reduceCalculation, thresholdsOf } from './field-config.js';
import { legendOf } from './legend.js';
import type { MappedPanel } from './panel-mapper.js';
import { migrateTargets, type QueryContext } from './queries.js';
import { arr, defined, isObj, num, obj, str, type Obj } from './read.js';

/** BarChart, PieChart, HistogramChart and HeatMapChart: the panels that summarise or distribute values. */

function colorNotes(defaults: Obj, notes: string[], plugin: string): void {
  const steps = arr(obj(defaults.thresholds).steps).length;
  if (obj(defaults.color).mode === 'thresholds' && steps > 1) notes.push(`${plugin} does not colour by thresholds`);
  if (arr(defaults.mappings).length > 0)
    notes.push(`${plugin} does not show value mappings (${mappingsOf(defaults.mappings, []).length} dropped)`);
  colorSchemeNote(defaults, notes, `${plugin} colours from its palette`);
}

/** An override property in a few words, for notes: `name "Errors"`, `colour red`, or its id. */
function describeProperty(p: Obj): string {
  if (p.id === 'displayName' && typeof p.value === 'string') return `name ${JSON.stringify(p.value)}`;
  if (p.id === 'color') return `colour ${String(obj(p.value).fixedColor ?? obj(p.value).mode ?? '')}`.trim();
  return String(p.id);
}

/** What BarChart cannot carry of a panel's colours and overrides (it draws every bar from one palette, styled alike). */
function barStyleNotes(fieldConfig: Obj, notes: string[]): void {
  const color = obj(obj(fieldConfig.defaults).color);
  if ((color.mode === 'fixed' || color.mode === 'shades') && str(color.fixedColor))
    notes.push(`the fixed colour "${color.fixedColor}" is not carried: BarChart colours bars from its palette`);
  const overrides = arr(fieldConfig.overrides)
    .filter(isObj)
    .map((o) => {
      const m = obj(o.matcher);
      const props = arr(o.properties).filter(isObj).map(describeProperty);
      return `${String(m.id)} ${JSON.stringify(m.options)}${props.length > 0 ? ` (${props.join(', ')})` : ''}`;
    });
  if (overrides.length > 0)
    notes.push(`${overrides.length} per-series override(s) are not carried (BarChart styles all bars alike): ${overrides.join('; ')}`);
}

/** `bargauge` -> BarChart (one bar per series, reduced by the panel's reducer). */
export function barGaugePanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const options = obj(panel.options);
  colorNotes(defaults, notes, 'BarChart');
  barStyleNotes(obj(panel.fieldConfig), notes);
  if (num(defaults.max) !== undefined || num(defaults.min) !== undefined)
    notes.push('bar min/max are not supported: bars scale to the largest value');
  const spec = defined({
    calculation: reduceCalculation(options, notes),
    format: fieldFormat(defaults, notes),
    orientation: options.orientation === 'vertical' ? 'vertical' : undefined,
  });
  return { plugin: { kind: 'BarChart', spec }, queries: q.queries, notes };
}

/** Grafana 8+ `barchart` -> BarChart: Grafana plots rows against an x field, Perses one bar per series. */
export function barChartPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes, 'each series becomes one bar (its last value); Grafana drew one bar per row of its x field'];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const options = obj(panel.options);
  colorNotes(defaults, notes, 'BarChart');
  barStyleNotes(obj(panel.fieldConfig), notes);
  if (options.stacking === 'normal' || options.stacking === 'percent') notes.push('stacked bars are drawn side by side');
  const spec = defined({
    calculation: 'last-number',
    format: fieldFormat(defaults, notes),
    orientation: options.orientation === 'horizontal' ? 'horizontal' : 'vertical',
  });
  return { plugin: { kind: 'BarChart', spec }, queries: q.queries, notes };
}

/** Legacy `graph` in x-axis "series" mode (one bar per series) -> BarChart. */
export function graphSeriesPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const left = obj(arr(panel.yaxes)[0]);
  const spec = defined({
    calculation: calculationOf(arr(obj(panel.xaxis).values)[0] ?? 'avg', notes),
    format: formatOf(left.format, panel.decimals ?? left.decimals, notes),
    orientation: 'vertical',
  });
  return { plugin: { kind: 'BarChart', spec }, queries: q.queries, notes };
}

/** `histogram` -> HistogramChart. */
export function histogramPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes, 'HistogramChart draws Prometheus native histograms; Grafana bucketed the values of each series itself'];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const spec = defined({
    format: fieldFormat(defaults, notes),
    min: num(defaults.min),
    max: num(defaults.max),
    thresholds: thresholdsOf(defaults.thresholds),
  });
  return { plugin: { kind: 'HistogramChart', spec }, queries: q.queries, notes };
}

/** `heatmap` (both the Grafana 9+ and the legacy one) -> HeatMapChart. */
export function heatmapPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const options = obj(panel.options);
  const axis = obj(options.yAxis ?? panel.yAxis);
  const classic = arr(panel.targets).some(
    (t) => /_bucket\b|\{\{\s*le\s*\}\}/.test(`${obj(t).expr ?? ''} ${obj(t).legendFormat ?? ''}`) || obj(t).format === 'heatmap',
  );
  if (classic) notes.push('HeatMapChart draws Prometheus native histograms: classic "le" bucket series show no cells');
  const legend = obj(options.legend ?? panel.legend);
  const spec = defined({
    yAxisFormat: formatOf(axis.unit ?? axis.format, axis.decimals, notes),
    showVisualMap: typeof legend.show === 'boolean' ? legend.show : undefined,
  });
  return { plugin: { kind: 'HeatMapChart', spec }, queries: q.queries, notes };
}

const PIE_LEGEND_VALUES: Record<string, string> = { value: 'abs', percent: 'relative' };

/** `piechart` -> PieChart. */
export function pieChartPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const options = obj(panel.options);
  const legend = legendOf(options.legend, notes, false);
  const values = arr(obj(options.legend).values)
    .map((v) => PIE_LEGEND_VALUES[v])
    .filter(Boolean);
  if (legend && values.length > 0) legend.values = values;
  if (options.pieType === 'donut') notes.push('donut charts are drawn as pies');
  colorSchemeNote(defaults, notes, 'PieChart colours from its palette');
  const color = obj(defaults.color);
  const fixed = (color.mode === 'fixed' || color.mode === 'shades') && str(color.fixedColor) ? toHexColor(color.fixedColor) : undefined;
  const spec = defined({
    calculation: reduceCalculation(options, notes),
    format: fieldFormat(defaults, notes),
    legend,
    showLabels: arr(options.displayLabels).length > 0 ? true : undefined,
    colorPalette: fixed ? [fixed] : undefined,
    radius: 50,
  });
  return { plugin: { kind: 'PieChart', spec }, queries: q.queries, notes };
}
