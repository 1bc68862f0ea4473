/**
 * A fake Loki speaking its HTTP API (Loki's "HTTP API" reference): query_range and query with
 * `streams` results for log queries and `matrix`/`vector` results for metric queries, labels,
 * label values, series, index stats and volume, ready and buildinfo. Loki is not packaged in
 * Debian (its `loki` package is an unrelated program), so the UI and proxy tests use this.
 *
 * Its log lines are made up on demand: each stream has a line every `everyMs`, at multiples of it
 * since the epoch, so any time range has lines. It understands the LogQL the tests write: a
 * stream selector (`=`, `!=`, `=~`, `!~`), line filters (`|=`, `!=`, `|~`, `!~`), and
 * `count_over_time(...[d])` or `rate(...[d])` optionally under `sum` / `sum by (labels)`.
 * Anything else is a 400 "parse error", as Loki answers.
 */
import {
  BadRequest,
  type FakeAnswer,
  type FakeRequest,
  orBadRequest,
  parseStep,
  parseTime,
  type RunningFake,
  startFake,
} from './fake-http.js';

/** One stream of the fake: its labels, how often it logs, and its line for a given time. */
export interface FakeStream {
  labels: Record<string, string>;
  everyMs: number;
  line(t: number): string;
}

/** The streams of a fake Loki unless the caller gives its own: nginx access lines (200 and 500) and an app's lines. */
export const DEFAULT_STREAMS: readonly FakeStream[] = [
  { labels: { job: 'nginx', status: '200' }, everyMs: 5_000, line: (t) => `GET /index.html 200 ${t % 997}b` },
  { labels: { job: 'nginx', status: '500' }, everyMs: 30_000, line: () => 'GET /api/orders 500 upstream timed out' },
  { labels: { job: 'app', level: 'info' }, everyMs: 10_000, line: (t) => `checkout done in ${t % 300}ms` },
];

type Matcher = { label: string; test(v: string | undefined): boolean };
interface LogQuery {
  matchers: Matcher[];
  lineFilters: ((line: string) => boolean)[];
}
interface MetricQuery {
  fn: 'count_over_time' | 'rate';
  log: LogQuery;
  rangeMs: number;
  /** undefined: no aggregation; [] sum of all; else sum by these labels */
  sumBy?: string[];
}

const STRING = /"((?:[^"\\]|\\.)*)"/.source;

/** Starts a fake Loki on 127.0.0.1. */
export function startFakeLoki(streams: readonly FakeStream[] = DEFAULT_STREAMS): Promise<RunningFake> {
  const ok = (data: unknown) => ({ json: { status: 'success', data } });
  const loki = (fn: () => FakeAnswer) => orBadRequest(fn, (message) => ({ text: `${message}\n` }));
  const selected = (req: FakeRequest, param = 'query') => {
    const q = req.query.get(param);
    return q ? streams.filter((s) => matches(parseLog(q).matchers, s.labels)) : [...streams];
  };
  return startFake('loki', [
    { methods: ['GET', 'POST'], path: /\/loki\/api\/v1\/query_range/, handle: (req) => loki(() => ok(queryRange(streams, form(req)))) },
    { methods: ['GET', 'POST'], path: /\/loki\/api\/v1\/query/, handle: (req) => loki(() => ok(instant(streams, form(req)))) },
    {
      methods: ['GET', 'POST'],
      path: /\/loki\/api\/v1\/labels/,
      handle: (req) => loki(() => ok(uniq(selected(req).flatMap((s) => Object.keys(s.labels))))),
    },
    {
      methods: ['GET', 'POST'],
      path: /\/loki\/api\/v1\/label\/([^/]+)\/values/,
      handle: (req, [name]) => loki(() => ok(uniq(selected(req).flatMap((s) => (s.labels[name] === undefined ? [] : [s.labels[name]]))))),
    },
    {
      methods: ['GET', 'POST'],
      path: /\/loki\/api\/v1\/series/,
      handle: (req) =>
        loki(() => {
          const match = form(req).getAll('match[]');
          if (!match.length) throw new BadRequest('parse error : at least one match[] is required');
          return ok(streams.filter((s) => match.some((m) => matches(parseLog(m).matchers, s.labels))).map((s) => s.labels));
        }),
    },
    {
      methods: ['GET', 'POST'],
      path: /\/loki\/api\/v1\/index\/stats/,
      handle: (req) => loki(() => ({ json: { streams: selected(req).length, chunks: selected(req).length, entries: 0, bytes: 0 } })),
    },
    {
      methods: ['GET', 'POST'],
      path: /\/loki\/api\/v1\/index\/volume(_range)?/,
      handle: (req) =>
        loki(() => ok({ resultType: 'vector', result: selected(req).map((s) => ({ metric: s.labels, value: [Date.now() / 1000, '0'] })) })),
    },
    { methods: ['GET'], path: /\/ready/, handle: () => ({ text: 'ready\n' }) },
    {
      methods: ['GET'],
      path: /\/loki\/api\/v1\/status\/buildinfo/,
      handle: () => ({ json: { version: '3.0.0-fake', revision: 'fake', branch: 'fake' } }),
    },
  ]);
}

