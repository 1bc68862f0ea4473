/**
 * Grafana unit identifiers (fieldConfig `unit`, graph `yaxes[].format`, singlestat `format`)
 * and the Perses format unit that displays the same values the same way.
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
  ns: 'nanoseconds',
  µs: 'microseconds',
  us: 'microseconds',
  ms: 'milliseconds',
  s: 'seconds',
  m: 'minutes',
  h: 'hours',
  d: 'days',
  w: 'weeks',
  M: 'months',
  y: 'years',
  // data (IEC: 1024, SI: 1000)
  bytes: 'bytes',
  decbytes: 'decbytes',
  bits: 'bits',
  decbits: 'decbits',
  // data rates
  binBps: 'bytes/sec',
  Bps: 'decbytes/sec',
  binbps: 'bits/sec',
  bps: 'decbits/sec',
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
  // temperature
  celsius: 'celsius',
  fahrenheit: 'fahrenheit',
  // dates
  dateTimeAsIso: 'datetime-iso',
  dateTimeAsIsoNoDateIfToday: 'datetime-iso',
  dateTimeAsUS: 'datetime-us',
  dateTimeAsUSNoDateIfToday: 'datetime-us',
  dateTimeAsLocal: 'datetime-local',
  dateTimeAsLocalNoDateIfToday: 'datetime-local',
  dateTimeAsSystem: 'datetime-local',
  dateTimeFromNow: 'relative-time',
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

/** Perses date units, which take no decimal places. */
export const DATE_UNITS = new Set(['datetime-iso', 'datetime-us', 'datetime-local', 'date-iso', 'date-us', 'date-local', 'time-local', 'time-iso', 'time-us', 'relative-time', 'unix-timestamp', 'unix-timestamp-ms']);
