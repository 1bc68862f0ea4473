/**
 * P4: GET through the datasource proxy (auth on, 50 connections) of a 2 KB upstream answer,
 * against what a user would otherwise run: a minimal pass-through proxy (node:http + one undici
 * Pool) to the same upstream sending the same headers as dashplane's answers, in the same run.
 * Every request is a different query (autocannon's `[<id>]`), so with the query cache on (the
 * default) each is a miss that goes upstream, as through the minimal proxy; the same query
 * again and again (cache hits) is printed as context, as is the upstream called directly.
 * Targets: >= 50 % of the minimal proxy's requests/s, the median of ROUNDS (5) interleaved runs
 * of the two; added p50 latency (one connection) <= 0.5 ms over the minimal proxy. Context: the proxy's CPU time per request through a dashboard's own
 * datasource (the holder is a whole dashboard) with the Perses editor's allowedEndpoints, as the
 * UI queries it (POST query_range).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUTH_ENV,
  adminAuth,
  api,
  assertClean,
  autocannon,
  interleaved,
  median,
  range,
  report,
  ROUNDS,
  sequentialLatency,
  startBare,
  startDashplane,
  tempDir,
  type Figure,
} from './lib.js';
import { PERSES_EDITOR_ALLOWED_ENDPOINTS } from '../test/helpers/prometheus.js';
import { CONNECTIONS, DURATION_S } from './p1-get.js';

/** A dashboard of 60 time-series panels (about 40 KB) with its own Prometheus datasource, as Perses' editor saves it. */
function bigDashboard(url: string) {
  const panels: Record<string, unknown> = {};
  const items: unknown[] = [];
  for (let i = 0; i < 60; i++) {
    const query = `sum by (instance) (rate(http_requests_total{job="api-${i}", code=~"5.."}[$__rate_interval]))`;
    panels[`p${i}`] = {
      kind: 'Panel',
      spec: {
        display: {
          name: `API ${i}: server errors per second`,
          description: 'Requests answered 5xx, per instance, over the rate interval.',
        },
        plugin: {
          kind: 'TimeSeriesChart',
          spec: { legend: { position: 'bottom', mode: 'table' }, yAxis: { format: { unit: 'requests/sec' } } },
        },
        queries: [
          {
            kind: 'TimeSeriesQuery',
            spec: {
              plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { datasource: { kind: 'PrometheusDatasource', name: 'local' }, query } },
            },
          },
        ],
      },
    };
    items.push({ x: (i % 2) * 12, y: Math.floor(i / 2) * 6, width: 12, height: 6, content: { $ref: `#/spec/panels/p${i}` } });
  }
  const proxy = { kind: 'HTTPProxy', spec: { url, allowedEndpoints: PERSES_EDITOR_ALLOWED_ENDPOINTS } };
  const datasources = { local: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy } } } };
  return {
    kind: 'Dashboard',
    metadata: { name: 'big' },
    spec: { display: { name: 'Big' }, duration: '1h', panels, layouts: [{ kind: 'Grid', spec: { items } }], datasources },
  };
}