/** GET parameters, or a POST's form body (Loki takes both). */
function form(req: FakeRequest): URLSearchParams {
  return req.method === 'POST' ? new URLSearchParams(req.body) : req.query;
}

function queryRange(streams: readonly FakeStream[], p: URLSearchParams) {
  const query = required(p, 'query');
  const end = parseTime(p.get('end'), Date.now());
  const start = parseTime(p.get('start'), end - 3_600_000);
  if (start > end) throw new BadRequest('end timestamp must not be before or equal to start time');
  const metric = parseMetric(query);
  if (!metric) return { resultType: 'streams', result: logLines(streams, parseLog(query), start, end, p), stats: {} };
  const step = p.get('step') ? parseStep(p.get('step')!) : Math.max(1000, Math.round((end - start) / 250 / 1000) * 1000);
  const times: number[] = [];
  for (let t = Math.ceil(start / step) * step; t <= end; t += step) times.push(t);
  return {
    resultType: 'matrix',
    result: series(streams, metric, times).map(({ metric: m, values }) => ({ metric: m, values })),
    stats: {},
  };
}

function instant(streams: readonly FakeStream[], p: URLSearchParams) {
  const query = required(p, 'query');
  const time = parseTime(p.get('time'), Date.now());
  const metric = parseMetric(query);
  if (!metric) return { resultType: 'streams', result: logLines(streams, parseLog(query), time - 3_600_000, time, p), stats: {} };
  return {
    resultType: 'vector',
    result: series(streams, metric, [time]).map(({ metric: m, values }) => ({ metric: m, value: values[0] })),
    stats: {},
  };
}

function required(p: URLSearchParams, name: string): string {
  const v = p.get(name);
  if (!v) throw new BadRequest(`parse error : ${name} is required`);
  return v;
}

/** The lines of the selected streams in [start, end], newest first unless direction=forward, at most `limit` (100) in all. */
function logLines(streams: readonly FakeStream[], q: LogQuery, start: number, end: number, p: URLSearchParams) {
  const limit = Number(p.get('limit') ?? 100);
  const forward = p.get('direction') === 'forward';
  const all: { labels: Record<string, string>; t: number; line: string }[] = [];
  for (const s of streams.filter((x) => matches(q.matchers, x.labels))) {
    for (let t = Math.ceil(start / s.everyMs) * s.everyMs; t <= end; t += s.everyMs) {
      const line = s.line(t);
      if (q.lineFilters.every((f) => f(line))) all.push({ labels: s.labels, t, line });
    }
  }
  all.sort((a, b) => (forward ? a.t - b.t : b.t - a.t));
  const kept = all.slice(0, limit);
  const byStream = new Map<Record<string, string>, [string, string][]>();
  for (const e of kept) byStream.set(e.labels, [...(byStream.get(e.labels) ?? []), [`${BigInt(e.t) * 1_000_000n}`, e.line]]);
  return [...byStream.entries()].map(([stream, values]) => ({ stream, values }));
}

