/**
 * PROXY-23 of docs/security.md in a browser: a page of dashplane's own origin (the web UI, whose
 * policy allows `script-src 'self'`) that includes a proxied answer as a script or a style sheet
 * never runs or applies it, and a proxied HTML or SVG answer opened in a tab is a download, not a
 * document of our origin. The upstream calls its answers what they would need to be to act
 * (text/javascript, text/css, text/html, image/svg+xml). test/proxy-forms.test.ts checks every
 * type's headers.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

const ANSWERS: Record<string, [string, string]> = {
  '/evil.js': ['text/javascript', "window.__proxied = 'ran';"],
  '/evil.css': ['text/css', 'html { background-color: rgb(1, 2, 3) !important; }'],
  '/evil.html': ['text/html; charset=utf-8', '<html><body><h1 id="evil">proxied page</h1></body></html>'],
  '/evil.svg': ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><text id="evil" y="20">proxied svg</text></svg>'],
};

describe('proxied answers never act on the UI origin (Chromium): PROXY-23', function () {
  needsPrograms('chromium');
  this.timeout(90_000);
  let upstream: http.Server;
  let s: TestServer;
  let w: WatchedPage;
  const P = '/proxy/projects/p/datasources/up';

  before(async () => {
    upstream = http.createServer((req, res) => {
      const [type, body] = ANSWERS[req.url!] ?? ['application/json', '{}'];
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    s = await startTestServer();
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
    const ds = {
      kind: 'Datasource',
      metadata: { name: 'up' },
      spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } } },
    };
    expect((await s.api('POST', '/api/v1/projects/p/datasources', ds)).status).to.equal(200);
    w = await openPage(s.url);
    await w.page.goto('/');
  });
  after(async () => {
    await w?.close();
    await s?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  it('PROXY-23: a <script src> or style sheet of a proxied JavaScript or CSS answer neither runs nor applies on a UI page; HTML and SVG answers open as downloads', async () => {
    const seen = await w.page.evaluate(async (base) => {
      const attach = (el: HTMLScriptElement | HTMLLinkElement) =>
        new Promise<string>((resolve) => {
          el.onload = () => resolve('load');
          el.onerror = () => resolve('error');
          document.head.append(el);
        });
      const script = document.createElement('script');
      script.src = `${base}/evil.js`;
      const scriptEvent = await attach(script);
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = `${base}/evil.css`;
      const styleEvent = await attach(link);
      return {
        scriptEvent,
        ran: (window as unknown as { __proxied?: string }).__proxied ?? null,
        styleEvent,
        background: getComputedStyle(document.documentElement).backgroundColor,
      };
    }, P);
    expect(seen.ran, `the proxied script ran (${seen.scriptEvent})`).to.equal(null);
    expect(seen.background, `the proxied style sheet applied (${seen.styleEvent})`).to.not.equal('rgb(1, 2, 3)');
    for (const file of ['/evil.html', '/evil.svg']) {
      const tab = await w.context.newPage();
      try {
        const [download] = await Promise.all([
          tab.waitForEvent('download', { timeout: 10_000 }),
          tab.goto(`${P}${file}`).catch(() => undefined),
        ]);
        expect(download.suggestedFilename(), file).to.be.a('string');
        expect(await tab.locator('#evil').count(), `${file} rendered as a document`).to.equal(0);
      } finally {
        await tab.close();
      }
    }
  });
});
