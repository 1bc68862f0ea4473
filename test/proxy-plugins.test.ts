/**
 * The suggested allowedEndpoints of the Loki, Tempo and Pyroscope datasource kinds (the catalog's
 * `allowedEndpoints`, offered by /api/v1/plugins and the web UI's datasource form), through the
 * real proxy to fakes that speak each service's HTTP API: every call the Perses plugin makes goes
 * through with the service's answer, and other paths or methods answer 403 without reaching it.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../src/paths.js';
import { PluginRegistry } from '../src/plugins/registry.js';
import type { RunningFake } from './helpers/fake-http.js';
import { startFakeLoki } from './helpers/fake-loki.js';
import { startFakePyroscope } from './helpers/fake-pyroscope.js';
import { startFakeTempo } from './helpers/fake-tempo.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface Call {
  method: string;
  path: string;
  body?: unknown;
  /** what the answer must hold */
  expect: RegExp;
}

const now = Math.floor(Date.now() / 1000);
const range = `start=${now - 600}&end=${now}`;
const q = encodeURIComponent;
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CPU = 'process_cpu:cpu:nanoseconds:cpu:nanoseconds';

/** Per datasource kind: its fake, the calls its plugin makes (one at least per allowed endpoint), and calls that must be refused. */
const KINDS: { kind: string; start: () => Promise<RunningFake>; allowed: Call[]; denied: { method: string; path: string }[] }[] = [
  {
    kind: 'LokiDatasource',
    start: () => startFakeLoki(),
    allowed: [
      { method: 'GET', path: `/loki/api/v1/query?query=${q('count_over_time({job="nginx"}[1m])')}`, expect: /"resultType":"vector"/ },
      {
        method: 'GET',
        path: `/loki/api/v1/query_range?query=${q('{job="nginx"}')}&${range}&limit=5`,
        expect: /"resultType":"streams".*GET \/index\.html/,
      },
      {
        method: 'GET',
        path: `/loki/api/v1/query_range?query=${q('sum by (status) (rate({job="nginx"}[1m]))')}&${range}&step=60s`,
        expect: /"resultType":"matrix".*"status":"500"/,
      },
      { method: 'GET', path: `/loki/api/v1/labels?${range}`, expect: /"data":\["job","level","status"\]/ },
      { method: 'GET', path: '/loki/api/v1/label/job/values', expect: /"data":\["app","nginx"\]/ },
      { method: 'GET', path: `/loki/api/v1/series?match[]=${q('{job="app"}')}`, expect: /"level":"info"/ },
      { method: 'GET', path: `/loki/api/v1/index/volume?query=${q('{job="nginx"}')}&${range}`, expect: /"resultType":"vector"/ },
      {
        method: 'GET',
        path: `/loki/api/v1/index/volume_range?query=${q('{job="nginx"}')}&${range}&step=60s`,
        expect: /"resultType":"vector"/,
      },
      { method: 'GET', path: `/loki/api/v1/index/stats?query=${q('{job="nginx"}')}`, expect: /"streams":2/ },
    ],
    denied: [
      { method: 'GET', path: '/ready' },
      { method: 'POST', path: '/loki/api/v1/query_range' },
      { method: 'GET', path: '/loki/api/v1/label/job/values/x' },
      { method: 'POST', path: '/loki/api/v1/push' },
    ],
  },
  {
    kind: 'TempoDatasource',
    start: () => startFakeTempo(),
    allowed: [
      {
        method: 'GET',
        path: `/api/search?q=${q('{ resource.service.name = "payment" }')}&start=${now - 3600}&end=${now}`,
        expect: /"rootTraceName":"GET \/checkout"/,
      },
      { method: 'GET', path: `/api/traces/${TRACE}`, expect: /"batches":.*"name":"Charge"/ },
      { method: 'GET', path: '/api/v2/search/tags?scope=span', expect: /"payment\.provider"/ },
      { method: 'GET', path: '/api/v2/search/tag/resource.service.name/values', expect: /"value":"checkout"/ },
    ],
    denied: [
      { method: 'GET', path: '/api/echo' },
      { method: 'GET', path: `/api/v2/traces/${TRACE}` },
      { method: 'GET', path: '/api/traces/not-a-trace-id' },
      { method: 'DELETE', path: `/api/traces/${TRACE}` },
    ],
  },
  {
    kind: 'PyroscopeDatasource',
    start: () => startFakePyroscope(),
    allowed: [
      {
        method: 'GET',
        path: `/pyroscope/render?query=${q(`${CPU}{service_name="checkout"}`)}&from=${now - 3600}&until=${now}`,
        expect: /"flamebearer":.*"database\/sql\.\(\*DB\)\.Query"/,
      },
      {
        method: 'POST',
        path: '/querier.v1.QuerierService/ProfileTypes',
        body: { start: (now - 3600) * 1000, end: now * 1000 },
        expect: /"ID":"process_cpu:cpu/,
      },
      {
        method: 'POST',
        path: '/querier.v1.QuerierService/LabelNames',
        body: { matchers: [] },
        expect: /"names":\["namespace","service_name"\]/,
      },
      {
        method: 'POST',
        path: '/querier.v1.QuerierService/LabelValues',
        body: { name: 'service_name' },
        expect: /"names":\["checkout","frontend"\]/,
      },
    ],
    denied: [
      { method: 'GET', path: '/ready' },
      { method: 'GET', path: '/querier.v1.QuerierService/ProfileTypes' },
      { method: 'POST', path: '/ingest' },
      { method: 'POST', path: '/querier.v1.QuerierService/SelectMergeStacktraces' },
    ],
  },
];

