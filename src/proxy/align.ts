import { parseDuration } from '../lib/duration.js';

/**
 * Which times of a query alignment moves (a datasource kind's `queries` in
 * schemas/plugins/catalog.json): `range` start down and end up to a multiple of its step (the step
 * written in seconds), `instant` its time up to a multiple of the resolution, `bounds` the start
 * of a lookup without a step down and its end up to a multiple of the resolution.
 */
export type AlignKind = 'range' | 'instant' | 'bounds';

/** Unix seconds with an optional fraction, as Prometheus writes and reads them. */
const SECONDS_RE = /^-?\d+(?:\.\d+)?$/;
/** RFC 3339 with a time zone (Prometheus' other time form). */
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** A time parameter (Unix seconds or RFC 3339) in milliseconds; undefined for any other form. */
export function parseTimeParam(value: string): number | undefined {
  if (SECONDS_RE.test(value)) return safe(Math.round(Number(value) * 1000));
  if (RFC3339_RE.test(value)) return safe(Date.parse(value));
  return undefined;
}

/** A step parameter (seconds with an optional fraction, or a duration such as "1m30s") in milliseconds; undefined otherwise. */
export function parseStepParam(value: string): number | undefined {
  if (SECONDS_RE.test(value)) return safe(Math.round(Number(value) * 1000));
  return parseDuration(value);
}

const safe = (ms: number) => (Number.isSafeInteger(ms) ? ms : undefined);

/** Milliseconds as Unix seconds: "1700000000", "1700000000.5". */
export function formatSeconds(ms: number): string {
  if (ms % 1000 === 0) return String(ms / 1000);
  return (ms / 1000).toFixed(3).replace(/0+$/, '');
}

const down = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
const up = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;

/**
 * Aligns the times of `params` in place (see AlignKind), writing each it understands as Unix
 * seconds: two viewers whose times differ by less than a step (or the resolution) then send the
 * same parameters. A time it cannot read, or a step of 0 or less, is left as it came (the
 * datasource answers its own error).
 */
export function alignParams(params: URLSearchParams, kind: AlignKind, resolutionMs: number): void {
  if (kind === 'range') {
    const [start, end, step] = [one(params, 'start', parseTimeParam), one(params, 'end', parseTimeParam), one(params, 'step', parseStepParam)];
    if (start === undefined || end === undefined || step === undefined || step <= 0) return;
    params.set('start', formatSeconds(down(start, step)));
    params.set('end', formatSeconds(up(end, step)));
    params.set('step', formatSeconds(step));
    return;
  }
  if (resolutionMs <= 0) return;
  if (kind === 'instant') {
    const time = one(params, 'time', parseTimeParam);
    if (time !== undefined) params.set('time', formatSeconds(up(time, resolutionMs)));
    return;
  }
  const start = one(params, 'start', parseTimeParam);
  const end = one(params, 'end', parseTimeParam);
  if (start !== undefined) params.set('start', formatSeconds(down(start, resolutionMs)));
  if (end !== undefined) params.set('end', formatSeconds(up(end, resolutionMs)));
}

/** The value of a parameter given exactly once, read by `parse`; undefined when absent, repeated or unreadable. */
function one(params: URLSearchParams, name: string, parse: (v: string) => number | undefined): number | undefined {
  const all = params.getAll(name);
  return all.length === 1 ? parse(all[0]) : undefined;
}

/**
 * Query or form parameters in one order (by name; the values of one name keep their order, which
 * may matter to the datasource), encoded as a form: `b=2&a=1` and `a=1&b=2` become the same text.
 */
export function sortedParams(params: URLSearchParams): string {
  params.sort();
  return params.toString();
}
