/**
 * P10: what a dashboard on many screens does to its Prometheus (issue 38). 200 viewers of a
 * 30-panel dashboard (one hour, step 15 s: Perses' step for a datasource scraped every 15 s)
 * refresh it, their clocks spread over 10 s: each viewer sends its panels' range queries as a
 * browser does (POST query_range, the end its clock reads rounded to the second, six at a time),
 * through a dashplane server with the query cache on (the default) and one with it off. The two
 * servers' refreshes alternate 32.5 s apart (so each refreshes every 65 s: with a 10 s time to
 * live nothing kept lasts from one refresh to the next either way), so both see the same machine
 * and neither sees the other's load. Each server's upstream is a stand-in for Prometheus of its own,
 * which counts queries and answers each with the parameters it was asked
 * (bench/prometheus-standin.ts).
 * Targets: upstream queries per refresh <= 2 x 30 (without the cache 6,000); p99 latency with the
 * cache not above without it; no viewer ever gets the answer to another query. Then the same
 * against a real Prometheus scraping a node exporter, with the panels of the Perses Demo dashboard
 * the UI tests draw (when the Perses corpus is there, as for the tests).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Dispatcher, Pool } from 'undici';
import { corpusDir } from '../test/helpers/corpus.js';
import { startMonitoring } from '../test/helpers/monitoring.js';
import { panelQueries } from '../test/helpers/viewers.js';
import { AUTH_ENV, adminAuth, api, type Child, percentile, report, startDashplane, startScript, tempDir, type Figure } from './lib.js';

const VIEWERS = 200;
const SPREAD_MS = 10_000;
/**
 * Between one server's refresh and the other's: each server refreshes every 65 s, so its refreshes
 * start 0, 5 and 10 s into a step of 15 s, and at least one of them has its clocks' 10 s straddle
 * the end of a step (two aligned windows: the most a refresh can send is 2 x 30). The same phase
 * every time (a period of 60 s) could give three refreshes within one step each (30 queries).
 */
const REFRESH_MS = 32_500;
const REFRESHES = Number(process.env.BENCH_P10_REFRESHES ?? 3);
/** A browser's connections to one origin (HTTP/1.1). */
const BROWSER_CONNECTIONS = 6;
const STEP_S = 15;

/** One dashplane server under load: its viewers' connections, what they measured. */
interface Side {
  cache: 'on' | 'off';
  server: Child;
  /** The proxy path of the datasource (up to the datasource name). */
  path: string;
  auth: Record<string, string>;
  pools: Pool[];
  /** Milliseconds from sending to the end of the answer, of the answers that came (200). */
  latencies: number[];
  /** The same by where the answer came from (X-Dashplane-Cache). */
  byCache: Record<string, number[]>;
  /** Answers to another query than the viewer's. */
  wrong: string[];
  /** Requests that failed (not 200, or no answer): the proxy's own limits, such as proxy.max_concurrent, or a connection not accepted in time. */
  failed: string[];
  perRefresh: number[];
  /** Per refresh: how long after the first viewer's refresh fired the last answer came (ms). */
  spans: number[];
  /** Upstream queries sent so far for this side. */
  upstream(): Promise<number>;
}

/** The 30 queries of the dashboard, one per panel (the panels of bench/lib.ts `dashboard`). */
const PANELS = Array.from({ length: 30 }, (_, p) => `sum by (code) (rate(http_requests_total{job="api-${p}",instance=~".+"}[5m]))`);

/** One refresh of every viewer: each at its own moment within SPREAD_MS sends every panel's query. */
async function refresh(
  side: Side,
  queries: readonly string[],
  durationS: number,
  check: (body: string, query: string, start: number, end: number) => string | undefined,
): Promise<void> {
  const before = await side.upstream();
  const started = Date.now();
  let last = started;
  await Promise.all(
    side.pools.map(async (pool) => {
      // the viewer's clock reads `due` when its refresh fires: its queries end there, however late
      // this process gets to send them
      const due = started + Math.random() * SPREAD_MS;
      await new Promise((r) => setTimeout(r, due - Date.now()));
      const end = Math.ceil(due / 1000);
      const start = end - durationS;
      await Promise.all(
        queries.map(async (query) => {
          const t0 = performance.now();
          const form = new URLSearchParams({ query, start: String(start), end: String(end), step: String(STEP_S) }).toString();
          let r: Dispatcher.ResponseData;
          let body: string;
          try {
            r = await pool.request({
              method: 'POST',
              path: `${side.path}/api/v1/query_range`,
              headers: { ...side.auth, 'content-type': 'application/x-www-form-urlencoded' },
              body: form,
            });
            body = await r.body.text();
          } catch (e) {
            // an overloaded server: the connection not accepted in time, or broken off
            return void side.failed.push(`${(e as Error).name}: ${(e as Error).message}`);
          }
          last = Math.max(last, Date.now());
          if (r.statusCode !== 200) return void side.failed.push(`${r.statusCode}: ${body.slice(0, 200)}`);
          const ms = performance.now() - t0;
          side.latencies.push(ms);
          const from = String(r.headers['x-dashplane-cache']);
          if (!side.byCache[from]) side.byCache[from] = [];
          side.byCache[from].push(ms);
          const problem = check(body, query, start, end);
          if (problem) side.wrong.push(problem);
        }),
      );
    }),
  );
  side.perRefresh.push((await side.upstream()) - before);
  side.spans.push(last - started);
}

