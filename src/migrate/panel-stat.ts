import { toHexColor } from './colors.js';
import { calculationOf, fieldFormat, formatOf, legacyThresholds, mappingsOf, reduceCalculation, thresholdsOf } from './field-config.js';
import type { MappedPanel } from './panel-mapper.js';
import { migrateTargets, type QueryContext, type QueryRef } from './queries.js';
import { arr, defined, num, obj, str, type Obj } from './read.js';

/** StatChart and GaugeChart, from `stat`, `gauge` and the legacy `singlestat` (which could be either). */

const COLOR_MODES: Record<string, string> = {
  value: 'value',
  background: 'background_solid',
  background_solid: 'background_solid',
  background_gradient: 'background_solid',
  none: 'none',
};

/** The label shown instead of the value: `reduceOptions.fields: "/^label$/"`, or text mode "name" with a `{{label}}` legend. */
function metricLabelOf(options: Obj, refs: QueryRef[]): string | undefined {
  const fields = obj(options.reduceOptions).fields;
  const fromFields = typeof fields === 'string' ? /^\/\^?(\w+)\$?\/$/.exec(fields)?.[1] : undefined;
  if (fromFields && fromFields !== 'Value') return fromFields;
  if (options.textMode === 'name') return /^\{\{\s*(\w+)\s*\}\}$/.exec(refs[0]?.legend ?? '')?.[1];
  return undefined;
}

/** Value mappings of the defaults and of overrides (Perses applies them to the whole panel). */
function allMappings(fieldConfig: Obj, notes: string[]): Obj[] {
  const out = mappingsOf(obj(fieldConfig.defaults).mappings, notes);
  let others = 0;
  for (const o of arr(fieldConfig.overrides)) {
    for (const p of arr(obj(o).properties)) {
      if (obj(p).id === 'mappings') out.push(...mappingsOf(obj(p).value, notes));
      else others++;
    }
  }
  if (others > 0)
    notes.push(`${others} per-field override setting(s) are not carried (Perses applies one configuration to the whole panel)`);
  return out;
}

/**
 * The thresholds of a stat or gauge: its colour scheme's fixed colour (Grafana colours the value
 * with it, whatever the thresholds) as the only colour, else its thresholds. Other schemes
 * (palette, continuous) are noted: Perses colours by thresholds.
 */
function colorThresholds(defaults: Obj, notes: string[]): Obj | undefined {
  const color = obj(defaults.color);
  const mode = str(color.mode);
  if (mode === 'fixed' || mode === 'shades') {
    const fixed = toHexColor(color.fixedColor);
    if (fixed) {
      if (mode === 'shades') notes.push('shades of the fixed colour are drawn in the fixed colour itself');
      return { defaultColor: fixed, steps: [{ value: 0, color: fixed }] };
    }
    if (color.fixedColor !== undefined)
      notes.push(`fixed colour "${String(color.fixedColor)}" is not a colour Perses accepts: the value is coloured by thresholds`);
  } else if (mode && mode !== 'thresholds') {
    notes.push(`colour scheme "${mode}" is not supported: the value is coloured by thresholds`);
  }
  return thresholdsOf(defaults.thresholds);
}

/** `stat` -> StatChart. */
export function statPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const fieldConfig = obj(panel.fieldConfig);
  const defaults = obj(fieldConfig.defaults);
  const options = obj(panel.options);
  const mappings = allMappings(fieldConfig, notes);
  if (options.colorMode === 'background_gradient') notes.push('gradient background is drawn solid');
  if (options.textMode === 'value_and_name')
    notes.push('text mode "value and name" shows the value only: StatChart shows no series name beside it');
  const spec = defined({
    calculation: reduceCalculation(options, notes),
    format: fieldFormat(defaults, notes),
    thresholds: colorThresholds(defaults, notes),
    colorMode: COLOR_MODES[options.colorMode],
    sparkline: options.graphMode === 'area' ? {} : undefined,
    metricLabel: metricLabelOf(options, q.refs),
    valueFontSize: num(obj(options.text).valueSize),
    mappings: mappings.length > 0 ? mappings : undefined,
  });
  return { plugin: { kind: 'StatChart', spec }, queries: q.queries, notes };
}