/** One series per selected stream (or per `sum by` group): the lines counted in the range window before each time. */
function series(streams: readonly FakeStream[], q: MetricQuery, times: number[]) {
  const groups = new Map<string, { metric: Record<string, string>; counts: number[] }>();
  for (const s of streams.filter((x) => matches(q.log.matchers, x.labels))) {
    const metric =
      q.sumBy === undefined ? s.labels : Object.fromEntries(q.sumBy.filter((l) => s.labels[l] !== undefined).map((l) => [l, s.labels[l]]));
    const key = JSON.stringify(metric);
    const g = groups.get(key) ?? { metric, counts: times.map(() => 0) };
    times.forEach((t, i) => {
      for (let x = Math.floor(t / s.everyMs) * s.everyMs; x > t - q.rangeMs; x -= s.everyMs)
        if (q.log.lineFilters.every((f) => f(s.line(x)))) g.counts[i]++;
    });
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => ({
    metric: g.metric,
    values: times.map((t, i) => [t / 1000, String(q.fn === 'rate' ? g.counts[i] / (q.rangeMs / 1000) : g.counts[i])] as [number, string]),
  }));
}

function parseMetric(query: string): MetricQuery | undefined {
  let q = query.trim();
  let sumBy: string[] | undefined;
  const sum = /^sum\s*(?:by\s*\(([^)]*)\)\s*)?\((.*)\)$/s.exec(q);
  if (sum) {
    sumBy =
      sum[1] === undefined
        ? []
        : sum[1]
            .split(',')
            .map((l) => l.trim())
            .filter(Boolean);
    q = sum[2].trim();
  }
  const fn = /^(count_over_time|rate)\s*\((.*)\[([^\]]+)\]\s*\)$/s.exec(q);
  if (!fn) {
    if (q.startsWith('{')) return undefined;
    throw new BadRequest(`parse error : syntax error: unexpected input in ${JSON.stringify(query)}`);
  }
  return { fn: fn[1] as MetricQuery['fn'], log: parseLog(fn[2]), rangeMs: parseStep(fn[3]), ...(sumBy ? { sumBy } : {}) };
}

function parseLog(query: string): LogQuery {
  const m = /^\s*\{([^}]*)\}(.*)$/s.exec(query);
  if (!m) throw new BadRequest(`parse error : queries require at least one stream selector {label="value"}: ${JSON.stringify(query)}`);
  const matchers: Matcher[] = [];
  const sel = new RegExp(`^\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*${STRING}\\s*(?:,|$)`);
  let rest = m[1];
  while (rest.trim() !== '') {
    const x = sel.exec(rest);
    if (!x) throw new BadRequest(`parse error : invalid stream selector {${m[1]}}`);
    matchers.push(matcher(x[1], x[2], unquote(x[3])));
    rest = rest.slice(x[0].length);
  }
  if (!matchers.length)
    throw new BadRequest(
      'parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value',
    );
  const lineFilters: LogQuery['lineFilters'] = [];
  const filter = new RegExp(`^\\s*(\\|=|!=|\\|~|!~)\\s*${STRING}`);
  let pipeline = m[2];
  while (pipeline.trim() !== '') {
    const f = filter.exec(pipeline);
    if (!f) throw new BadRequest(`parse error : unexpected ${JSON.stringify(pipeline.trim())}`);
    const v = unquote(f[2]);
    const re = f[1].endsWith('~') ? new RegExp(v) : undefined;
    lineFilters.push(
      f[1] === '|='
        ? (l) => l.includes(v)
        : f[1] === '!='
          ? (l) => !l.includes(v)
          : f[1] === '|~'
            ? (l) => re!.test(l)
            : (l) => !re!.test(l),
    );
    pipeline = pipeline.slice(f[0].length);
  }
  return { matchers, lineFilters };
}

function matcher(label: string, op: string, value: string): Matcher {
  const re = op.endsWith('~') ? new RegExp(`^(?:${value})$`) : undefined;
  const test = (v: string | undefined) =>
    op === '=' ? (v ?? '') === value : op === '!=' ? (v ?? '') !== value : op === '=~' ? re!.test(v ?? '') : !re!.test(v ?? '');
  return { label, test };
}

const matches = (ms: Matcher[], labels: Record<string, string>) => ms.every((m) => m.test(labels[m.label]));
const unquote = (s: string) => JSON.parse(`"${s}"`) as string;
const uniq = (xs: string[]) => [...new Set(xs)].sort();
