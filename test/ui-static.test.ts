import { expect } from 'chai';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startAuthServer } from './helpers/auth.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** The built UI as dashplane serves it: files, cache headers, SPA fallback, and what it never shadows. */
describe('web UI files served by dashplane', () => {
  let s: TestServer;
  let secured: TestServer;
  before(async function () {
    this.timeout(30_000);
    s = await startTestServer();
    secured = await startAuthServer();
  });
  after(async () => {
    await s?.stop();
    await secured?.stop();
  });

  async function scriptPath(): Promise<string> {
    const html = (await s.raw('GET', '/')).text;
    const m = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html);
    expect(m, html).to.not.equal(null);
    return m![1];
  }

  it('answers / with the page, not cached, with a content security policy', async () => {
    const r = await s.raw('GET', '/');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).to.equal('no-cache');
    expect(r.headers.get('content-security-policy')).to.contain("script-src 'self'").and.to.contain("frame-ancestors 'none'");
    expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(r.text).to.contain('<div id="root"></div>');
  });

  it('answers client-side routes with the same page (deep links work)', async () => {
    const index = (await s.raw('GET', '/')).text;
    for (const path of ['/projects/demo', '/projects/demo/dashboards/node-overview?start=1h&var-job=x', '/signin?redirect=%2F']) {
      const r = await s.raw('GET', path);
      expect(r.status, path).to.equal(200);
      expect(r.text, path).to.equal(index);
    }
  });

  it('serves hashed assets with a year-long immutable cache and an ETag that answers 304', async () => {
    const path = await scriptPath();
    const r = await s.raw('GET', path);
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(r.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    const etag = r.headers.get('etag')!;
    expect(etag).to.match(/^"[\w-]+"$/);
    const again = await s.raw('GET', path, undefined, { 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    const head = await s.raw('HEAD', path);
    expect(head.status).to.equal(200);
  });

  it('serves precompressed brotli or gzip copies by Accept-Encoding, with Vary and an ETag per coding', async () => {
    const path = await scriptPath();
    const plain = await fetch(s.url + path, { headers: { 'accept-encoding': 'identity' } });
    const original = Buffer.from(await plain.arrayBuffer());
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(plain.headers.get('vary')).to.equal('Accept-Encoding');
    expect(original.length).to.be.greaterThan(10_000);
    // undici's fetch decodes by itself: ask with a raw request so the body stays as sent
    const get = (encoding: string, headers: Record<string, string> = {}) =>
      rawGet(s.url + path, { 'accept-encoding': encoding, ...headers });
    const cases: [string, string | null][] = [
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip;q=0.9', 'gzip'],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['*', 'br'],
      ['br;q=0, gzip;q=0', null],
      ['deflate', null],
      ['', null],
    ];
    const etags = new Set<string>();
    for (const [accept, expected] of cases) {
      const r = await get(accept);
      expect(r.status, accept).to.equal(200);
      expect(r.headers['content-encoding'] ?? null, accept).to.equal(expected);
      expect(r.headers.vary, accept).to.equal('Accept-Encoding');
      expect(r.headers['cache-control'], accept).to.equal('public, max-age=31536000, immutable');
      const body = expected === 'br' ? brotliDecompressSync(r.body) : expected === 'gzip' ? gunzipSync(r.body) : r.body;
      expect(body.equals(original), accept).to.equal(true);
      if (expected) expect(r.body.length, accept).to.be.lessThan(original.length / 2);
      expect(Number(r.headers['content-length']), accept).to.equal(r.body.length);
      etags.add(r.headers.etag as string);
      const again = await get(accept, { 'if-none-match': r.headers.etag as string });
      expect(again.status, `${accept} revalidated`).to.equal(304);
    }
    expect(etags.size).to.equal(3); // br, gzip, identity
  });

  it('answers a missing hashed asset with 404, not the page', async () => {
    const r = await s.raw('GET', '/assets/index-00000000.js');
    expect(r.status).to.equal(404);
    expect(r.body.reason).to.equal('NotFound');
  });

  it('never shadows /api, /proxy or /metrics: unknown routes there stay JSON 404s', async () => {
    for (const path of ['/api', '/api/v1/nothing', '/API/v1/nothing', '/proxy/nothing', '/api/v1/projects/x/nothing/y/z']) {
      const r = await s.raw('GET', path);
      expect(r.status, path).to.equal(404);
      expect(r.headers.get('content-type'), path).to.match(/^application\/json/);
      expect(r.body.reason, path).to.equal('NotFound');
    }
    expect((await s.raw('GET', '/api/v1/projects')).status).to.equal(200);
    expect((await s.raw('GET', '/metrics')).text).to.contain('http_request');
  });

  it('INPUT-11: does not serve files outside the build through encoded dots', async () => {
    for (const path of ['/..%2F..%2Fpackage.json', '/%2e%2e/%2e%2e/package.json', '/assets/..%2F..%2F..%2Fpackage.json']) {
      const r = await s.raw('GET', path);
      expect(r.text, path).to.not.contain('"devDependencies"');
    }
  });

  it('with auth on, loads the page without credentials, but the API still asks for them', async () => {
    const page = await secured.raw('GET', '/projects/demo');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('<div id="root"></div>');
    const api = await secured.raw('GET', '/api/v1/nothing');
    expect(api.status).to.equal(401);
    const proxy = await secured.raw('GET', '/proxy/globaldatasources/x/api/v1/query');
    expect(proxy.status).to.equal(401);
  });
});

/** A GET that returns the body exactly as sent (no automatic decompression). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