/** `gauge` -> GaugeChart. */
export function gaugePanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  if ((num(defaults.min) ?? 0) !== 0) notes.push(`gauge minimum ${defaults.min} is not supported: the gauge starts at 0`);
  if (arr(defaults.mappings).length > 0) notes.push('value mappings are not shown by GaugeChart');
  const spec = defined({
    calculation: reduceCalculation(obj(panel.options), notes),
    format: fieldFormat(defaults, notes),
    thresholds: colorThresholds(defaults, notes),
    max: num(defaults.max),
  });
  return { plugin: { kind: 'GaugeChart', spec }, queries: q.queries, notes };
}

/** Legacy singlestat value/range maps (only the kind `mappingType` selects), or its 7.x `mappings`, else those of its `fieldConfig.defaults`. */
function singlestatMappings(panel: Obj, defaults: Obj, notes: string[]): Obj[] {
  if (arr(panel.mappings).length > 0) return mappingsOf(panel.mappings, notes);
  if (arr(panel.valueMaps).length === 0 && arr(panel.rangeMaps).length === 0) return mappingsOf(defaults.mappings, notes);
  if (panel.mappingType === 2 || panel.mappingType === '2')
    return mappingsOf(
      arr(panel.rangeMaps).map((m) => ({ ...obj(m), type: 2 })),
      notes,
    );
  return mappingsOf(
    arr(panel.valueMaps).map((m) => ({ ...obj(m), type: 1 })),
    notes,
  );
}

/**
 * Legacy `singlestat` -> StatChart, or GaugeChart when its gauge was shown. Its legacy settings
 * (format, decimals, thresholds, value maps, gauge range) come first; a singlestat saved with a
 * `fieldConfig` (unit, decimals, thresholds, mappings, min/max) has those read where the legacy
 * ones are missing, as Grafana's upgrade to stat and gauge keeps them.
 */
export function singlestatPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const valueName = panel.valueName ?? 'avg';
  const calculation = calculationOf(valueName === 'name' ? 'lastNotNull' : valueName, notes);
  if (valueName === 'name') notes.push('showing the series name instead of a value is not supported: the value is shown');
  const format = formatOf(str(panel.format) ?? defaults.unit, panel.decimals ?? defaults.decimals, notes);
  const thresholds = legacyThresholds(panel.thresholds, panel.colors) ?? colorThresholds(defaults, notes);
  for (const key of ['prefix', 'postfix']) if (str(panel[key])) notes.push(`${key} "${panel[key]}" is not shown`);
  const gauge = obj(panel.gauge);
  const mappings = singlestatMappings(panel, defaults, notes);
  if (gauge.show === true) {
    const min = num(gauge.minValue) ?? num(defaults.min);
    if ((min ?? 0) !== 0) notes.push(`gauge minimum ${min} is not supported: the gauge starts at 0`);
    if (mappings.length > 0) notes.push(`value mappings are not shown by GaugeChart (${mappings.length} dropped)`);
    const spec = defined({ calculation, format, thresholds, max: num(gauge.maxValue) ?? num(defaults.max) });
    return { plugin: { kind: 'GaugeChart', spec }, queries: q.queries, notes };
  }
  const sparkline = obj(panel.sparkline);
  const spec = defined({
    calculation,
    format,
    thresholds,
    colorMode: panel.colorBackground === true ? 'background_solid' : panel.colorValue === true ? 'value' : thresholds ? 'none' : undefined,
    sparkline: sparkline.show === true ? defined({ color: toHexColor(sparkline.lineColor) }) : undefined,
    metricLabel: str(panel.tableColumn) && panel.tableColumn !== 'Value' ? panel.tableColumn : undefined,
    mappings: mappings.length > 0 ? mappings : undefined,
  });
  return { plugin: { kind: 'StatChart', spec }, queries: q.queries, notes };
}
