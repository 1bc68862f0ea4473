import { toHexColor } from './colors.js';
import { colorSchemeNote, fieldFormat, formatOf, thresholdsOf } from './field-config.js';
import { legacyLegendOf, legendOf } from './legend.js';
import { querySettingsOf } from './overrides.js';
import type { MappedPanel } from './panel-mapper.js';
import { migrateTargets, type QueryContext } from './queries.js';
import { arr, defined, isObj, nonEmpty, num, obj, str, type Obj } from './read.js';

/** TimeSeriesChart (and the graph panel's legacy settings): lines, bars, stacking, axis, legend, per-query styles. */

const LINE_STYLES: Record<string, string> = { dash: 'dashed', dot: 'dotted', solid: 'solid' };
/** The legend of a time series panel saved without one (no `options.legend`): Grafana's default, a list below the chart. */
const DEFAULT_LEGEND = { showLegend: true, displayMode: 'list', placement: 'bottom' };
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function visualOf(custom: Obj, notes: string[]): Obj | undefined {
  const v: Obj = {};
  if (custom.drawStyle !== undefined) v.display = custom.drawStyle === 'bars' ? 'bar' : 'line';
  if (custom.drawStyle === 'points' || custom.showPoints === 'always') v.showPoints = 'always';
  if (num(custom.lineWidth) !== undefined) v.lineWidth = clamp(num(custom.lineWidth)!, 0.25, 3);
  if (num(custom.fillOpacity) !== undefined) v.areaOpacity = clamp(num(custom.fillOpacity)! / 100, 0, 1);
  if (LINE_STYLES[obj(custom.lineStyle).fill]) v.lineStyle = LINE_STYLES[obj(custom.lineStyle).fill];
  if (typeof custom.spanNulls === 'boolean') v.connectNulls = custom.spanNulls;
  else if (num(custom.spanNulls) !== undefined) v.connectNulls = true;
  const stacking = obj(custom.stacking).mode;
  if (stacking === 'normal' || stacking === 'percent') v.stack = 'all';
  if (stacking === 'percent') notes.push('100% stacking is shown as plain stacking');
  if (custom.lineInterpolation === 'stepBefore' || custom.lineInterpolation === 'stepAfter')
    notes.push('stepped lines are drawn as straight lines');
  return nonEmpty(v) ? v : undefined;
}

/** Perses accepts log bases 2 and 10. */
function logBase(value: unknown, notes: string[]): number | undefined {
  const n = num(value);
  if (n === undefined || n === 1) return undefined;
  if (n === 2 || n === 10) return n;
  notes.push(`logarithmic axis base ${n} is not supported: the axis is linear`);
  return undefined;
}

function yAxis(format: Obj | undefined, min: unknown, max: unknown, rest: Obj, notes: string[]): Obj | undefined {
  let lo = num(min);
  let hi = num(max);
  if (lo !== undefined && hi !== undefined && hi < lo) {
    notes.push(`axis min ${lo} is above max ${hi}: both dropped`);
    lo = hi = undefined;
  }
  const out = defined({ format, min: lo, max: hi, ...rest });
  return nonEmpty(out) ? out : undefined;
}

/** Grafana 7+ `timeseries` panel -> TimeSeriesChart. */
export function timeSeriesPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const custom = obj(defaults.custom);
  const scale = obj(custom.scaleDistribution);
  const axis = yAxis(
    fieldFormat(defaults, notes),
    defaults.min,
    defaults.max,
    {
      label: str(custom.axisLabel),
      logBase: logBase(defaults.logBase ?? (scale.type === 'log' ? scale.log : undefined), notes),
      show: custom.axisPlacement === 'hidden' ? false : undefined,
    },
    notes,
  );
  const thresholdStyle = obj(custom.thresholdsStyle).mode;
  colorSchemeNote(defaults, notes, 'each series takes its colour from the palette');
  const settings = querySettingsOf(panel, q.refs, notes);
  const spec = defined({
    legend: legendOf(obj(panel.options).legend ?? DEFAULT_LEGEND, notes),
    yAxis: axis,
    visual: visualOf(custom, notes),
    thresholds: thresholdStyle && thresholdStyle !== 'off' ? thresholdsOf(defaults.thresholds) : undefined,
    querySettings: settings.length > 0 ? settings : undefined,
  });
  return { plugin: { kind: 'TimeSeriesChart', spec }, queries: q.queries, notes };
}

