import { arr, defined, isObj, num, obj, str, type Obj } from './read.js';

/**
 * The settings of Grafana 6 gauge, bar gauge and stat panels in their Grafana 7 form, as
 * Grafana's own upgrade leaves them, so that the panel mappers read one shape:
 *
 * - `options-gauge` (6.0, schema < 18): the options, with unit, stat, decimals, prefix and suffix
 *   as `valueOptions`;
 * - `options.valueOptions` (6.0-6.1): unit, decimals and the reducer (`stat`), with
 *   `minValue`/`maxValue`, `thresholds` and `valueMappings` next to it;
 * - `options.fieldOptions` (6.2-6.7): `calcs`, `values`, `limit`, `defaults` (unit, min, max,
 *   decimals, title, thresholds, mappings, links) and `overrides`; thresholds and mappings sat
 *   next to `defaults` before 6.3.
 *
 * The result has `fieldConfig.defaults` (thresholds as `{mode, steps}`, the base step first) and
 * `options.reduceOptions`. A panel already in the Grafana 7 form (`reduceOptions`) is returned as is.
 */
export function upgradeFieldOptions(panel: Obj, notes: string[]): Obj {
  const options = isObj(panel['options-gauge']) ? fromGaugeOptions(panel['options-gauge']) : obj(panel.options);
  if (isObj(options.reduceOptions) || (!isObj(options.valueOptions) && !isObj(options.fieldOptions))) return panel;
  const fieldOptions = isObj(options.fieldOptions) ? options.fieldOptions : fromValueOptions(options, notes);
  const defaults: Obj = { ...obj(fieldOptions.defaults) };
  const steps = oldSteps(defaults.thresholds ?? fieldOptions.thresholds ?? options.thresholds);
  defaults.thresholds = steps ? { mode: 'absolute', steps } : undefined;
  defaults.mappings = defaults.mappings ?? fieldOptions.mappings ?? options.valueMappings;
  if (typeof defaults.color === 'string') defaults.color = { mode: 'fixed', fixedColor: defaults.color };
  if (defaults.title !== undefined && defaults.displayName === undefined) defaults.displayName = defaults.title;
  // before Grafana 8 a percent unit implied the range 0-100 (0-1 for percentunit)
  const range = defaults.unit === 'percent' ? 100 : defaults.unit === 'percentunit' ? 1 : undefined;
  if (range !== undefined && num(defaults.min) === undefined) defaults.min = 0;
  if (range !== undefined && num(defaults.max) === undefined) defaults.max = range;
  const fieldConfig = obj(panel.fieldConfig);
  const { fieldOptions: _f, valueOptions: _v, valueMappings: _m, thresholds: _t, minValue: _min, maxValue: _max, ...rest } = options;
  const calcs = arr(fieldOptions.calcs);
  return {
    ...panel,
    'options-gauge': undefined,
    options: { ...rest, reduceOptions: { values: fieldOptions.values === true, limit: fieldOptions.limit, calcs } },
    fieldConfig: {
      defaults: { ...obj(fieldConfig.defaults), ...defined(defaults) },
      overrides: [...arr(fieldConfig.overrides), ...arr(fieldOptions.overrides)],
    },
  };
}

/** Grafana 6.0's `options-gauge` as the later `options`: unit, stat, decimals, prefix and suffix go to `valueOptions` (`options` was a bug's leftover). */
function fromGaugeOptions(gauge: Obj): Obj {
  const { unit, stat, decimals, prefix, suffix, options: _bug, ...rest } = gauge;
  return { ...rest, valueOptions: { unit, stat, decimals, prefix, suffix } };
}

/** Grafana 6.0-6.1 `valueOptions` (with `minValue`, `maxValue` beside it) as `fieldOptions`. */
function fromValueOptions(options: Obj, notes: string[]): Obj {
  const value = obj(options.valueOptions);
  for (const key of ['prefix', 'suffix']) if (str(value[key])) notes.push(`${key} "${value[key]}" is not shown`);
  return {
    calcs: str(value.stat) ? [value.stat] : [],
    defaults: { unit: value.unit, decimals: value.decimals, min: options.minValue, max: options.maxValue },
  };
}

/** Grafana 6 threshold lists `[{value, color}]` (in any order, the lowest being the base) as steps, the base first with no value. */
function oldSteps(thresholds: unknown): Obj[] | undefined {
  if (isObj(thresholds)) return arr(thresholds.steps).length > 0 ? arr(thresholds.steps) : undefined;
  const list = arr(thresholds)
    .filter(isObj)
    .map((t) => ({ value: num(t.value) ?? null, color: t.color }));
  if (list.length === 0) return undefined;
  list.sort((a, b) => (a.value ?? -Infinity) - (b.value ?? -Infinity));
  list[0].value = null;
  return list;
}