describe('suggested allowedEndpoints of the Loki, Tempo and Pyroscope datasources, through the proxy', function () {
  this.timeout(60_000);
  const registry = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
  let s: TestServer;
  const fakes = new Map<string, RunningFake>();
  before(async () => {
    s = await startTestServer();
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
    for (const k of KINDS) fakes.set(k.kind, await k.start());
  });
  after(async () => {
    await s?.stop();
    for (const f of fakes.values()) await f.stop();
  });

  for (const k of KINDS) {
    describe(k.kind, () => {
      const name = k.kind.replace('Datasource', '').toLowerCase();
      const proxyPath = `/proxy/projects/p/datasources/${name}`;

      it("GET /api/v1/plugins offers the catalog's allowedEndpoints for it, and every one is among the calls below", async () => {
        const endpoints = registry.get(k.kind)?.allowedEndpoints;
        expect(endpoints, `${k.kind} has suggested allowedEndpoints in schemas/plugins/catalog.json`).to.be.an('array').that.is.not.empty;
        const modules = (await s.api('GET', '/api/v1/plugins')).body as {
          spec: { plugins: { spec: { name: string; allowedEndpoints?: unknown } }[] };
        }[];
        const served = modules.flatMap((m) => m.spec.plugins).find((p) => p.spec.name === k.kind);
        expect(served?.spec.allowedEndpoints).to.deep.equal(endpoints);
        for (const e of endpoints!) {
          const re = new RegExp(`^(?:${e.endpointPattern})$`);
          expect(
            k.allowed.some((c) => c.method === e.method && re.test(decodeURIComponent(c.path.split('?')[0]))),
            `${e.method} ${e.endpointPattern} is exercised`,
          ).to.equal(true);
        }
      });

      it("a datasource saved with them passes each call its plugin makes to the service, with the service's answer", async () => {
        const fake = fakes.get(k.kind)!;
        const spec = {
          default: false,
          plugin: {
            kind: k.kind,
            spec: { proxy: { kind: 'HTTPProxy', spec: { url: fake.url, allowedEndpoints: registry.get(k.kind)!.allowedEndpoints } } },
          },
        };
        const save = await s.api('POST', '/api/v1/projects/p/datasources', { kind: 'Datasource', metadata: { name }, spec });
        expect(save.status, save.text).to.equal(200);
        for (const c of k.allowed) {
          const r = await s.api(c.method, `${proxyPath}${c.path}`, c.body);
          expect(r.status, `${c.method} ${c.path}: ${r.text}`).to.equal(200);
          expect(r.text, `${c.method} ${c.path}`).to.match(c.expect);
          const seen = fake.requests.at(-1)!;
          expect(`${seen.method} ${seen.path}`).to.equal(`${c.method} ${c.path.split('?')[0]}`);
        }
      });

      it('other paths and methods answer 403 naming allowedEndpoints, and never reach the service', async () => {
        const fake = fakes.get(k.kind)!;
        const before = fake.requests.length;
        for (const d of k.denied) {
          const r = await s.api(d.method, `${proxyPath}${d.path}`, d.method === 'GET' || d.method === 'DELETE' ? undefined : {});
          expect(r.status, `${d.method} ${d.path}: ${r.text}`).to.equal(403);
          expect(r.body.message).to.include('allowedEndpoints');
        }
        expect(fake.requests.length, 'requests that reached the service').to.equal(before);
      });
    });
  }
});
