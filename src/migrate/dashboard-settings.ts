import type { DatasourceResolver } from './datasources.js';
import { arr, defined, isObj, num, obj, str, type Obj } from './read.js';
import type { ReportEntry } from './report.js';

/** Dashboard-wide settings: time range, refresh, time zone, tags, links and annotations. */

const DURATION = /^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
/** Grafana's duration units in milliseconds (months of 30 days, years of 365). */
export const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1e3,
  m: 60e3,
  h: 3600e3,
  d: 86400e3,
  w: 7 * 86400e3,
  M: 30 * 86400e3,
  y: 365 * 86400e3,
};

/** Milliseconds as a Perses duration in its largest exact unit ("90m" stays "90m", 7200000 is "2h"). */
export function msToDuration(ms: number): string {
  for (const [unit, size] of [
    ['w', UNIT_MS.w],
    ['d', UNIT_MS.d],
    ['h', UNIT_MS.h],
    ['m', UNIT_MS.m],
    ['s', UNIT_MS.s],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}

/** A Grafana time ("now-6h", "now-1M/M", "now", an ISO date or epoch ms) as ms before now; undefined when unreadable. */
function msBeforeNow(time: unknown, now: number, notes: string[]): number | undefined {
  if (typeof time === 'string') {
    const rel = /^now(?:-(\d+)([smhdwMy]))?(\/[smhdwMy])?$/.exec(time.trim());
    if (rel) {
      if (rel[3]) notes.push(`the rounding "${rel[3]}" of the time range "${time}" is dropped`);
      if (rel[2] === 'M' || rel[2] === 'y') notes.push(`"${time}" is counted in 30-day months and 365-day years`);
      return rel[1] ? Number(rel[1]) * UNIT_MS[rel[2]] : rel[3] ? UNIT_MS[rel[3].slice(1)] : 0;
    }
  }
  const abs = num(time) ?? (typeof time === 'string' ? Date.parse(time) : NaN);
  return Number.isFinite(abs) ? now - abs : undefined;
}

/** `time: {from, to}` -> Perses `duration` (a range ending now); the notes say what changed. */
export function durationOf(time: unknown, notes: string[], now = Date.now()): string | undefined {
  const t = obj(time);
  if (t.from === undefined) return undefined;
  const from = msBeforeNow(t.from, now, notes);
  const to = t.to === undefined ? 0 : msBeforeNow(t.to, now, notes);
  if (from === undefined || to === undefined || from - to <= 0) {
    notes.push(`the time range ${JSON.stringify(t.from)} to ${JSON.stringify(t.to)} cannot be read: the default of 1h is used`);
    return undefined;
  }
  if (to !== 0) notes.push(`the time range ${t.from} to ${t.to} is shown as the same length ending now`);
  return msToDuration(from - to);
}

/** `refresh: "1m"` -> Perses `refreshInterval` (false, null and "" mean none; another value is noted). */
export function refreshOf(refresh: unknown, notes: string[]): string | undefined {
  if (refresh === undefined || refresh === null || refresh === false || refresh === '') return undefined;
  if (typeof refresh !== 'string') {
    // Grafana's schema 40 upgrade resets such a refresh to none
    notes.push(
      `the refresh setting ${JSON.stringify(refresh)} is not a duration (Grafana reads it as none): the dashboard does not refresh by itself`,
    );
    return undefined;
  }
  if (DURATION.test(refresh)) return refresh;
  notes.push(`the refresh interval "${refresh}" is not a duration: the dashboard does not refresh by itself`);
  return undefined;
}

/**
 * Grafana's `timezone` -> Perses `timezone`: "browser", "default" (the user's or organisation's
 * choice, which is the browser's unless set) and "" are no time zone; "utc" is "UTC"; an IANA name
 * is kept when the runtime knows it (the web UI formats with Intl, which throws on unknown names).
 */
export function timezoneOf(timezone: unknown, notes: string[]): string | undefined {
  const tz = str(timezone);
  if (tz === undefined || tz === 'browser' || tz === 'default') return undefined;
  if (tz.toLowerCase() === 'utc') return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    notes.push(`the time zone "${tz}" is not known: the browser's time zone is used`);
    return undefined;
  }
}

/** Grafana tags as metadata tags: at most 20, 1-50 characters, trimmed, without duplicates. */
export function tagsOf(tags: unknown, notes: string[]): string[] | undefined {
  const out = [
    ...new Set(
      arr(tags)
        .filter((t): t is string => typeof t === 'string')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
  const kept = out.filter((t) => t.length <= 50).slice(0, 20);
  if (kept.length < out.length) notes.push(`${out.length - kept.length} tag(s) longer than 50 characters or beyond the 20th are dropped`);
  return kept.length > 0 ? kept : undefined;
}

/** Dashboard links: `link` ones become Perses links; tag-based `dashboards` lists have no equivalent. */
export function dashboardLinks(links: unknown): { links: Obj[]; entries: ReportEntry[] } {
  const out: Obj[] = [];
  const entries: ReportEntry[] = [];
  for (const l of arr(links)) {
    if (!isObj(l)) continue;
    const source = `${str(l.type) ?? 'link'} link "${str(l.title) ?? ''}"`;
    const notes: string[] = [];
    if (!str(l.url)) {
      notes.push(
        l.type === 'dashboards'
          ? `a list of the Grafana dashboards tagged ${arr(l.tags).join(', ') || '(any)'} has no equivalent`
          : 'the link has no URL',
      );
      entries.push({ subject: 'link', source, outcome: 'dropped', notes });
      continue;
    }
    if (l.includeVars === true || l.keepTime === true)
      notes.push('the link no longer adds the current variables and time range to its URL');
    entries.push({ subject: 'link', source, path: `spec.links[${out.length}]`, result: 'link', outcome: 'mapped', notes });
    out.push(
      defined({
        name: str(l.title),
        url: l.url,
        tooltip: str(l.tooltip),
        targetBlank: l.targetBlank === true ? true : undefined,
        renderVariables: l.url.includes('$') ? true : undefined,
      }),
    );
  }
  return { links: out, entries };
}

/** Grafana annotations: Prometheus ones become PrometheusPromQLAnnotation; the others (and Grafana's built-in one) are listed as dropped. */
export function annotationsOf(annotations: unknown, ds: DatasourceResolver): { annotations: Obj[]; entries: ReportEntry[] } {
  const out: Obj[] = [];
  const entries: ReportEntry[] = [];
  for (const a of arr(obj(annotations).list)) {
    if (!isObj(a)) continue;
    const source = `annotation "${str(a.name) ?? ''}"`;
    // the Prometheus annotations of the first Grafana versions had their PromQL in `query`
    const expr = str(a.expr) ?? (typeof a.query === 'string' ? str(a.query) : undefined);
    const type = ds.typeOf(a.datasource) ?? (expr ? 'prometheus' : undefined);
    if (a.builtIn === 1 || a.builtIn === true || type !== 'prometheus' || !expr) {
      const why =
        a.builtIn || type === 'grafana' || type === 'dashboard'
          ? "Grafana's own annotations and alerts stay in Grafana"
          : type === 'prometheus'
            ? 'the Prometheus annotation has no query (expr), so Grafana showed nothing for it'
            : type === undefined
              ? 'its datasource type cannot be told, and it has no PromQL query (expr)'
              : `annotations from ${type} datasources have no equivalent`;
      entries.push({ subject: 'annotation', source, outcome: 'dropped', notes: [why] });
      continue;
    }
    const tags =
      typeof a.tagKeys === 'string'
        ? a.tagKeys
            .split(',')
            .map((t: string) => t.trim())
            .filter(Boolean)
        : undefined;
    const spec = defined({
      datasource: ds.selector('PrometheusDatasource', a.datasource),
      expr,
      title: str(a.titleFormat),
      legend: str(a.textFormat),
      tags: tags?.length ? tags : undefined,
    });
    entries.push({
      subject: 'annotation',
      source,
      path: `spec.annotations[${out.length}]`,
      result: 'PrometheusPromQLAnnotation',
      outcome: 'mapped',
      notes: [],
    });
    out.push({
      display: defined({ name: str(a.name) ?? 'annotation', hidden: a.enable === false ? true : undefined, color: str(a.iconColor) }),
      plugin: { kind: 'PrometheusPromQLAnnotation', spec },
    });
  }
  return { annotations: out, entries };
}
