/** Perses durations: `1y2w3d4h5m6s7ms`, units in that order, not empty. */
const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNIT_MS = [365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1];

/** Milliseconds of a duration, or undefined when it is not a valid duration or not a safe number. */
export function parseDuration(text: string): number | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const m = DURATION_RE.exec(text);
  if (!m) return undefined;
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) {
    if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * UNIT_MS[i];
  }
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** Milliseconds of a duration already checked (a resolved configuration's); throws on one that is not. */
export function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error(`"${text}" is not a duration`);
  return ms;
}
