import { toHexColor } from './colors.js';
import { arr, defined, isObj, nonEmpty, num, obj, str, type Obj } from './read.js';
import { mapUnit } from './units.js';

/**
 * The parts of Grafana's field configuration that several panel types share, as Perses
 * building blocks: number format, thresholds, value mappings and reducers ("calculations").
 */

/** Grafana reducers (fieldConfig calcs, legend calcs, legacy singlestat valueName) -> Perses calculations. */
const CALCS: Record<string, string> = {
  last: 'last',
  lastNotNull: 'last-number',
  current: 'last-number',
  first: 'first',
  firstNotNull: 'first-number',
  mean: 'mean',
  avg: 'mean',
  sum: 'sum',
  total: 'sum',
  min: 'min',
  max: 'max',
};

/** Perses format `{unit?, decimalPlaces?}` from a Grafana unit and number of decimals (notes say what could not be kept). */
export function formatOf(unit: unknown, decimals: unknown, notes: string[]): Obj | undefined {
  const out: Obj = {};
  const u = str(unit);
  if (u) {
    const mapped = mapUnit(u);
    if (mapped) out.unit = mapped.unit;
    if (!mapped) notes.push(`unit "${u}" has no Perses equivalent: values are shown as plain numbers`);
    else if (!mapped.exact) notes.push(`unit "${u}" is shown as ${mapped.unit}`);
  }
  const d = num(decimals);
  if (d !== undefined && d >= 0) {
    out.decimalPlaces = Math.round(d);
    if (!u) out.unit = 'decimal';
  }
  return nonEmpty(out) ? out : undefined;
}

/** The format of a fieldConfig.defaults (or an override's properties folded into one object). */
export function fieldFormat(defaults: Obj, notes: string[]): Obj | undefined {
  return formatOf(defaults.unit, defaults.decimals ?? defaults.decimal, notes);
}

/** Perses thresholds from Grafana's `{mode, steps: [{value, color}]}`: the base step (value null) starts at 0. */
export function thresholdsOf(thresholds: unknown): Obj | undefined {
  const t = obj(thresholds);
  const steps: Obj[] = [];
  arr(t.steps).forEach((s, i) => {
    if (!isObj(s)) return;
    const value = num(s.value) ?? (i === 0 ? 0 : undefined);
    if (value === undefined) return;
    steps.push(defined({ value, color: typeof s.color === 'string' ? (toHexColor(s.color) ?? s.color) : undefined }));
  });
  if (steps.length === 0) return undefined;
  return defined({ mode: t.mode === 'percentage' ? 'percent' : undefined, steps });
}

/** Legacy thresholds ("50,80" and three colours: singlestat, old tables) as Perses thresholds. */
export function legacyThresholds(values: unknown, colors: unknown): Obj | undefined {
  const limits = (typeof values === 'string' ? values.split(',') : arr(values))
    .map((v) => num(typeof v === 'string' ? v.trim() : v))
    .filter((v): v is number => v !== undefined);
  const palette = arr(colors).map((c) => toHexColor(c) ?? c);
  if (limits.length === 0) return undefined;
  const steps = [{ value: 0, color: palette[0] }, ...limits.map((value, i) => ({ value, color: palette[i + 1] }))].map((s) => defined(s));
  return { steps };
}

/** A mapping result `{value, color?}`: Perses asks for a text (possibly empty) and a #hex colour. */
function result(r: unknown): Obj {
  const o = obj(r);
  return defined({
    value: typeof o.text === 'string' ? o.text : o.text === undefined || o.text === null ? '' : String(o.text),
    color: toHexColor(o.color),
  });
}

const SPECIAL: Record<string, string> = { null: 'null', nan: 'NaN', 'null+nan': 'null', true: 'true', false: 'false', empty: 'empty' };

