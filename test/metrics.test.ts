import { expect } from 'chai';
import { createServer } from 'node:http';
import { AUTH_ENV, LOOPBACK_UPSTREAMS } from './helpers/auth.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';

/** The value of one sample line of the exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([^{\s]+)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', function () {
  this.timeout(30_000);
  let s: TestServer;
  const metrics = async () => (await s.raw('GET', '/metrics')).text;
  before(async () => {
    s = await startTestServer({ env: { ...AUTH_ENV, ...LOOPBACK_UPSTREAMS } });
  });
  after(() => s.stop());

  it('is anonymous, in the Prometheus text format, with build info', async () => {
    const r = await s.raw('GET', '/metrics');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^text\/plain/);
    expect(sample(r.text, 'dashplane_build_info')).to.equal(1);
  });

  it('counts requests by route template, method and status, and store operations', async () => {
    for (let i = 0; i < 3; i++) await s.api('GET', `/api/v1/projects/p${i}`);
    const text = await metrics();
    expect(
      sample(text, 'dashplane_http_request_duration_seconds_count', { route: '/api/v1/projects/:name', method: 'GET', status: '401' }),
    ).to.be.at.least(3);
    expect(sample(text, 'dashplane_store_operation_duration_seconds_count', { operation: 'get', outcome: 'ok' })).to.be.greaterThan(0);
  });

  it('X-Request-Id: a plain caller id is kept and returned; anything else is replaced by a UUID', async () => {
    expect((await s.api('GET', '/api/v1/health', undefined, { 'x-request-id': 'ci-job-42.step:3' })).headers.get('x-request-id')).to.equal(
      'ci-job-42.step:3',
    );
    const replaced = (await s.api('GET', '/api/v1/health', undefined, { 'x-request-id': 'bad id\twith "quotes"' })).headers.get(
      'x-request-id',
    );
    expect(replaced).to.match(/^[0-9a-f-]{36}$/);
    expect((await s.api('GET', '/api/v1/health')).headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('counts failed logins and rate-limited ones', async () => {
    for (let i = 0; i < 12; i++) await s.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: `wrong-${i}` });
    const text = await metrics();
    expect(sample(text, 'dashplane_login_failures_total')).to.be.at.least(10);
    expect(sample(text, 'dashplane_login_rate_limited_total')).to.be.at.least(1);
  });
});

describe('GET /metrics (auth off): watch, proxy, reaper', function () {
  this.timeout(30_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} });
  });
  after(() => s.stop());
  const metrics = async () => (await s.raw('GET', '/metrics')).text;

  it('open watch streams go up and down', async () => {
    const w = await WatchStream.must(`${s.url}/api/v1/projects/p/folders?watch=true`);
    expect(sample(await metrics(), 'dashplane_watch_streams')).to.equal(1);
    await w.close();
    await waitFor('the stream to be counted closed', async () => sample(await metrics(), 'dashplane_watch_streams') === 0, 5_000);
  });

  it('proxy exchanges are timed by datasource and status; the query cache counts hits, coalesced, misses and bypasses, and its entries and bytes', async () => {
    const upstream = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
      await s.api('POST', '/api/v1/projects/p/datasources', {
        kind: 'Datasource',
        metadata: { name: 'echo' },
        spec: { plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } } },
      });
      const query = (q: string) => s.raw('GET', `/proxy/projects/p/datasources/echo/api/v1/query?query=${q}`);
      const cache = async (result: string) =>
        sample(await metrics(), 'dashplane_proxy_cache_requests_total', { datasource: 'Datasource/p/echo', result }) ?? 0;
      expect((await query('a')).status).to.equal(200);
      expect(
        sample(await metrics(), 'dashplane_proxy_upstream_duration_seconds_count', { datasource: 'Datasource/p/echo', status: '200' }),
      ).to.equal(1);
      // the same query again is answered by the query cache: no exchange, a hit
      const again = await query('a');
      expect(again.status).to.equal(200);
      expect(again.headers.get('x-dashplane-cache')).to.equal('hit');
      expect(
        sample(await metrics(), 'dashplane_proxy_upstream_duration_seconds_count', { datasource: 'Datasource/p/echo', status: '200' }),
      ).to.equal(1);
      expect([await cache('miss'), await cache('hit'), await cache('coalesced'), await cache('bypass')]).to.deep.equal([1, 1, 0, 0]);
      expect((await query('b')).status).to.equal(200);
      expect(
        sample(await metrics(), 'dashplane_proxy_upstream_duration_seconds_count', { datasource: 'Datasource/p/echo', status: '200' }),
      ).to.equal(2);
      // a request that is not shared (no-cache) is counted as bypass
      expect(
        (
          await s.raw('GET', '/proxy/projects/p/datasources/echo/api/v1/query?query=a', undefined, { 'cache-control': 'no-cache' })
        ).headers.get('x-dashplane-cache'),
      ).to.equal('bypass');
      expect(await cache('bypass')).to.equal(1);
      const kept = await metrics();
      expect(sample(kept, 'dashplane_proxy_cache_entries', {})).to.equal(2);
      expect(sample(kept, 'dashplane_proxy_cache_bytes', {})).to.be.above(2 * 256);
      // a failed exchange is counted under the error kind
      await new Promise((r) => upstream.close(r));
      expect((await query('c')).status).to.equal(502);
      expect(
        sample(await metrics(), 'dashplane_proxy_upstream_duration_seconds_count', {
          datasource: 'Datasource/p/echo',
          status: 'BadGateway',
        }),
      ).to.equal(1);
    } finally {
      upstream.close();
    }
  });

  it('requests the client gave up on are counted too: a watch it closed (its status), a proxied query it cancelled (499; proxy status "cancelled")', async () => {
    const watchRoute = { route: '/api/v1/projects/:project/variables', method: 'GET', status: '200' };
    const before = sample(await metrics(), 'dashplane_http_request_duration_seconds_count', watchRoute) ?? 0;
    const w = await WatchStream.must(`${s.url}/api/v1/projects/p/variables?watch=true`);
    await w.close();
    await waitFor(
      'the closed watch to be counted',
      async () => (sample(await metrics(), 'dashplane_http_request_duration_seconds_count', watchRoute) ?? 0) === before + 1,
      5_000,
    );

    let answer: (() => void) | undefined;
    const slow = createServer((_req, res) => {
      answer = () => res.end('{}');
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
      await s.api('POST', '/api/v1/projects/p/datasources', {
        kind: 'Datasource',
        metadata: { name: 'slow' },
        spec: { plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } } },
      });
      const ac = new AbortController();
      const pending = fetch(`${s.url}/proxy/projects/p/datasources/slow/api/v1/query`, { signal: ac.signal }).catch(() => undefined);
      await waitFor('the upstream to be called', () => answer !== undefined, 5_000);
      ac.abort();
      await pending;
      const proxyRoute = { route: '/proxy/projects/:project/datasources/:name/*', method: 'GET', status: '499' };
      await waitFor(
        'the cancelled query to be counted',
        async () => sample(await metrics(), 'dashplane_http_request_duration_seconds_count', proxyRoute) === 1,
        5_000,
      );
      expect(
        sample(await metrics(), 'dashplane_proxy_upstream_duration_seconds_count', {
          datasource: 'Datasource/p/slow',
          status: 'cancelled',
        }),
      ).to.equal(1);
    } finally {
      answer?.();
      slow.close();
    }
  });

  it('the example monitoring dashboard (examples/monitoring) is a valid dashboard', async () => {
    const { readResources } = await import('./helpers/manifests.js');
    const { PACKAGE_ROOT } = await import('../src/paths.js');
    const [dash] = readResources(`${PACKAGE_ROOT}/examples/monitoring/dashplane-dashboard.yaml`);
    const r = await s.api('POST', '/api/v1/projects/p/dashboards', dash);
    expect(r.status, r.text).to.equal(200);
    expect(Object.keys(r.body.spec.panels)).to.have.length(7);
  });

  it('reaper deletions are counted', async () => {
    await s.api('POST', '/api/v1/projects/p/ephemeraldashboards', {
      kind: 'EphemeralDashboard',
      metadata: { name: 'e' },
      spec: { ttl: '1s', panels: {}, layouts: [] },
    });
    await waitFor('the reaper to delete it', async () => sample(await metrics(), 'dashplane_reaper_deletions_total') === 1, 10_000);
  });
});
