/**
 * The datasource proxy (docs/api.md §8) against a real Prometheus (Debian package, see .ci/run), through
 * the three route families, with the Perses plugin kinds PrometheusDatasource and its synonym
 * MetricsDatasource; allowedEndpoints with the defaults of the Perses datasource editor; secret
 * injection (checked on an echo server, since Prometheus ignores credentials); authentication and
 * permissions; and a test-local copy of the requests the Perses Prometheus plugin makes.
 */
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { PERSES_EDITOR_ALLOWED_ENDPOINTS, startPrometheus, type RunningPrometheus } from './helpers/prometheus.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const proxyBlock = (url: string, extra: Record<string, unknown> = {}) => ({ kind: 'HTTPProxy', spec: { url, ...extra } });
const dsSpec = (pluginKind: string, url: string, extra: Record<string, unknown> = {}) => ({
  default: false,
  plugin: { kind: pluginKind, spec: { proxy: proxyBlock(url, extra) } },
});
const globalDs = (name: string, spec: unknown) => ({ kind: 'GlobalDatasource', metadata: { name }, spec });
const projectDs = (name: string, spec: unknown) => ({ kind: 'Datasource', metadata: { name }, spec });
const dashboardWith = (name: string, datasources: Record<string, unknown>) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name }, duration: '1h', datasources, panels: {}, layouts: [] },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

/** Prometheus' success envelope, with the status and body in the assertion message. */
function promData(r: ApiResponse): any {
  expect(r.status, r.text).to.equal(200);
  expect(r.body?.status, r.text).to.equal('success');
  return r.body.data;
}

/**
 * "Now" in unix seconds, rounded up: Prometheus was just started, so its first samples are at most
 * a few seconds old, and a range ending at floor(now) could end before them.
 */
const nowS = () => Math.ceil(Date.now() / 1000) + 1;

/**
 * The client functions of `@perses-dev/prometheus-plugin` 0.53.4 (`model/prometheus-client.js`)
 * itself — the code the web UI runs — called from Node with the proxy URL as the
 * datasource URL. `fetchJson` of @perses-dev/core throws on a non-2xx answer.
 */
type Params = Record<string, unknown>;
interface PluginClient {
  healthCheck(o: QueryOptions): () => Promise<boolean>;
  [call: string]: any;
}
interface QueryOptions {
  datasourceUrl: string;
  headers: Record<string, string>;
}
const plugin = createRequire(import.meta.url)('@perses-dev/prometheus-plugin/lib/cjs/model/prometheus-client.js') as PluginClient;
function persesPrometheusClient(datasourceUrl: string, headers: Record<string, string> = {}) {
  const o: QueryOptions = { datasourceUrl, headers };
  const call = (name: string) => (p: Params) => plugin[name](p, o) as Promise<any>;
  return {
    healthCheck: () => plugin.healthCheck(o)(),
    instantQuery: call('instantQuery'),
    rangeQuery: call('rangeQuery'),
    labelNames: call('labelNames'),
    labelValues: call('labelValues'),
    series: call('series'),
    metricMetadata: call('metricMetadata'),
    parseQuery: call('parseQuery'),
  };
}