/** A Value mapping, or a Misc one for the words Grafana treats as special ("null"). */
function valueMapping(value: string, res: Obj): Obj | undefined {
  if (value === '') return undefined;
  if (value === 'null') return { kind: 'Misc', spec: { value: 'null', result: res } };
  return { kind: 'Value', spec: { value, result: res } };
}

/** Perses value mappings from Grafana's (7.1+ `{type, options}` and the older `{type: 1|2, value|from/to, text}`). */
export function mappingsOf(mappings: unknown, notes: string[]): Obj[] {
  const out: (Obj | undefined)[] = [];
  for (const m of arr(mappings)) {
    if (!isObj(m)) continue;
    const options = obj(m.options);
    if (m.type === 'value' && isObj(m.options)) {
      for (const [value, r] of Object.entries(options)) out.push(valueMapping(value, result(r)));
    } else if (m.type === 'range' && isObj(m.options)) {
      out.push({ kind: 'Range', spec: defined({ from: num(options.from), to: num(options.to), result: result(options.result) }) });
    } else if (m.type === 'regex') {
      if (str(options.pattern)) out.push({ kind: 'Regex', spec: { pattern: options.pattern, result: result(options.result) } });
    } else if (m.type === 'special') {
      const match = typeof options.match === 'string' ? options.match : 'null';
      if (match === 'null+nan') notes.push('the "null and NaN" value mapping now matches null only');
      out.push(SPECIAL[match] ? { kind: 'Misc', spec: { value: SPECIAL[match], result: result(options.result) } } : undefined);
    } else if (m.type === 1 || m.type === '1') {
      out.push(valueMapping(String(m.value ?? ''), result(m)));
    } else if (m.type === 2 || m.type === '2') {
      out.push({ kind: 'Range', spec: defined({ from: num(m.from), to: num(m.to), result: result(m) }) });
    } else {
      notes.push(`a value mapping of type "${String(m.type)}" was not carried over`);
    }
  }
  return out.filter((m): m is Obj => m !== undefined);
}

/** The Perses calculation of a Grafana reducer; unknown reducers fall back to the last number (with a note). */
export function calculationOf(reducer: unknown, notes: string[], fallback = 'last'): string {
  if (reducer === undefined || reducer === null) return fallback;
  const mapped = typeof reducer === 'string' ? CALCS[reducer] : undefined;
  if (mapped) return mapped;
  notes.push(`reducer "${String(reducer)}" has no Perses equivalent: the last number is shown`);
  return 'last-number';
}

/** The first reducer of `options.reduceOptions.calcs` (Perses shows one value per series); none is Grafana's default, the last non-null value. */
export function reduceCalculation(options: Obj, notes: string[]): string {
  const calcs = arr(obj(options.reduceOptions).calcs);
  if (calcs.length > 1) notes.push(`only the first of the reducers ${calcs.join(', ')} is shown`);
  if (obj(options.reduceOptions).values === true) notes.push('"all values" mode is not supported: each series is reduced to one value');
  return calculationOf(calcs[0], notes, CALCS.lastNotNull);
}

/** Notes a continuous colour scheme (a colour along a gradient by value: `continuous-GrYlRd`...), which no Perses panel draws; `instead`: what the panel does. */
export function colorSchemeNote(defaults: Obj, notes: string[], instead: string): void {
  const mode = str(obj(defaults.color).mode);
  if (mode?.startsWith('continuous-'))
    notes.push(`colour scheme "${mode}" (a colour along a gradient by value) is not supported: ${instead}`);
}

/** Legend values (legend calcs) that Perses can show; the others are listed in the notes. */
export function legendValues(calcs: unknown, notes: string[]): string[] {
  const out: string[] = [];
  for (const c of arr(calcs)) {
    const mapped = typeof c === 'string' ? CALCS[c] : undefined;
    if (mapped && !out.includes(mapped)) out.push(mapped);
    else if (!mapped) notes.push(`legend value "${String(c)}" has no Perses equivalent`);
  }
  return out;
}
