import { parseDuration } from '../lib/duration.js';

/**
 * Which times of a query alignment moves (a datasource kind's `queries` in
 * schemas/plugins/catalog.json): `range` its start and end by its step (see `alignedWindow`; the
 * step written in seconds), `instant` its time up to a multiple of the resolution, `bounds` the
 * start and end of a lookup without a step by the resolution, as `range` does.
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

/**
 * The aligned start and end of a window of times: the end up to the next multiple of `unit` after
 * it (an end on a multiple moves up a whole unit too), the start that many whole units before it
 * as cover the window. Every end within the same unit, with the same length of window, gives the
 * same pair (rounding the end up to the nearest multiple would give one pair to ends on a multiple
 * and another to the rest); the window only grows, by less than a unit at its end and, when its
 * length is a multiple of the unit (a dashboard's hour in steps of 15 s), at its start.
 */
export function alignedWindow(startMs: number, endMs: number, unit: number): { start: number; end: number } {
  const units = Math.floor(endMs / unit);
  const spans = Math.ceil((endMs - startMs) / unit);
  return { start: (units - spans) * unit, end: (units + 1) * unit };
}

/**
 * Aligns the times of `params` in place (see AlignKind), writing each it understands as Unix
 * seconds: two viewers whose times differ by less than a step (or the resolution) then send the
 * same parameters. A time it cannot read, an end before the start, or a step of 0 or less is left
 * as it came (the datasource answers its own error).
 */
export function alignParams(params: URLSearchParams, kind: AlignKind, resolutionMs: number): void {
  if (kind === 'range') {
    const step = one(params, 'step', parseStepParam);
    if (step === undefined || step <= 0 || !alignWindow(params, step)) return;
    params.set('step', formatSeconds(step));
    return;
  }
  if (resolutionMs <= 0) return;
  if (kind === 'instant') {
    const time = one(params, 'time', parseTimeParam);
    if (time !== undefined) params.set('time', formatSeconds(Math.ceil(time / resolutionMs) * resolutionMs));
    return;
  }
  if (alignWindow(params, resolutionMs)) return;
  // a lookup bounded on one side only
  const start = one(params, 'start', parseTimeParam);
  const end = one(params, 'end', parseTimeParam);
  if (start !== undefined && end === undefined) params.set('start', formatSeconds(Math.floor(start / resolutionMs) * resolutionMs));
  if (end !== undefined && start === undefined) params.set('end', formatSeconds((Math.floor(end / resolutionMs) + 1) * resolutionMs));
}

/** Aligns `start` and `end` by `unit` (alignedWindow) when both are readable and in order; says whether it did. */
function alignWindow(params: URLSearchParams, unit: number): boolean {
  const start = one(params, 'start', parseTimeParam);
  const end = one(params, 'end', parseTimeParam);
  if (start === undefined || end === undefined || end < start) return false;
  const w = alignedWindow(start, end, unit);
  params.set('start', formatSeconds(w.start));
  params.set('end', formatSeconds(w.end));
  return true;
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