/**
 * The stand-in's answer names what it was asked: the viewer's query and step, a range holding every
 * point the viewer asked for. Only its head is parsed (`asked` comes first): parsing 6,000 answers
 * of 18 KB per refresh took the viewers' process most of its time, and its latencies with it.
 */
function ownAnswer(body: string, query: string, start: number, end: number): string | undefined {
  const head = /^\{"asked":(\{.*?\}),"status"/.exec(body);
  if (!head) return `not an answer of the stand-in: ${body.slice(0, 200)}`;
  const asked = JSON.parse(head[1]) as { query: string; start: string; end: string; step: string };
  const [s, e, step] = [Number(asked.start), Number(asked.end), Number(asked.step)];
  if (asked.query !== query || step !== STEP_S || s > start || start - s >= 2 * step || e < end || e - end > step)
    return `asked ${JSON.stringify({ query, start, end })}, got ${JSON.stringify(asked)}`;
  return undefined;
}

const prometheusAnswer = (body: string) => (body.startsWith('{"status":"success"') ? undefined : body.slice(0, 200));

/** A dashplane server with a project datasource at `url`, the query cache on or off, and its viewers. */
async function side(
  dir: string,
  cache: 'on' | 'off',
  url: string,
  counter: (s: Child, auth: Record<string, string>) => () => Promise<number>,
): Promise<Side> {
  mkdirSync(dir);
  const server = await startDashplane({
    dir,
    env: { ...AUTH_ENV, DASHPLANE_PROXY_ALLOW_LOOPBACK: 'true', DASHPLANE_PROXY_CACHE_ENABLE: String(cache === 'on') },
  });
  const auth = await adminAuth(server.url);
  await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'wall' }, spec: {} }, auth);
  const spec = { default: true, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } } };
  await api(server.url, 'POST', '/api/v1/projects/wall/datasources', { kind: 'Datasource', metadata: { name: 'prom' }, spec }, auth);
  const pools = Array.from({ length: VIEWERS }, () => new Pool(server.url, { connections: BROWSER_CONNECTIONS }));
  return {
    cache,
    server,
    path: '/proxy/projects/wall/datasources/prom',
    auth,
    pools,
    latencies: [],
    byCache: {},
    wrong: [],
    failed: [],
    perRefresh: [],
    spans: [],
    upstream: counter(server, auth),
  };
}

/** Upstream exchanges of the datasource, from the server's own metrics. */
const exchanges = (s: Child, auth: Record<string, string>) => async () => {
  const text = await (await fetch(`${s.url}/metrics`, { headers: auth })).text();
  return [
    ...text.matchAll(/^dashplane_proxy_upstream_duration_seconds_count\{datasource="Datasource\/wall\/prom",status="[^"]*"\} (\d+)$/gm),
  ].reduce((n, m) => n + Number(m[1]), 0);
};

/** REFRESHES rounds: the server without the cache refreshes, then REFRESH_MS later the one with it. */
async function interleavedRefreshes(
  off: Side,
  on: Side,
  queries: readonly string[],
  durationS: number,
  check: typeof ownAnswer,
): Promise<void> {
  const t0 = Date.now();
  const at = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, t0 + ms - Date.now())));
  await Promise.all(
    Array.from({ length: REFRESHES }, async (_, k) => {
      await Promise.all([
        at(2 * k * REFRESH_MS).then(() => refresh(off, queries, durationS, check)),
        at((2 * k + 1) * REFRESH_MS).then(() => refresh(on, queries, durationS, check)),
      ]);
    }),
  );
}