/** A Prometheus instant-query answer of about 2 KB. */
function upstreamBody(): string {
  const result = Array.from({ length: 12 }, (_, i) => ({
    metric: { __name__: 'up', job: `api-${i}`, instance: `10.0.0.${i}:9100` },
    value: [1700000000.123, '1'],
  }));
  return JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p4');
  const file = join(dir.path, 'upstream.json');
  const body = upstreamBody();
  writeFileSync(file, body);
  const upstream = await startBare(['static', file, 'application/json']);
  const minimal = await startBare(['proxy-like', upstream.url]);
  // the upstream listens on 127.0.0.1, which the proxy refuses with auth on unless allowed
  const server = await startDashplane({ dir: dir.path, env: { ...AUTH_ENV, DASHPLANE_PROXY_ALLOW_LOOPBACK: 'true' } });
  try {
    const auth = await adminAuth(server.url);
    await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
    await api(
      server.url,
      'POST',
      '/api/v1/projects/bench/datasources',
      {
        kind: 'Datasource',
        metadata: { name: 'prom' },
        spec: {
          default: true,
          plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: upstream.url } } } },
        },
      },
      auth,
    );
    const dashboard = bigDashboard(upstream.url);
    await api(server.url, 'POST', '/api/v1/projects/bench/dashboards', dashboard, auth);
    const path = '/api/v1/query?query=up';
    const direct = `${upstream.url}${path}`;
    const plain = `${minimal.url}${path}`;
    const proxied = `${server.url}/proxy/projects/bench/datasources/prom${path}`;
    const check = await fetch(proxied, { headers: auth });
    if (check.status !== 200 || (await check.text()) !== body)
      throw new Error(`the proxy answered ${check.status}, not the upstream's body`);
    const upstreamDirect = await autocannon({ url: direct, connections: CONNECTIONS, durationS: DURATION_S, warmupS: 3 });
    assertClean('direct GET', upstreamDirect);
    // a new query each time: `[<id>]` becomes a new id in every request (not at the end of an
    // argument: autocannon's argument parser reads a trailing "]" as the end of a sub-list)
    const unique = '&n=[<id>]&fresh=1';
    const runs = await interleaved(
      ROUNDS,
      async (warmupS) => {
        const r = await autocannon({
          url: plain + unique,
          connections: CONNECTIONS,
          durationS: DURATION_S,
          warmupS,
          pid: minimal.child.pid,
          idReplacement: true,
        });
        assertClean('minimal proxy GET', r);
        return r;
      },
      async (warmupS) => {
        const r = await autocannon({
          url: proxied + unique,
          connections: CONNECTIONS,
          durationS: DURATION_S,
          warmupS,
          headers: auth,
          pid: server.child.pid,
          idReplacement: true,
        });
        assertClean('proxied GET', r);
        return r;
      },
    );
    const got = { rps: median(runs.got.map((r) => r.rps)), cpuUs: median(runs.got.map((r) => r.cpuUs!)) };
    const ref = { rps: median(runs.ref.map((r) => r.rps)), cpuUs: median(runs.ref.map((r) => r.cpuUs!)) };
    const hits = await autocannon({
      url: proxied,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      warmupS: 3,
      headers: auth,
      pid: server.child.pid,
    });
    assertClean('proxied GET, cache hits', hits);
    const local = `${server.url}/proxy/projects/bench/dashboards/big/datasources/local/api/v1/query_range`;
    const form = {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=up&start=1700000000&end=1700003600&step=15',
    };
    const checkLocal = await fetch(local, form);
    form.body += unique; // each a miss, as above
    if (checkLocal.status !== 200)
      throw new Error(`the proxy answered ${checkLocal.status} through the dashboard's datasource: ${await checkLocal.text()}`);
    const gotLocal = await autocannon({
      url: local,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      warmupS: 3,
      ...form,
      pid: server.child.pid,
      idReplacement: true,
    });
    assertClean("proxied POST through a dashboard's datasource", gotLocal);
    let n = 0;
    const plainP50 = median(await sequentialLatency(() => `${plain}&n=${n++}`, {}, 2000, 200));
    const proxiedP50 = median(await sequentialLatency(() => `${proxied}&n=${n++}`, auth, 2000, 200));
    const added = proxiedP50 - plainP50;
    return [
      report({
        id: 'P4',
        what: 'context: the upstream called directly',
        value: upstreamDirect.rps,
        unit: 'req/s',
        refWhat: 'minimal proxy',
        reference: ref.rps,
        ratio: upstreamDirect.rps / ref.rps,
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P4',
        what: `proxy GET, 2 KB upstream answer, auth, ${CONNECTIONS} conn, each a cache miss, median of ${ROUNDS} interleaved (ratios ${range(runs.ratios, 2)})`,
        value: got.rps,
        unit: 'req/s',
        refWhat: 'minimal node:http + undici proxy, same headers',
        reference: ref.rps,
        ratio: median(runs.ratios),
        target: 'ratio >= 0.50',
        pass: median(runs.ratios) >= 0.5,
      }),
      // the proxies' own CPU time per request (see P1), steadier than requests/s here
      report({
        id: 'P4',
        what: `context: proxy CPU time per request (median; ${range(runs.got.map((r) => r.cpuUs!))})`,
        value: got.cpuUs,
        unit: 'us',
        refWhat: 'minimal proxy',
        reference: ref.cpuUs,
        ratio: median(runs.ref.map((r, i) => r.cpuUs! / runs.got[i].cpuUs!)),
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P4',
        what: 'context: the same query again and again (cache hits)',
        value: hits.rps,
        unit: 'req/s',
        refWhat: 'minimal proxy',
        reference: ref.rps,
        ratio: hits.rps / ref.rps,
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P4',
        what: `context: CPU per request, a dashboard's own datasource (${Math.round(JSON.stringify(dashboard).length / 1024)} KB dashboard, editor allowedEndpoints, POST)`,
        value: gotLocal.cpuUs!,
        unit: 'us',
        refWhat: 'project datasource GET',
        reference: got.cpuUs,
        ratio: got.cpuUs / gotLocal.cpuUs!,
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P4',
        what: 'proxy added latency over the minimal proxy, 1 connection (p50, each a miss)',
        value: added,
        unit: 'ms',
        refWhat: 'minimal proxy p50',
        reference: plainP50,
        ratio: proxiedP50 / plainP50,
        target: 'added <= 0.5 ms',
        pass: added <= 0.5,
      }),
    ];
  } finally {
    await server.stop();
    await minimal.stop();
    await upstream.stop();
    dir.cleanup();
  }
}
