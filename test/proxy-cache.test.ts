/**
 * The query cache of HTTP datasources (issue 38; docs/datasources.md, "Query cache"), through a
 * real server with authentication on and a counting stand-in for Prometheus: identical requests in
 * flight go upstream once; a caller giving up cancels nobody else; range and instant queries are
 * aligned; answers are kept for their time to live within the size bounds; nothing is shared
 * across datasources or credentials; every caller's permission is checked before it gets anything.
 */
import { expect } from 'chai';
import { bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { type Answered, type CountingUpstream, startCountingUpstream } from './helpers/counting-upstream.js';
import type { ApiResponse, TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** Settings of some datasources (proxy.cache.datasources) and small bounds, through the environment. */
const CACHE_ENV = {
  DASHPLANE_PROXY_CACHE_MAX_SIZE_MB: '1',
  DASHPLANE_PROXY_CACHE_MAX_ANSWER_MB: '0.25',
  DASHPLANE_PROXY_CACHE_DATASOURCES_0_DATASOURCE: 'projects/a/datasources/short',
  DASHPLANE_PROXY_CACHE_DATASOURCES_0_TTL: '1s',
  DASHPLANE_PROXY_CACHE_DATASOURCES_1_DATASOURCE: 'projects/a/datasources/exact',
  DASHPLANE_PROXY_CACHE_DATASOURCES_1_ALIGN: 'false',
  DASHPLANE_PROXY_CACHE_DATASOURCES_2_DATASOURCE: 'projects/a/datasources/off',
  DASHPLANE_PROXY_CACHE_DATASOURCES_2_ENABLE: 'false',
};

const datasource = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url, ...extra } } } } },
});
const basicSecret = (name: string, password: string) => ({
  kind: 'Secret',
  metadata: { name },
  spec: { basicAuth: { username: 'svc', password } },
});
const basic = (password: string) => `Basic ${Buffer.from(`svc:${password}`).toString('base64')}`;
const cacheOf = (r: ApiResponse) => r.headers.get('x-dashplane-cache');
const asked = (r: ApiResponse) => (r.body as Answered).asked;

