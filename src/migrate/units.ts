/**
 * Grafana unit identifiers (fieldConfig `unit`, graph `yaxes[].format`, singlestat `format`)
 * and the Perses format unit that displays the same values the same way. Only the units the web
 * UI's Perses packages (0.52) know are used: an unknown unit makes their number formatting throw.
 */
const UNITS: Record<string, string> = {
  // plain numbers
  none: 'decimal',
  short: 'decimal',
  locale: 'decimal',
  sci: 'decimal',
  // percentages
  percent: 'percent',
  percentunit: 'percent-decimal',
  // time
  ms: 'milliseconds',
  s: 'seconds',
  m: 'minutes',
  h: 'hours',
  d: 'days',
  w: 'weeks',
  M: 'months',
  y: 'years',
  // data (the Perses packages show bytes with 1000-based prefixes)
  bytes: 'bytes',
  decbytes: 'bytes',
  // data rates
  Bps: 'bytes/sec',
  binBps: 'bytes/sec',
  bps: 'bits/sec',
  binbps: 'bits/sec',
  // throughput
  cps: 'counts/sec',
  eps: 'events/sec',
  mps: 'messages/sec',
  ops: 'ops/sec',
  iops: 'ops/sec',
  pps: 'packets/sec',
  rps: 'reads/sec',
  recps: 'records/sec',
  reqps: 'requests/sec',
  rowsps: 'rows/sec',
  wps: 'writes/sec',
};

/** Grafana's duration formats (hh:mm:ss) shown as a plain duration of the same base unit. */
const APPROXIMATE: Record<string, string> = {
  dtdurations: 'seconds',
  dtdurationms: 'milliseconds',
  clocks: 'seconds',
  clockms: 'milliseconds',
};

const CURRENCIES = ['aud', 'cad', 'chf', 'cny', 'eur', 'gbp', 'hkd', 'inr', 'jpy', 'krw', 'nok', 'nzd', 'sek', 'sgd', 'usd'];

/** The Perses unit of a Grafana unit, whether it is exact, or undefined when Perses has none. */
export function mapUnit(grafana: string): { unit: string; exact: boolean } | undefined {
  if (Object.hasOwn(UNITS, grafana)) return { unit: UNITS[grafana], exact: true };
  if (Object.hasOwn(APPROXIMATE, grafana)) return { unit: APPROXIMATE[grafana], exact: false };
  const currency = /^currency([A-Z]{3})$/.exec(grafana)?.[1]?.toLowerCase();
  if (currency && CURRENCIES.includes(currency)) return { unit: currency, exact: true };
  return undefined;
}

/** Every Grafana unit with a Perses counterpart (for tests that check the UI can format them all). */
export const MAPPED_GRAFANA_UNITS: readonly string[] = [
  ...Object.keys(UNITS),
  ...Object.keys(APPROXIMATE),
  ...CURRENCIES.map((c) => `currency${c.toUpperCase()}`),
];
