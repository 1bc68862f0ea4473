/**
 * REL-15 (docs/security.md): a thousand concurrent proxy requests to an upstream that takes 2 s
 * to answer. The proxy holds at most `proxy.max_concurrent` upstream requests in flight; past it
 * it answers 503 with Retry-After at once. Every request is answered (200 or 503), the upstream
 * never sees more than the cap at once, the server lives and its memory stays bounded.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { tempDir } from './helpers/server.js';

const CAP = 100;
const CALLERS = 1000;
const UPSTREAM_MS = 2000;

const vmRssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** An upstream that answers every request after UPSTREAM_MS, counting how many it holds at once. */
function slowUpstream(): Promise<{ url: string; peak: () => number; served: () => number; close(): Promise<void> }> {
  let open = 0;
  let peak = 0;
  let served = 0;
  const server = http.createServer((_req, res) => {
    open++;
    peak = Math.max(peak, open);
    setTimeout(() => {
      open--;
      served++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success","data":{"resultType":"vector","result":[]}}');
    }, UPSTREAM_MS);
  });
  server.maxConnections = CALLERS * 2;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        peak: () => peak,
        served: () => served,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

/** One GET through the proxy on its own connection: its status and Retry-After, or the socket error. */
function get(url: string): Promise<{ status: number; retryAfter?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, ...(res.headers['retry-after'] ? { retryAfter: String(res.headers['retry-after']) } : {}) }),
      );
    });
    req.on('error', (e) => resolve({ status: 0, error: e.message }));
  });
}

describe('proxy under a thousand concurrent requests (REL-15)', function () {
  this.timeout(120_000);
  let up: Awaited<ReturnType<typeof slowUpstream>>;
  let server: ServerProcess;
  const dir = tempDir();

  before(async () => {
    up = await slowUpstream();
    server = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_PROXY_MAX_CONCURRENT: String(CAP), DASHPLANE_PROXY_TIMEOUT: '30s' } });
    const post = (path: string, body: unknown) =>
      fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.status,
      );
    expect(await post('/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).to.equal(200);
    expect(
      await post('/api/v1/projects/p/datasources', {
        kind: 'Datasource',
        metadata: { name: 'slow', project: 'p' },
        spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: up.url } } } } },
      }),
    ).to.equal(200);
  });
  after(async () => {
    if (server) await stopChild(server.child);
    await up?.close();
    dir.remove();
  });

  it('REL-15: 1,000 concurrent proxy requests to a 2 s upstream each get 200 or 503 with Retry-After; the upstream never holds more than proxy.max_concurrent; the server lives and its memory stays bounded', async () => {
    const pid = server.child.pid!;
    const baseline = vmRssKb(pid);
    let peakRss = baseline;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakRss = Math.max(peakRss, vmRssKb(pid));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // each a different query: identical ones in flight would go upstream once (the query cache)
    const url = (i: number) => `${server.url}/proxy/projects/p/datasources/slow/api/v1/query?query=up&n=${i}`;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: CALLERS }, (_, i) => get(url(i))));
    const took = Date.now() - started;
    sampling = false;
    await sampler;

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const summary = JSON.stringify(Object.fromEntries(byStatus));
    expect(
      answers.filter((a) => a.status !== 200 && a.status !== 503),
      `every request answered 200 or 503: ${summary}`,
    ).to.deep.equal([]);
    for (const a of answers.filter((x) => x.status === 503)) expect(Number(a.retryAfter), 'a 503 says when to retry').to.be.at.least(1);
    expect(byStatus.get(200) ?? 0, summary).to.be.at.least(CAP);
    expect(byStatus.get(503) ?? 0, summary).to.be.above(0);
    expect(up.peak(), 'upstream requests in flight at once').to.be.at.most(CAP);
    // the refused ones are answered at once: the whole run takes about one upstream answer, not ten
    expect(took, 'ms for all answers').to.be.below(UPSTREAM_MS * 5);
    expect((peakRss - baseline) / 1024, 'MB the server grew by').to.be.below(150);
    // and it still serves
    expect((await get(`${server.url}/api/v1/health`)).status).to.equal(200);
    expect((await get(url(CALLERS))).status).to.equal(200);
  });
});