describe('proxy query cache: coalescing, alignment, kept answers, isolation (issue 38)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let up: CountingUpstream;
  let admin: Tokens;
  let alice: Tokens;
  let bob: Tokens;
  let queries = 0;
  /** A query text no other test sends. */
  const fresh = () => `up{n="${++queries}"}`;
  const as = (t: Tokens) => bearer(t);
  const post = (ds: string, path: string, form: string, who: Tokens = alice, headers: Record<string, string> = {}) =>
    s.raw('POST', `/proxy/projects/a/datasources/${ds}${path}`, form, { ...FORM, ...as(who), ...headers });
  const get = (ds: string, pathAndQuery: string, who: Tokens = alice, headers: Record<string, string> = {}) =>
    s.raw('GET', `/proxy/projects/a/datasources/${ds}${pathAndQuery}`, undefined, { ...as(who), ...headers });
  const countFor = (query: string) => up.received.filter((r) => r.params.some(([k, v]) => k === 'query' && v === query)).length;
  const metric = async (name: string) => {
    const text = (await s.raw('GET', '/metrics')).text;
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  };

  before(async () => {
    up = await startCountingUpstream();
    s = await startAuthServer({ ...LOOPBACK_UPSTREAMS, ...CACHE_ENV });
    admin = await loginAdmin(s);
    for (const name of ['alice', 'bob']) await signUp(s, name);
    alice = await login(s, 'alice');
    bob = await login(s, 'bob');
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'a' }, spec: {} }, as(alice))).status).to.equal(
      200,
    );
    for (const [name, password] of [
      ['s1', 'one'],
      ['s2', 'two'],
    ]) {
      expect((await s.api('POST', '/api/v1/projects/a/secrets', basicSecret(name, password), as(alice))).status).to.equal(200);
    }
    for (const ds of [
      datasource('prom', up.url),
      datasource('short', up.url),
      datasource('exact', up.url),
      datasource('off', up.url),
      datasource('one', up.url, { secret: 's1' }),
      datasource('two', up.url, { secret: 's2' }),
    ]) {
      const r = await s.api('POST', '/api/v1/projects/a/datasources', ds, as(alice));
      expect(r.status, r.text).to.equal(200);
    }
  });
  after(async () => {
    await s?.stop();
    await up?.stop();
  });

  it('coalescing: 20 identical requests in flight go upstream once, every caller gets the answer with its Content-Length', async () => {
    const query = fresh();
    up.hold();
    const waiting = metric('dashplane_proxy_cache_waiting');
    expect(await waiting).to.equal(0);
    const all = Promise.all(
      Array.from({ length: 20 }, () =>
        post('prom', '/api/v1/query_range', `query=${encodeURIComponent(query)}&start=1699996400&end=1700000000&step=15`),
      ),
    );
    await waitFor('20 callers waiting on one request', async () => (await metric('dashplane_proxy_cache_waiting')) === 20);
    up.release();
    const answers = await all;
    expect(countFor(query)).to.equal(1);
    expect(answers.map(cacheOf).sort()).to.deep.equal(['miss', ...Array(19).fill('coalesced')].sort());
    for (const r of answers) {
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-length')).to.equal(String(Buffer.byteLength(r.text)));
      expect(asked(r).params).to.deep.include(['query', query]);
    }
    // the shared answer carries the proxy's response-header rules too
    expect(answers[5].headers.get('content-security-policy')).to.equal('sandbox');
    expect(answers[5].headers.get('x-request-id')).to.not.equal(answers[6].headers.get('x-request-id'));
  });

  it('PROXY-28: a caller that gives up does not cancel the others; when every caller has gone, the upstream request is cut', async () => {
    const query = fresh();
    up.hold();
    const form = `query=${encodeURIComponent(query)}&time=1700000000`;
    const quitters = Array.from({ length: 3 }, () => new AbortController());
    const leaving = quitters.map((ac) =>
      fetch(`${s.url}/proxy/projects/a/datasources/prom/api/v1/query`, {
        method: 'POST',
        body: form,
        headers: { ...FORM, ...as(alice) },
        signal: ac.signal,
      }).catch((e: Error) => e.name),
    );
    await waitFor('the first callers waiting', async () => (await metric('dashplane_proxy_cache_waiting')) === 3);
    const staying = Promise.all([post('prom', '/api/v1/query', form), post('prom', '/api/v1/query', form)]);
    await waitFor('five callers waiting', async () => (await metric('dashplane_proxy_cache_waiting')) === 5);
    // the first three leave, the one whose request went upstream among them
    for (const ac of quitters) ac.abort();
    expect(await Promise.all(leaving)).to.deep.equal(['AbortError', 'AbortError', 'AbortError']);
    await waitFor('two callers left waiting', async () => (await metric('dashplane_proxy_cache_waiting')) === 2);
    up.release();
    const answers = await staying;
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200]);
    expect(countFor(query)).to.equal(1);
    expect(up.received.find((r) => r.params.some(([, v]) => v === query))!.cutEarly).to.equal(false);

    // everyone leaves: the upstream request goes with them
    const last = fresh();
    up.hold();
    const ac = new AbortController();
    const alone = fetch(`${s.url}/proxy/projects/a/datasources/prom/api/v1/query`, {
      method: 'POST',
      body: `query=${encodeURIComponent(last)}`,
      headers: { ...FORM, ...as(alice) },
      signal: ac.signal,
    }).catch((e: Error) => e.name);
    await waitFor('the request upstream', () => countFor(last) === 1);
    ac.abort();
    expect(await alone).to.equal('AbortError');
    await waitFor('the upstream request cut', () => up.received.find((r) => r.params.some(([, v]) => v === last))!.cutEarly);
    up.release();
  });

  it('alignment: range queries whose ends are within one step, and instant queries within the resolution, send one query; align: false sends each as it came', async () => {
    const query = fresh();
    const range = (ds: string, end: number) =>
      post(ds, '/api/v1/query_range', `query=${encodeURIComponent(query)}&start=${end - 3600}&end=${end}&step=15`);
    // 1699999995 is a multiple of 15: ends from it to 14 s later share one query
    const ends = Array.from({ length: 15 }, (_, i) => 1_699_999_995 + i);
    const answers = [];
    for (const end of ends) answers.push(await range('prom', end));
    expect(countFor(query)).to.equal(1);
    expect(answers.map(cacheOf)).to.deep.equal(['miss', ...Array(14).fill('hit')]);
    expect(Object.fromEntries(asked(answers[0]).params)).to.deep.equal({ end: '1700000010', query, start: '1699996395', step: '15' });
    // the next step is another query
    expect(cacheOf(await range('prom', 1_700_000_010))).to.equal('miss');
    expect(countFor(query)).to.equal(2);
    // instant queries: the time up to a multiple of proxy.cache.resolution (15 s); GET and POST are keyed apart
    const instant = fresh();
    for (const t of [1_699_999_996, 1_700_000_003, 1_700_000_010])
      expect((await post('prom', '/api/v1/query', `query=${encodeURIComponent(instant)}&time=${t}`)).status).to.equal(200);
    expect(countFor(instant)).to.equal(1);
    expect(Object.fromEntries(up.received.at(-1)!.params)).to.deep.equal({ query: instant, time: '1700000010' });
    expect(cacheOf(await get('prom', `/api/v1/query?time=1700000003&query=${encodeURIComponent(instant)}`))).to.equal('miss');
    expect(cacheOf(await get('prom', `/api/v1/query?query=${encodeURIComponent(instant)}&time=1700000004`))).to.equal('hit');
    // a datasource with align: false sends each as it came (and shares only identical ones)
    for (const end of ends.slice(0, 3)) await range('exact', end);
    await range('exact', ends[0]);
    const exact = up.received.filter((r) => r.params.some(([k, v]) => k === 'query' && v === query)).slice(2);
    expect(exact.map((r) => Object.fromEntries(r.params).end)).to.deep.equal(['1699999995', '1699999996', '1699999997']);
  });

  it('kept answers: a hit within the time to live, a miss after it; the cache off for a datasource: bypass', async () => {
    const query = encodeURIComponent(fresh());
    const started = Date.now();
    const first = await get('short', `/api/v1/query?query=${query}`);
    expect([cacheOf(first), first.headers.get('age')]).to.deep.equal(['miss', null]);
    const kept = await get('short', `/api/v1/query?query=${query}`);
    // a kept answer says how old it is (RFC 9111 Age) and is the same bytes
    expect([cacheOf(kept), kept.headers.get('age'), kept.text]).to.deep.equal(['hit', '0', first.text]);
    await waitFor(
      'the answer to expire (ttl 1s)',
      async () => cacheOf(await get('short', `/api/v1/query?query=${query}`)) === 'miss',
      5_000,
      100,
    );
    expect(Date.now() - started).to.be.at.least(990);
    expect(countFor(decodeURIComponent(query))).to.equal(2);
    const off = encodeURIComponent(fresh());
    for (let i = 0; i < 2; i++) expect(cacheOf(await get('off', `/api/v1/query?query=${off}`))).to.equal('bypass');
    expect(countFor(decodeURIComponent(off))).to.equal(2);
  });

  it('PROXY-28: bounded: the least recently used answers go past max_size_mb (1); an answer over max_answer_mb (0.25) is streamed to each caller alone', async () => {
    // 300 KB answers (no Content-Length: found too large while read) are never kept or shared
    const big = fresh();
    const answers = await Promise.all([0, 1].map(() => get('prom', `/api/v1/query?query=${encodeURIComponent(big)}&pad=300000&chunked=1`)));
    expect(answers.map(cacheOf)).to.deep.equal(['miss', 'miss']);
    expect(answers.map((r) => r.text.length)).to.deep.equal([answers[0].text.length, answers[0].text.length]);
    expect(answers[0].text.length).to.be.above(300_000);
    expect(cacheOf(await get('prom', `/api/v1/query?query=${encodeURIComponent(big)}&pad=300000&chunked=1`))).to.equal('miss');
    expect(countFor(big)).to.equal(3);
    // 240 KB answers are kept: four fit in 1 MiB, a fifth pushes out the least recently used
    const mid = (q: string) => get('prom', `/api/v1/query?query=${encodeURIComponent(q)}&pad=240000&chunked=1`);
    const [a, b, c, d] = [fresh(), fresh(), fresh(), fresh()];
    for (const q of [a, b, c, d]) expect(cacheOf(await mid(q))).to.equal('miss');
    expect(cacheOf(await mid(a))).to.equal('hit');
    expect(cacheOf(await mid(fresh()))).to.equal('miss');
    expect([cacheOf(await mid(a)), cacheOf(await mid(b))]).to.deep.equal(['hit', 'miss']);
    expect(await metric('dashplane_proxy_cache_bytes')).to.be.at.most(1024 * 1024);
  });

  it('PROXY-27: never shared across datasources or credentials: the same URL with other Secrets, a Secret that changed, a dashboard of its own', async () => {
    const query = encodeURIComponent(fresh());
    const one = await get('one', `/api/v1/query?query=${query}`);
    const two = await get('two', `/api/v1/query?query=${query}`);
    const plain = await get('prom', `/api/v1/query?query=${query}`);
    expect([cacheOf(one), cacheOf(two), cacheOf(plain)]).to.deep.equal(['miss', 'miss', 'miss']);
    expect([asked(one).authorization, asked(two).authorization, asked(plain).authorization]).to.deep.equal([
      basic('one'),
      basic('two'),
      null,
    ]);
    expect(cacheOf(await get('one', `/api/v1/query?query=${query}`))).to.equal('hit');
    // the Secret changes: the next request sends the new credentials, and gets its own answer
    expect((await s.api('PUT', '/api/v1/projects/a/secrets/s1', basicSecret('s1', 'uno'), as(alice))).status).to.equal(200);
    const changed = await get('one', `/api/v1/query?query=${query}`);
    expect([cacheOf(changed), asked(changed).authorization]).to.deep.equal(['miss', basic('uno')]);
    // deleted and created again with other values (the same version as before): not the old answer
    expect((await s.api('DELETE', '/api/v1/projects/a/secrets/s2', undefined, as(alice))).status).to.equal(204);
    expect((await s.api('POST', '/api/v1/projects/a/secrets', basicSecret('s2', 'dos'), as(alice))).status).to.equal(200);
    const again = await get('two', `/api/v1/query?query=${query}`);
    expect([cacheOf(again), asked(again).authorization]).to.deep.equal(['miss', basic('dos')]);
    // a dashboard's own datasource with the same URL: its own answers
    const dashboard = {
      kind: 'Dashboard',
      metadata: { name: 'd' },
      spec: { display: { name: 'd' }, duration: '1h', panels: {}, layouts: [], datasources: { local: datasource('x', up.url).spec } },
    };
    expect((await s.api('POST', '/api/v1/projects/a/dashboards', dashboard, as(alice))).status).to.equal(200);
    const local = await s.raw('GET', `/proxy/projects/a/dashboards/d/datasources/local/api/v1/query?query=${query}`, undefined, as(alice));
    expect(cacheOf(local)).to.equal('miss');
    expect(countFor(decodeURIComponent(query))).to.equal(6);
  });

  it('PROXY-27: permission first: a user without read gets 403 for an answer kept and for one in flight; the admin gets it', async () => {
    const query = encodeURIComponent(fresh());
    expect(cacheOf(await get('prom', `/api/v1/query?query=${query}`))).to.equal('miss');
    const refused = await get('prom', `/api/v1/query?query=${query}`, bob);
    expect(refused.status).to.equal(403);
    expect(refused.text).to.not.include('asked');
    expect(cacheOf(refused)).to.equal(null);
    const other = encodeURIComponent(fresh());
    up.hold();
    const owner = get('prom', `/api/v1/query?query=${other}`);
    await waitFor('the request upstream', () => countFor(decodeURIComponent(other)) === 1);
    const during = await get('prom', `/api/v1/query?query=${other}`, bob);
    expect(during.status).to.equal(403);
    up.release();
    expect((await owner).status).to.equal(200);
    const byAdmin = await get('prom', `/api/v1/query?query=${query}`, admin);
    expect([byAdmin.status, cacheOf(byAdmin)]).to.deep.equal([200, 'hit']);
  });

  it('not shared: no-cache and range requests, other POST paths, non-200 answers, Set-Cookie and private answers', async () => {
    const query = encodeURIComponent(fresh());
    const twice = async (send: () => Promise<ApiResponse>) => [cacheOf(await send()), cacheOf(await send())];
    expect(await twice(() => get('prom', `/api/v1/query?query=${query}`, alice, { 'cache-control': 'no-cache' }))).to.deep.equal([
      'bypass',
      'bypass',
    ]);
    expect(await twice(() => get('prom', `/api/v1/query?query=${query}`, alice, { range: 'bytes=0-10' }))).to.deep.equal([
      'bypass',
      'bypass',
    ]);
    expect(await twice(() => post('prom', '/api/v1/admin/tsdb/snapshot', `query=${query}`))).to.deep.equal(['bypass', 'bypass']);
    expect(await twice(() => get('prom', `/error?query=${query}`))).to.deep.equal(['miss', 'miss']);
    expect(await twice(() => get('prom', `/cookie?query=${query}`))).to.deep.equal(['miss', 'miss']);
    expect(await twice(() => get('prom', `/private?query=${query}`))).to.deep.equal(['miss', 'miss']);
    // a form body longer than 64 KiB goes upstream as it came
    const long = `query=${query}&pad=${'x'.repeat(70 * 1024)}`;
    expect(await twice(() => post('prom', '/api/v1/query', long))).to.deep.equal(['bypass', 'bypass']);
    expect(countFor(decodeURIComponent(query))).to.equal(14);
  });
});