/** The figures of one pair of runs: queries per refresh (the worst refresh), p99 latency, wrong answers. */
function figures(what: string, panels: number, off: Side, on: Side): Figure[] {
  const worst = Math.max(...on.perRefresh);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [p99on, p99off] = [percentile(on.latencies, 99), percentile(off.latencies, 99)];
  const spread = (s: Side) =>
    s.latencies.length === 0
      ? 'no answers'
      : `p50 ${percentile(s.latencies, 50).toFixed(1)}, p90 ${percentile(s.latencies, 90).toFixed(0)}, max ${Math.max(...s.latencies).toFixed(0)} ms`;
  const kinds = (s: Side) => [...new Set(s.failed.map((f) => f.split(':', 1)[0]))].join(', ') || 'none';
  const spans = (s: Side) => s.spans.map((ms) => (ms / 1000).toFixed(1)).join(', ');
  console.log(`P10 ${what}: cache on ${spread(on)}, ${on.failed.length} failed; cache off ${spread(off)}, ${off.failed.length} failed`);
  // the clocks spread over 10 s, but under load the last answers come later: a request sent past
  // the time to live of an answer kept early in the refresh goes upstream again
  const byCache = (s: Side) =>
    Object.entries(s.byCache)
      .map(([from, ms]) => `${from} ${ms.length}: p50 ${percentile(ms, 50).toFixed(1)}, p99 ${percentile(ms, 99).toFixed(0)} ms`)
      .join('; ');
  console.log(`P10 ${what}: latency by X-Dashplane-Cache: cache on ${byCache(on)}; cache off ${byCache(off)}`);
  console.log(`P10 ${what}: seconds from a refresh's first clock to its last answer: cache on ${spans(on)}; cache off ${spans(off)}`);
  return [
    report({
      id: 'P10',
      what: `${what}: upstream queries per refresh, cache on (worst of ${on.perRefresh.join(', ')})`,
      value: worst,
      unit: 'queries',
      refWhat: `cache off (${off.perRefresh.join(', ')}); ratio to the target`,
      reference: mean(off.perRefresh),
      ratio: worst / (2 * panels),
      target: `<= 2 x ${panels}`,
      pass: worst <= 2 * panels,
    }),
    report({
      id: 'P10',
      what: `${what}: p99 latency through the proxy, cache on`,
      value: p99on,
      unit: 'ms',
      refWhat: 'cache off',
      reference: p99off,
      ratio: p99on / p99off,
      target: 'ratio <= 1',
      pass: p99on <= p99off,
    }),
    report({
      id: 'P10',
      what: `context: ${what}: requests that failed, cache on (${kinds(on)})`,
      value: on.failed.length,
      unit: 'requests',
      refWhat: `cache off (${kinds(off)})`,
      reference: off.failed.length,
      ratio: off.failed.length ? on.failed.length / off.failed.length : 0,
      target: '-',
      pass: 'context',
    }),
    report({
      id: 'P10',
      what: `${what}: answers to another query than the viewer's (of ${on.latencies.length + off.latencies.length})`,
      value: on.wrong.length + off.wrong.length,
      unit: 'answers',
      refWhat: 'none',
      reference: 0,
      ratio: 0,
      target: '0',
      pass: on.wrong.length + off.wrong.length === 0,
    }),
  ];
}

/** Where the side's answers came from, as its /metrics counts them (X-Dashplane-Cache). */
async function results(s: Side): Promise<string> {
  const text = await (await fetch(`${s.server.url}/metrics`, { headers: s.auth })).text();
  const found = [...text.matchAll(/^dashplane_proxy_cache_requests_total\{datasource="Datasource\/wall\/prom",result="(\w+)"\} (\d+)$/gm)];
  return found.map((m) => `${m[1]} ${m[2]}`).join(', ') || 'none';
}

async function close(...sides: Side[]): Promise<void> {
  for (const s of sides) {
    console.log(`P10 cache ${s.cache}: answers by X-Dashplane-Cache: ${await results(s)}`);
    await Promise.all(s.pools.map((p) => p.close()));
    await s.server.stop();
  }
  const problems = sides.flatMap((s) => [...s.wrong.slice(0, 3), ...s.failed.slice(0, 1)]);
  if (problems.length) console.log(`first problems: ${problems.join('\n')}`);
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p10');
  const standins = [await startScript('prometheus-standin.js', []), await startScript('prometheus-standin.js', [])];
  const out: Figure[] = [];
  try {
    const count = (url: string, prefix: string) => () => async () =>
      ((await (await fetch(`${url}/-/counts`)).json()) as Record<string, number>)[prefix] ?? 0;
    const off = await side(join(dir.path, 'off'), 'off', `${standins[0].url}/off`, count(standins[0].url, 'off'));
    const on = await side(join(dir.path, 'on'), 'on', `${standins[1].url}/on`, count(standins[1].url, 'on'));
    try {
      await interleavedRefreshes(off, on, PANELS, 3600, ownAnswer);
      out.push(...figures(`stand-in, ${VIEWERS} viewers x ${PANELS.length} panels`, PANELS.length, off, on));
    } finally {
      await close(off, on);
    }
    const corpus = corpusDir('corpus');
    if (!corpus) {
      console.log(
        'P10 against a real Prometheus: skipped, the Perses corpus (the Demo dashboard) is missing; see CONTRIBUTING.md, "Test corpora"',
      );
      return out;
    }
    const demo = JSON.parse(readFileSync(join(corpus, 'perses/dev/data/9-dashboard.json'), 'utf8'))[0];
    const queries = panelQueries(demo);
    const monitoring = await startMonitoring();
    try {
      const offP = await side(join(dir.path, 'off-p'), 'off', monitoring.prom.url, exchanges);
      const onP = await side(join(dir.path, 'on-p'), 'on', monitoring.prom.url, exchanges);
      try {
        await interleavedRefreshes(offP, onP, queries, 300, prometheusAnswer);
        out.push(...figures(`real Prometheus, Demo dashboard, ${VIEWERS} viewers x ${queries.length} panels`, queries.length, offP, onP));
      } finally {
        await close(offP, onP);
      }
    } finally {
      await monitoring.stop();
    }
    return out;
  } finally {
    for (const s of standins) await s.stop();
    dir.cleanup();
  }
}