const LEGACY_THRESHOLD_COLORS: Record<string, string> = { critical: '#f2495c', warning: '#ff9830', ok: '#73bf69' };

/**
 * The two thresholds of graph panels before schema 13 (`grid.threshold1`, `threshold2` and their
 * colours) in the later list form, as Grafana's upgrade makes them: "custom" colours, and "below"
 * thresholds when the first is above the second.
 */
function gridThresholds(grid: unknown): Obj[] {
  const g = obj(grid);
  const list = [1, 2]
    .filter((i) => num(g[`threshold${i}`]) !== undefined)
    .map((i) => ({
      value: num(g[`threshold${i}`])!,
      colorMode: 'custom',
      [g.thresholdLine === true ? 'lineColor' : 'fillColor']: g[`threshold${i}Color`],
    }));
  const op = list.length === 2 && list[0].value > list[1].value ? 'lt' : 'gt';
  return list.map((t) => ({ ...t, op }));
}

/** Legacy graph thresholds (`[{value, op, colorMode, lineColor}]`, and the older `grid` ones) as Perses steps. */
function legacyThresholds(panel: Obj, notes: string[]): Obj | undefined {
  const list = [...arr(panel.thresholds), ...gridThresholds(panel.grid)];
  const steps = list
    .filter((t) => isObj(t) && num(t.value) !== undefined)
    .map((t) =>
      defined({ value: num(t.value)!, color: LEGACY_THRESHOLD_COLORS[t.colorMode] ?? toHexColor(t.lineColor ?? t.fillColor ?? t.color) }),
    )
    .sort((a, b) => a.value - b.value);
  if (list.some((t) => obj(t).op === 'lt')) notes.push('"below" thresholds are drawn as "above" thresholds');
  return steps.length > 0 ? { steps } : undefined;
}

/** Legacy `graph` panel (Grafana < 7) -> TimeSeriesChart, from its yaxes, legend, lines/bars/fill/stack and series overrides. */
export function graphPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const [left, right] = arr(panel.yaxes).map(obj);
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const y = left ?? {};
  const format = formatOf(y.format ?? defaults.unit, panel.decimals ?? y.decimals ?? defaults.decimals, notes);
  const axis = yAxis(
    format,
    y.min,
    y.max,
    { label: str(y.label), logBase: logBase(y.logBase, notes), show: y.show === false ? false : undefined },
    notes,
  );
  if (right?.show === true && arr(panel.seriesOverrides).some((o) => obj(o).yaxis === 2))
    notes.push('series on the right y-axis share the left axis');
  const visual: Obj = {};
  if (panel.bars === true && panel.lines !== true) visual.display = 'bar';
  else if (panel.lines !== undefined || panel.bars !== undefined) visual.display = 'line';
  if (num(panel.linewidth) !== undefined) visual.lineWidth = clamp(num(panel.linewidth)!, 0.25, 3);
  if (num(panel.fill) !== undefined) visual.areaOpacity = clamp(num(panel.fill)! / 10, 0, 1);
  if (panel.points === true) visual.showPoints = 'always';
  if (panel.stack === true) visual.stack = 'all';
  // Grafana stacks by percentage only when it stacks at all (stackpercent: stack ? percentage : false)
  if (panel.stack === true && panel.percentage === true) notes.push('percentage stacking is shown as plain stacking');
  if (panel.steppedLine === true) notes.push('stepped lines are drawn as straight lines');
  if (panel.nullPointMode === 'connected') visual.connectNulls = true;
  const settings = querySettingsOf(panel, q.refs, notes);
  const spec = defined({
    legend: legacyLegendOf(panel.legend),
    yAxis: axis,
    visual: nonEmpty(visual) ? visual : undefined,
    thresholds: legacyThresholds(panel, notes),
    querySettings: settings.length > 0 ? settings : undefined,
  });
  return { plugin: { kind: 'TimeSeriesChart', spec }, queries: q.queries, notes };
}
