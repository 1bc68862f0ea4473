/**
 * Issue 38: no viewer ever gets a result for a query other than its own. Many requests at once,
 * mixing users (with and without permission), datasources (one URL, other Secrets and base paths,
 * a dashboard's own), queries, steps and clocks, against a stand-in that answers each request with
 * a body naming it; then viewers of the Perses Demo dashboard (the UI tests' dashboard) against a
 * real Prometheus, whose answers must equal Prometheus' own for the aligned query.
 */
import { expect } from 'chai';
import { bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { type Answered, type CountingUpstream, startCountingUpstream } from './helpers/counting-upstream.js';
import { needsPrograms } from './helpers/programs.js';
import type { TestServer } from './helpers/server.js';
import { startUiStack, type UiStack } from './helpers/ui-stack.js';
import { panelQueries, panelQuery, viewerWindow } from './helpers/viewers.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const datasource = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url, ...extra } } } } },
});
const basic = (password: string) => `Basic ${Buffer.from(`svc:${password}`).toString('base64')}`;
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];

describe('proxy query cache: every viewer gets the answer to its own query (issue 38)', function () {
  this.timeout(120_000);
  let s: TestServer;
  let up: CountingUpstream;
  const users: Record<string, Tokens> = {};

  /** Where each datasource's requests arrive at the stand-in (its own base path) and with which credentials. */
  const targets = [
    { path: '/proxy/projects/a/datasources/one', project: 'a', base: '/one', authorization: basic('one') },
    { path: '/proxy/projects/a/datasources/two', project: 'a', base: '/two', authorization: basic('two') },
    { path: '/proxy/projects/a/datasources/same', project: 'a', base: '/one', authorization: null },
    { path: '/proxy/projects/a/dashboards/d/datasources/local', project: 'a', base: '/local', authorization: null },
    { path: '/proxy/projects/b/datasources/one', project: 'b', base: '/b', authorization: null },
  ];
  /** Who may read which project. */
  const readers: Record<string, string[]> = { alice: ['a'], carol: ['b'], bob: [], admin: ['a', 'b'] };

  before(async () => {
    up = await startCountingUpstream();
    // answers kept long enough that no key is sent twice during the test
    s = await startAuthServer({ ...LOOPBACK_UPSTREAMS, DASHPLANE_PROXY_CACHE_TTL: '5m' });
    users.admin = await loginAdmin(s);
    for (const name of ['alice', 'carol', 'bob']) {
      await signUp(s, name);
      users[name] = await login(s, name);
    }
    const create = async (path: string, body: unknown, who: Tokens) => {
      const r = await s.api('POST', path, body, bearer(who));
      expect(r.status, `${path}: ${r.text}`).to.equal(200);
    };
    await create('/api/v1/projects', { kind: 'Project', metadata: { name: 'a' }, spec: {} }, users.alice);
    await create('/api/v1/projects', { kind: 'Project', metadata: { name: 'b' }, spec: {} }, users.carol);
    for (const [name, password] of [
      ['s1', 'one'],
      ['s2', 'two'],
    ]) {
      await create(
        '/api/v1/projects/a/secrets',
        { kind: 'Secret', metadata: { name }, spec: { basicAuth: { username: 'svc', password } } },
        users.alice,
      );
    }
    await create('/api/v1/projects/a/datasources', datasource('one', `${up.url}/one`, { secret: 's1' }), users.alice);
    await create('/api/v1/projects/a/datasources', datasource('two', `${up.url}/two`, { secret: 's2' }), users.alice);
    await create('/api/v1/projects/a/datasources', datasource('same', `${up.url}/one`), users.alice);
    const local = datasource('local', `${up.url}/local`).spec;
    await create(
      '/api/v1/projects/a/dashboards',
      {
        kind: 'Dashboard',
        metadata: { name: 'd' },
        spec: { display: { name: 'd' }, duration: '1h', panels: {}, layouts: [], datasources: { local } },
      },
      users.alice,
    );
    await create('/api/v1/projects/b/datasources', datasource('one', `${up.url}/b`), users.carol);
  });
  after(async () => {
    await s?.stop();
    await up?.stop();
  });

  it('PROXY-27: 600 requests at once mixing users, datasources, queries, steps and clocks: each gets its own answer or its 403, and each distinct query goes upstream once', async () => {
    const queries = ['up', 'rate(http_requests_total[5m])', 'sum by (job) (up)', 'node_load1', 'up == 1', 'count(up)'];
    const base = 1_700_000_000;
    const asks = Array.from({ length: 600 }, () => {
      const step = pick([15, 30, 60]);
      const end = base + Math.floor(Math.random() * 90);
      return {
        user: pick(Object.keys(readers)),
        target: pick(targets),
        query: pick(queries),
        step,
        start: end - 3600,
        end,
        instant: Math.random() < 0.2,
      };
    });
    const results = await Promise.all(
      asks.map(async (a) => {
        const form = a.instant
          ? `query=${encodeURIComponent(a.query)}&time=${a.end}`
          : `query=${encodeURIComponent(a.query)}&start=${a.start}&end=${a.end}&step=${a.step}`;
        const r = await s.raw('POST', `${a.target.path}/api/v1/${a.instant ? 'query' : 'query_range'}`, form, {
          ...FORM,
          ...bearer(users[a.user]),
        });
        return { a, r };
      }),
    );
    const keys = new Set<string>();
    let shared = 0;
    for (const { a, r } of results) {
      const allowed = readers[a.user].includes(a.target.project);
      if (!allowed) {
        expect(r.status, `${a.user} ${a.target.path}: ${r.text}`).to.equal(403);
        expect(r.text).to.not.include('asked');
        continue;
      }
      expect(r.status, r.text).to.equal(200);
      const got = (r.body as Answered).asked;
      const params = Object.fromEntries(got.params);
      const what = `${a.user} ${a.target.path} ${JSON.stringify(a)} got ${JSON.stringify(got)}`;
      expect(got.path, what).to.equal(`${a.target.base}/api/v1/${a.instant ? 'query' : 'query_range'}`);
      expect(got.authorization, what).to.equal(a.target.authorization);
      expect(params.query, what).to.equal(a.query);
      if (a.instant) {
        const time = Number(params.time);
        expect(time >= a.end && time - a.end < 15, what).to.equal(true);
        keys.add(`${a.target.path} ${a.query} @${time}`);
      } else {
        const [start, end, step] = [Number(params.start), Number(params.end), Number(params.step)];
        expect(step, what).to.equal(a.step);
        // every point asked for is in the answer's range, which is at most a step longer at each end
        expect(start <= a.start && a.start - start < step && end > a.end && end - a.end <= step, what).to.equal(true);
        keys.add(`${a.target.path} ${a.query} ${start} ${end} ${step}`);
      }
      if (r.headers.get('x-dashplane-cache') !== 'miss') shared++;
    }
    expect(up.received.length, 'one upstream request per distinct aligned query').to.equal(keys.size);
    expect(shared).to.be.above(0);
  });
});