/** One request with node:http, the path sent exactly as given. */
function rawHttp(origin: string, method: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}/`, { method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A node:http server that records every request and answers JSON (Prometheus ignores auth). */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
async function startEcho(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', 'upstream=1; Path=/');
      res.end(JSON.stringify({ status: 'success', data: { echoed: true } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('datasource proxy against a real Prometheus', function () {
  needsPrograms('prometheus');
  this.timeout(30_000);
  let prom: RunningPrometheus;

  before(async function () {
    this.timeout(30_000);
    prom = await startPrometheus();
  });
  after(() => prom?.stop());

  describe('without authentication', () => {
    let s: TestServer;
    let echo: Awaited<ReturnType<typeof startEcho>>;

    /** Every proxy URL under test, by plugin kind and route family. */
    const routes: { label: string; base: string }[] = [];
    for (const [kind, short] of [
      ['PrometheusDatasource', 'prom'],
      ['MetricsDatasource', 'metrics'],
    ] as const) {
      routes.push(
        { label: `${kind} via /proxy/globaldatasources`, base: `/proxy/globaldatasources/${short}-g` },
        { label: `${kind} via /proxy/projects/{p}/datasources`, base: `/proxy/projects/p/datasources/${short}-p` },
        {
          label: `${kind} via /proxy/projects/{p}/dashboards/{d}/datasources`,
          base: `/proxy/projects/p/dashboards/dash-${short}/datasources/${short}-l`,
        },
      );
    }

    before(async () => {
      s = await startTestServer();
      echo = await startEcho();
      await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }));
      for (const [kind, short] of [
        ['PrometheusDatasource', 'prom'],
        ['MetricsDatasource', 'metrics'],
      ]) {
        await ok(s.api('POST', '/api/v1/globaldatasources', globalDs(`${short}-g`, dsSpec(kind, prom.url))));
        await ok(s.api('POST', '/api/v1/projects/p/datasources', projectDs(`${short}-p`, dsSpec(kind, prom.url))));
        await ok(
          s.api('POST', '/api/v1/projects/p/dashboards', dashboardWith(`dash-${short}`, { [`${short}-l`]: dsSpec(kind, prom.url) })),
        );
      }
      // Only a directUrl: the browser queries Prometheus itself.
      const direct = { default: false, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: prom.url } } };
      await ok(s.api('POST', '/api/v1/globaldatasources', globalDs('direct-g', direct)));
      await ok(s.api('POST', '/api/v1/projects/p/datasources', projectDs('direct-p', direct)));
      await ok(s.api('POST', '/api/v1/projects/p/dashboards', dashboardWith('dash-direct', { 'direct-l': direct })));
      // The editor's default allowedEndpoints.
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/p/datasources',
          projectDs('limited', dsSpec('PrometheusDatasource', prom.url, { allowedEndpoints: PERSES_EDITOR_ALLOWED_ENDPOINTS })),
        ),
      );
      // Secrets, injected by the proxy: checked on the echo server.
      await ok(
        s.api('POST', '/api/v1/projects/p/secrets', {
          kind: 'Secret',
          metadata: { name: 'basic' },
          spec: { basicAuth: { username: 'alice', password: 'pa:ss wörd' } },
        }),
      );
      await ok(
        s.api('POST', '/api/v1/globalsecrets', {
          kind: 'GlobalSecret',
          metadata: { name: 'g-basic' },
          spec: { basicAuth: { username: 'gus', password: 'global-pw' } },
        }),
      );
      await ok(
        s.api('POST', '/api/v1/projects/p/secrets', {
          kind: 'Secret',
          metadata: { name: 'token' },
          spec: { authorization: { type: 'Bearer', credentials: 'upstream-token' } },
        }),
      );
      await ok(
        s.api('POST', '/api/v1/globaldatasources', globalDs('echo-g', dsSpec('PrometheusDatasource', echo.url, { secret: 'g-basic' }))),
      );
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/p/datasources',
          projectDs('echo-p', dsSpec('PrometheusDatasource', echo.url, { secret: 'basic', headers: { 'X-Scope-OrgID': 'tenant-1' } })),
        ),
      );
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/p/datasources',
          projectDs('echo-token', dsSpec('PrometheusDatasource', echo.url, { secret: 'token' })),
        ),
      );
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/p/dashboards',
          dashboardWith('dash-echo', { 'echo-l': dsSpec('PrometheusDatasource', `${echo.url}/base/path`, { secret: 'basic' }) }),
        ),
      );
    });
    after(async () => {
      try {
        await s?.stop();
      } finally {
        await echo?.close();
      }
    });

    for (const { label, base } of routes) {
      describe(label, () => {
        it('instant query of up with GET and a query string', async () => {
          const data = promData(await s.raw('GET', `${base}/api/v1/query?query=up`));
          expect(data.resultType).to.equal('vector');
          expect(data.result.map((r: any) => r.metric.job)).to.include('prometheus');
          expect(data.result[0].metric.__name__).to.equal('up');
        });

        it('instant query of up with POST form-encoded query=up: the body arrives intact', async () => {
          const r = await s.raw('POST', `${base}/api/v1/query`, 'query=up', FORM);
          const data = promData(r);
          expect(data.result, 'the form body reached Prometheus').to.have.length.greaterThan(0);
          expect(data.result[0].metric).to.include({ __name__: 'up', job: 'prometheus' });
          expect(data.result[0].value[1]).to.equal('1');
          expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
          expect(r.headers.get('content-security-policy')).to.equal('sandbox');
        });

        it('range query with POST form query, start, end, step', async () => {
          const end = nowS();
          const body = new URLSearchParams({
            query: 'sum by (job) (up{job="prometheus"})',
            start: String(end - 60),
            end: String(end),
            step: '1',
          }).toString();
          const data = promData(await s.raw('POST', `${base}/api/v1/query_range`, body, FORM));
          expect(data.resultType).to.equal('matrix');
          expect(data.result).to.have.length(1);
          expect(data.result[0].metric).to.deep.equal({ job: 'prometheus' });
          expect(data.result[0].values.length).to.be.greaterThan(0);
        });

        it('GET /api/v1/label/job/values', async () => {
          expect(promData(await s.raw('GET', `${base}/api/v1/label/job/values`))).to.include('prometheus');
        });

        it('GET /-/healthy', async () => {
          const r = await s.raw('GET', `${base}/-/healthy`);
          expect(r.status, r.text).to.equal(200);
          expect(r.text).to.match(/Healthy/);
        });

        it('the requests of the Perses Prometheus plugin, as the UI sends them', async () => {
          const client = persesPrometheusClient(s.url + base);
          expect(await client.healthCheck()).to.equal(true);
          const end = nowS();
          const start = end - 300;
          // What rendering prometheus-overview sends, then the other calls of the Prometheus client.
          const lv = await client.labelValues({ labelName: 'job', 'match[]': ['prometheus_build_info{}'], start, end });
          expect(lv.data).to.deep.equal(['prometheus']);
          const iq = await client.instantQuery({ query: 'count(up{job="prometheus"})', time: end });
          expect(iq.data.result[0].value[1]).to.equal('1');
          const step = 15;
          const rq = await client.rangeQuery({
            query: 'rate(prometheus_http_requests_total[1m])',
            start: Math.floor(start / step) * step,
            end: Math.ceil(end / step) * step,
            step,
          });
          expect(rq.status).to.equal('success');
          expect(rq.data.resultType).to.equal('matrix');
          expect((await client.labelNames({ start, end })).data).to.include.members(['__name__', 'job', 'instance']);
          expect((await client.labelNames({ start, end, 'match[]': ['up'] })).data).to.include('job');
          const series = await client.series({ 'match[]': ['up', 'prometheus_build_info'], start, end });
          expect(series.data.map((x: any) => x.__name__)).to.include.members(['up', 'prometheus_build_info']);
          const md = await client.metricMetadata({ metric: 'prometheus_build_info' });
          expect(md.data).to.have.property('prometheus_build_info');
          expect((await client.labelValues({ labelName: '' })).data).to.deep.equal([]);
        });
      });
    }

    it('a form body of 60 kB goes through unchanged', async () => {
      const query = `count(up{job=~"prometheus|${'x'.repeat(60_000)}"})`;
      const data = promData(
        await s.raw('POST', '/proxy/projects/p/datasources/prom-p/api/v1/query', new URLSearchParams({ query }).toString(), FORM),
      );
      expect(data.result[0].value[1]).to.equal('1');
    });

    it('a Prometheus error (bad PromQL) comes back with its status and JSON body', async () => {
      const r = await s.raw('POST', '/proxy/globaldatasources/prom-g/api/v1/query', 'query=up%7B', FORM);
      expect(r.status, r.text).to.equal(400);
      expect(r.body).to.include({ status: 'error', errorType: 'bad_data' });
    });

    for (const base of [
      '/proxy/globaldatasources/direct-g',
      '/proxy/projects/p/datasources/direct-p',
      '/proxy/projects/p/dashboards/dash-direct/datasources/direct-l',
    ]) {
      it(`a datasource with only directUrl is 400 saying clients query it directly (${base})`, async () => {
        for (const r of [
          await s.raw('GET', `${base}/api/v1/query?query=up`),
          await s.raw('POST', `${base}/api/v1/query`, 'query=up', FORM),
        ]) {
          expect(r.status, r.text).to.equal(400);
          expect(r.body.message).to.match(/clients query it directly/);
        }
      });
    }

    describe('allowedEndpoints with the Perses editor defaults', () => {
      const base = '/proxy/projects/p/datasources/limited';

      it('allows every call the UI makes', async () => {
        const client = persesPrometheusClient(s.url + base);
        const end = nowS();
        const start = end - 300;
        expect((await client.instantQuery({ query: 'up', time: end })).data.result).to.have.length.greaterThan(0);
        expect((await client.rangeQuery({ query: 'up', start, end, step: 15 })).data.result).to.have.length.greaterThan(0);
        expect((await client.labelNames({ start, end })).data).to.include('job');
        expect((await client.labelValues({ labelName: 'job', 'match[]': ['up'], start, end })).data).to.include('prometheus');
        expect((await client.labelValues({ labelName: 'instance' })).data).to.have.length(1);
        expect((await client.series({ 'match[]': ['up'], start, end })).data).to.have.length.greaterThan(0);
        expect((await client.metricMetadata({})).data).to.have.property('prometheus_build_info');
        // Allowed by the proxy; Prometheus 2.42 (Debian 12) has no parse_query, so its own 404.
        const pq = await s.raw('POST', `${base}/api/v1/parse_query`, 'query=up', FORM);
        expect(pq.status, pq.text).to.equal(404);
        expect(pq.body?.message ?? '').not.to.match(/allowedEndpoints/);
      });

      const refused: [string, string, string?][] = [
        ['GET', '/api/v1/query?query=up'], // method is part of the rule
        ['POST', '/api/v1/label/job/values', ''],
        ['GET', '/-/healthy'],
        ['GET', '/api/v1/status/config'],
        ['POST', '/api/v1/admin/tsdb/snapshot', ''],
        ['POST', '/api/v1/queryx', 'query=up'], // anchored: no prefix match
        ['POST', '/api/v1/query/extra', 'query=up'],
        ['GET', '/api/v1/label/job/values/extra'],
        ['GET', '/x/api/v1/metadata'],
        ['GET', ''],
      ];
      for (const [method, path, body] of refused) {
        it(`refuses ${method} ${path || '(no path)'} with 403`, async () => {
          const r = await s.raw(method, `${base}${path}`, body, body === undefined ? {} : FORM);
          expect(r.status, r.text).to.equal(403);
          expect(r.body.message).to.match(/allowedEndpoints/);
        });
      }

      it('an escaping path is 400, not forwarded', async () => {
        // node:http sends the path as written (fetch would resolve %2e%2e itself).
        for (const path of [
          '/api/v1/label/..%2F..%2Fadmin/values',
          '/api/v1/%2e%2e/status/config',
          '/api/v1/label/%2E%2E/values',
          '/api/v1/label/..%5c..%5cadmin/values',
        ]) {
          const r = await rawHttp(s.url, 'GET', `${base}${path}`);
          expect(r.status, `${path}: ${r.text}`).to.equal(400);
        }
      });
    });

    describe('secret injection (echo server as the upstream)', () => {
      const callerHeaders = {
        authorization: 'Bearer caller-token-XYZ',
        cookie: 'jwtAccessToken=caller-cookie-XYZ; jwtRefreshToken=refresh-XYZ',
        'x-forwarded-for': '203.0.113.9',
        'proxy-authorization': 'Basic caller-proxy-XYZ',
      };
      const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
      const last = () => echo.seen[echo.seen.length - 1];
      const nothingFromCaller = (seen: Seen) => {
        const all = JSON.stringify(seen.headers);
        expect(all).not.to.include('XYZ');
        expect(seen.headers.cookie).to.equal(undefined);
        expect(seen.headers['x-forwarded-for']).to.equal(undefined);
        expect(seen.headers['proxy-authorization']).to.equal(undefined);
      };

      it('project Datasource + Secret basicAuth: Authorization: Basic alice:<password>, configured headers, the form body, nothing of the caller', async () => {
        const r = await s.raw('POST', '/proxy/projects/p/datasources/echo-p/api/v1/query?x=1', 'query=up&time=1700000010', {
          ...FORM,
          ...callerHeaders,
        });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.data).to.deep.equal({ echoed: true });
        expect(r.headers.get('set-cookie'), 'upstream Set-Cookie is dropped').to.equal(null);
        const seen = last();
        expect(seen.method).to.equal('POST');
        expect(seen.url).to.equal('/api/v1/query?x=1');
        expect(seen.headers.authorization).to.equal(basic('alice', 'pa:ss wörd'));
        expect(seen.headers['content-type']).to.equal('application/x-www-form-urlencoded');
        expect(seen.headers['x-scope-orgid']).to.equal('tenant-1');
        // a time that is a multiple of proxy.cache.resolution (15 s): the query cache's alignment leaves it as it is
        expect(seen.body).to.equal('query=up&time=1700000010');
        nothingFromCaller(seen);
      });

      it('GlobalDatasource + GlobalSecret basicAuth', async () => {
        const r = await s.raw('GET', '/proxy/globaldatasources/echo-g/api/v1/label/job/values', undefined, callerHeaders);
        expect(r.status, r.text).to.equal(200);
        const seen = last();
        expect(seen.url).to.equal('/api/v1/label/job/values');
        expect(seen.headers.authorization).to.equal(basic('gus', 'global-pw'));
        nothingFromCaller(seen);
      });

      it('dashboard-local datasource + project Secret, under the datasource URL base path', async () => {
        const r = await s.raw('GET', '/proxy/projects/p/dashboards/dash-echo/datasources/echo-l/-/healthy', undefined, callerHeaders);
        expect(r.status, r.text).to.equal(200);
        const seen = last();
        expect(seen.url).to.equal('/base/path/-/healthy');
        expect(seen.headers.authorization).to.equal(basic('alice', 'pa:ss wörd'));
        nothingFromCaller(seen);
      });

      it('Secret authorization: Authorization: Bearer <credentials>', async () => {
        const r = await s.raw('GET', '/proxy/projects/p/datasources/echo-token/api/v1/metadata', undefined, callerHeaders);
        expect(r.status, r.text).to.equal(200);
        expect(last().headers.authorization).to.equal('Bearer upstream-token');
        nothingFromCaller(last());
      });

      it("without a secret the caller's Authorization is not forwarded either", async () => {
        await ok(s.api('POST', '/api/v1/projects/p/datasources', projectDs('echo-nosecret', dsSpec('PrometheusDatasource', echo.url))));
        const r = await s.raw('GET', '/proxy/projects/p/datasources/echo-nosecret/api/v1/metadata', undefined, callerHeaders);
        expect(r.status, r.text).to.equal(200);
        expect(last().headers.authorization).to.equal(undefined);
        nothingFromCaller(last());
      });

      it('the secrets read back masked', async () => {
        const r = await ok(s.api('GET', '/api/v1/projects/p/secrets/basic'));
        expect(r.body.spec.basicAuth).to.deep.equal({ username: 'alice', password: '<secret>' });
        const t = await ok(s.api('GET', '/api/v1/projects/p/secrets/token'));
        expect(t.body.spec.authorization.credentials).to.equal('<secret>');
        const g = await ok(s.api('GET', '/api/v1/globalsecrets'));
        expect(g.text).not.to.include('global-pw');
      });
    });
  });

  describe('with authentication', () => {
    let s: TestServer;
    let admin: Tokens;
    const t: Record<string, Tokens> = {};

    before(async () => {
      s = await startAuthServer(LOOPBACK_UPSTREAMS);
      admin = await loginAdmin(s);
      for (const name of ['olga', 'nobody']) {
        await signUp(s, name);
        t[name] = await login(s, name);
      }
      await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'ap' }, spec: {} }, bearer(t.olga)));
      await ok(
        s.api('POST', '/api/v1/projects/ap/datasources', projectDs('prom', dsSpec('PrometheusDatasource', prom.url)), bearer(t.olga)),
      );
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/ap/dashboards',
          dashboardWith('d', { local: dsSpec('PrometheusDatasource', prom.url) }),
          bearer(t.olga),
        ),
      );
      await ok(s.api('POST', '/api/v1/globaldatasources', globalDs('gprom', dsSpec('PrometheusDatasource', prom.url)), bearer(admin)));
    });
    after(() => s?.stop());

    const project = ['/proxy/projects/ap/datasources/prom', '/proxy/projects/ap/dashboards/d/datasources/local'];

    it('no token: 401 on every route family (and on a project that does not exist)', async () => {
      for (const base of [...project, '/proxy/globaldatasources/gprom', '/proxy/projects/nope/datasources/prom']) {
        const r = await s.raw('POST', `${base}/api/v1/query`, 'query=up', FORM);
        expect(r.status, `${base}: ${r.text}`).to.equal(401);
        expect(r.text).not.to.include('"result"');
      }
    });

    it('a user without read on the project: 403', async () => {
      for (const base of project) {
        const r = await s.raw('POST', `${base}/api/v1/query`, 'query=up', { ...FORM, ...bearer(t.nobody) });
        expect(r.status, `${base}: ${r.text}`).to.equal(403);
        expect(r.text).not.to.include('"result"');
      }
    });

    it('the project owner: 200 with the series (token in Authorization, which is not forwarded)', async () => {
      for (const base of project) {
        const r = await s.raw('POST', `${base}/api/v1/query`, 'query=up', { ...FORM, ...bearer(t.olga) });
        expect(promData(r).result[0].metric).to.include({ __name__: 'up', job: 'prometheus' });
        const client = persesPrometheusClient(s.url + base, bearer(t.olga));
        expect(await client.healthCheck()).to.equal(true);
        expect((await client.labelValues({ labelName: 'job' })).data).to.include('prometheus');
      }
    });

    it('the admin through the GlobalDatasource: 200', async () => {
      const r = await s.raw('POST', '/proxy/globaldatasources/gprom/api/v1/query', 'query=up', { ...FORM, ...bearer(admin) });
      expect(promData(r).result).to.have.length.greaterThan(0);
    });
  });
});
