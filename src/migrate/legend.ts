import { legendValues } from './field-config.js';
import { isObj, type Obj } from './read.js';

/** Perses legend from a Grafana 7+ `options.legend` (`showLegend`, `displayMode`, `placement`, `calcs`). */
export function legendOf(legend: unknown, notes: string[], withValues = true): Obj | undefined {
  if (!isObj(legend) || legend.showLegend === false || legend.displayMode === 'hidden') return undefined;
  const out: Obj = { position: legend.placement === 'right' ? 'right' : 'bottom', mode: legend.displayMode === 'table' ? 'table' : 'list' };
  if (withValues) {
    const values = legendValues(legend.calcs, notes);
    if (values.length > 0) out.values = values;
  }
  return out;
}

/** Legacy graph legend fields (`min`, `max`, `avg`, `current`, `total`) and the calculation each one is. */
const LEGACY_VALUES: [string, string][] = [
  ['min', 'min'],
  ['max', 'max'],
  ['avg', 'mean'],
  ['current', 'last-number'],
  ['total', 'sum'],
];

/** Perses legend from the legacy graph `legend` (`show`, `alignAsTable`, `rightSide`, `values` and the value flags). */
export function legacyLegendOf(legend: unknown): Obj | undefined {
  if (!isObj(legend) || legend.show === false) return undefined;
  const out: Obj = { position: legend.rightSide === true ? 'right' : 'bottom', mode: legend.alignAsTable === true ? 'table' : 'list' };
  if (legend.values === true) {
    const values = LEGACY_VALUES.filter(([flag]) => legend[flag] === true).map(([, calc]) => calc);
    if (values.length > 0) out.values = values;
  }
  return out;
}
