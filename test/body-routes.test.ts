import { expect } from 'chai';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * The body decoder (charset and Content-Encoding checks, body-parsers.ts) is attached by an
 * `onRoute` hook, so it reaches only the routes registered after it. Every route that takes a body
 * must carry it: a route without it would accept an encoding it cannot read, or a charset the
 * server does not decode, without a word.
 */
describe('every route that takes a body checks its encoding', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(() => srv.stop());

  it('answers 415 naming the encoding on every non-GET route but the datasource proxy', async () => {
    const checked: string[] = [];
    const missed: string[] = [];
    for (const r of srv.server.app.routeTable) {
      if ((r.config as { proxy?: boolean }).proxy) continue; // streamed upstream untouched
      for (const method of [r.method].flat()) {
        if (['GET', 'HEAD', 'OPTIONS'].includes(method)) continue;
        const path = r.url.replace(/:[^/]+/g, 'x').replace(/\*$/, 'x');
        const res = await srv.raw(method, path, '{}', { 'content-type': 'application/json', 'content-encoding': 'compress' });
        checked.push(`${method} ${r.url}`);
        if (res.status !== 415 || !/Content-Encoding "compress" is not supported/.test(res.body?.message ?? ''))
          missed.push(`${method} ${r.url}: ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    expect(missed).to.deep.equal([]);
    expect(checked.length).to.be.greaterThan(50);
    expect(checked).to.include('POST /api/v1/projects');
  });
});