describe('proxy query cache against a real Prometheus: viewers of the Demo dashboard (issue 38)', function () {
  this.timeout(120_000);
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  let stack: UiStack;
  let queries: string[];

  before(async function () {
    skipWithoutCorpus(this, 'corpus');
    stack = await startUiStack({ auth: true });
    await stack.project('perses', 'Perses demo');
    await stack.demo('perses');
    queries = panelQueries((await stack.api('GET', '/api/v1/projects/perses/dashboards/Demo')).body);
  });
  after(async () => {
    await stack?.stop();
  });

  it("50 viewers whose clocks are spread over 10 s: each answer is Prometheus' own for the aligned query, one upstream query per panel and step", async () => {
    expect(queries.length).to.be.at.least(15);
    const url = `${stack.s.url}/proxy/projects/perses/dashboards/Demo/datasources/PrometheusLocal`;
    // a window a minute in the past, so the samples in it no longer change
    const now = Date.now() - 60_000;
    const step = 15;
    const viewers = Array.from({ length: 50 }, () => viewerWindow(now - Math.random() * 10_000, 300));
    const answers = await Promise.all(
      viewers.flatMap((w) =>
        queries.map(async (query) => ({ query, w, got: await panelQuery(url, bearer(stack.admin!), { query, ...w, step }) })),
      ),
    );
    const distinct = new Map<string, unknown>();
    for (const { query, w, got } of answers) {
      expect(got.body.status).to.equal('success');
      // what the proxy sent: the end up to the next multiple of the step, the start 300 s (20 steps) before it
      const end = (Math.floor(w.end / step) + 1) * step;
      const key = `${query} ${end}`;
      if (!distinct.has(key)) {
        const form = new URLSearchParams({ query, start: String(end - 300 - step), end: String(end), step: String(step) });
        const direct = await (await fetch(`${stack.prom.url}/api/v1/query_range`, { method: 'POST', body: form, headers: FORM })).json();
        distinct.set(key, (direct as { data: unknown }).data);
      }
      expect(got.body.data, `${query} ending ${w.end}`).to.deep.equal(distinct.get(key));
    }
    const metrics = (await stack.s.raw('GET', '/metrics')).text;
    const sent = Number(
      /^dashplane_proxy_upstream_duration_seconds_count\{datasource="Dashboard\/perses\/PrometheusLocal",status="200"\} (\d+)$/m.exec(
        metrics,
      )?.[1],
    );
    expect(sent, 'upstream queries').to.equal(distinct.size);
    expect(sent).to.be.at.most(2 * queries.length);
  });
});
