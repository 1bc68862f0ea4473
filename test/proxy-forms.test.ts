/**
 * Datasource proxy rows PROXY-21..25 of docs/security.md: every textual or numeric form of a
 * denied address is refused; with authentication on and the default configuration a signed-up
 * user cannot reach loopback services (and the server says so when it starts); an answer typed as
 * script, style or document is never served as one; a request in absolute form reaches the same
 * upstream path as in origin form; the upstream's Content-Length reaches the caller.
 * (test/ui-proxy-content.test.ts shows PROXY-23 in a browser.)
 *
 * The victim listens on 127.0.0.1 and ::1 (same port) and counts connections, so "refused" is
 * shown as "no connection", not only as a status.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { AUTH_ENV } from './helpers/auth.js';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { callJson, startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/** An HTTP server on 127.0.0.1 and ::1 (one port) answering every request with a JSON echo of its target, counting connections. */
class Victim {
  readonly servers: http.Server[] = [];
  connections = 0;
  urls: string[] = [];
  port = 0;
  private readonly sockets = new Set<Socket>();

  async start(): Promise<this> {
    for (let attempt = 0; ; attempt++) {
      const v4 = this.server();
      await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
      this.port = (v4.address() as AddressInfo).port;
      const v6 = this.server();
      const ok = await new Promise<boolean>((resolve) => {
        v6.once('error', () => resolve(false));
        v6.listen(this.port, '::1', () => resolve(true));
      });
      if (ok || attempt >= 5) {
        this.servers.push(v4, ...(ok ? [v6] : []));
        return this;
      }
      await new Promise<void>((resolve) => v4.close(() => resolve()));
    }
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  private server(): http.Server {
    const srv = http.createServer((req, res) => {
      this.urls.push(req.url!);
      const body = JSON.stringify({ url: req.url });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    srv.on('connection', (s: Socket) => {
      this.connections++;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    return srv;
  }
}

const datasource = (name: string, url: string) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } } },
});

/** Every spelling of this host (127.0.0.1, ::1, 0.0.0.0, ::) reaching port `p`: address forms, IPv6 carriers of IPv4, names. */
const loopbackForms = (p: number) =>
  [
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '0',
    '0.0.0.0',
    '0x0',
    '2130706433',
    '0x7f000001',
    '0x7F.1',
    '0177.0.0.1',
    '017700000001',
    '127.0.0.1.',
    '127.255.255.254',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[::FFFF:7F00:1]',
    '[::ffff:0.0.0.0]',
    '[::127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[64:ff9b:1::7f00:1]',
    '[2002:7f00:1::]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    '[2001:db8::5efe:127.0.0.1]',
    'localhost',
    'LOCALHOST.',
    'foo.localhost',
    '[::1%25lo]',
  ].map((h) => `http://${h}:${p}`);

/** Every spelling of the cloud metadata address 169.254.169.254 (nothing listens there: the proof is the 403 itself). */
const METADATA_FORMS = [
  '169.254.169.254',
  '169.254.43518',
  '2852039166',
  '0xa9fea9fe',
  '0xa9.0xfe.0xa9.0xfe',
  '0251.0376.0251.0376',
  '[::ffff:169.254.169.254]',
  '[::169.254.169.254]',
  '[64:ff9b::a9fe:a9fe]',
  '[64:ff9b:1::a9fe:a9fe]',
  '[2002:a9fe:a9fe::]',
  '[2001:0:4136:e378:8000:63bf:5601:5601]',
  '[2001:db8::200:5efe:a9fe:a9fe]',
  '[fd00:ec2::254]',
  '[fe80::a9fe:a9fe]',
].map((h) => `http://${h}/latest/meta-data/`);

describe('proxy: every form of a denied address, loopback with auth on (PROXY-21, PROXY-22)', function () {
  this.timeout(60_000);
  let victim: Victim;
  const dir = tempDir();
  let srv: ServerProcess;
  let user: Record<string, string>;
  const call = (method: string, path: string, body?: unknown, headers = user) => callJson(srv.url, method, path, body, headers);

  before(async () => {
    victim = await new Victim().start();
    // the defaults of an installation with authentication on: open sign-up, guests create projects
    srv = await spawnServer({ dataDir: dir.path, env: { ...AUTH_ENV, DASHPLANE_PROXY_TIMEOUT: '2s' } });
    expect(
      (
        await callJson(srv.url, 'POST', '/api/v1/users', {
          kind: 'User',
          metadata: { name: 'mallory' },
          spec: { nativeProvider: { password: 'mallory-password' } },
        })
      ).status,
    ).to.equal(200);
    const tokens = await callJson(srv.url, 'POST', '/api/auth/providers/native/login', { login: 'mallory', password: 'mallory-password' });
    user = { authorization: `Bearer ${tokens.body.access_token}` };
    expect((await call('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'm' }, spec: {} })).status).to.equal(200);
  });
  after(async () => {
    if (srv) await stopChild(srv.child);
    await victim?.stop();
    dir.remove();
  });

  /** Saves a datasource per URL and proxies through it: "save <status>" when refused at save, else "proxy <status>". */
  async function tryAll(prefix: string, urls: string[]): Promise<{ url: string; outcome: string; answer: ApiResponse }[]> {
    const out = [];
    for (const [i, url] of urls.entries()) {
      const save = await call('POST', '/api/v1/projects/m/datasources', datasource(`${prefix}-${i}`, url));
      if (save.status !== 200) {
        out.push({ url, outcome: `save ${save.status}`, answer: save });
        continue;
      }
      const r = await call('GET', `/proxy/projects/m/datasources/${prefix}-${i}/api/v1/query?query=up`);
      out.push({ url, outcome: `proxy ${r.status}`, answer: r });
    }
    return out;
  }

  it('PROXY-21: every textual and numeric form of loopback, unspecified and the metadata address is refused (403, or 400 at save); no connection is made', async () => {
    const results = [...(await tryAll('lo', loopbackForms(victim.port))), ...(await tryAll('md', METADATA_FORMS))];
    const wrong = results.filter((r) => !/^(save 400|proxy 403)$/.test(r.outcome));
    expect(
      wrong.map((r) => `${r.url}: ${r.outcome} ${r.answer.text.slice(0, 160)}`),
      'forms not refused',
    ).to.deep.equal([]);
    expect(victim.connections, `connections to the loopback victim (${victim.urls.join(', ')})`).to.equal(0);
    // the zone id form is not a URL (WHATWG), so it is the only one refused at save
    expect(results.filter((r) => r.outcome === 'save 400').map((r) => r.url)).to.deep.equal([`http://[::1%25lo]:${victim.port}`]);
    for (const r of results.filter((x) => x.outcome === 'proxy 403')) {
      expect(r.answer.body.message, r.url).to.match(/proxy\.(allow_loopback|denied_networks)/);
    }
  });

  it('PROXY-22: with auth on and the default configuration a signed-up user gets 403 for a datasource on 127.0.0.1; the start-up log names the networks and the opt-in', async () => {
    expect(
      (await call('POST', '/api/v1/projects/m/datasources', datasource('local-prom', `http://127.0.0.1:${victim.port}`))).status,
    ).to.equal(200);
    const r = await call('GET', '/proxy/projects/m/datasources/local-prom/api/v1/query?query=up');
    expect(r.status, r.text).to.equal(403);
    expect(r.body.message).to.contain('loopback').and.contain('proxy.allow_loopback: true');
    expect(victim.connections).to.equal(0);
    const line = await waitFor('the denied-networks line', () =>
      srv
        .output()
        .split('\n')
        .find((l) => l.includes('the datasource proxy denies')),
    );
    expect(JSON.parse(line!).msg)
      .to.contain('169.254.0.0/16')
      .and.contain('127.0.0.0/8')
      .and.contain('::1/128')
      .and.contain('set proxy.allow_loopback: true');
  });

  it('PROXY-22: with proxy.allow_loopback the same datasource works, and the log says loopback is allowed; with auth off (the quick start) it works unchanged', async () => {
    const optDir = tempDir();
    const opted = await spawnServer({ dataDir: optDir.path, env: { ...AUTH_ENV, DASHPLANE_PROXY_ALLOW_LOOPBACK: 'true' } });
    let quick: TestServer | undefined;
    try {
      const tokens = await callJson(opted.url, 'POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' });
      const admin = { authorization: `Bearer ${tokens.body.access_token}` };
      expect(
        (await callJson(opted.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }, admin)).status,
      ).to.equal(200);
      expect(
        (
          await callJson(
            opted.url,
            'POST',
            '/api/v1/projects/p/datasources',
            datasource('local-prom', `http://127.0.0.1:${victim.port}`),
            admin,
          )
        ).status,
      ).to.equal(200);
      const r = await callJson(opted.url, 'GET', '/proxy/projects/p/datasources/local-prom/api/v1/query?query=up', undefined, admin);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.url).to.equal('/api/v1/query?query=up');
      const line = await waitFor('the denied-networks line', () =>
        opted
          .output()
          .split('\n')
          .find((l) => l.includes('the datasource proxy denies')),
      );
      expect(JSON.parse(line!).msg)
        .to.contain('loopback addresses are allowed (proxy.allow_loopback: true)')
        .and.not.contain('127.0.0.0/8');
      quick = await startTestServer();
      expect((await quick.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
      expect(
        (await quick.api('POST', '/api/v1/projects/p/datasources', datasource('local-prom', `http://127.0.0.1:${victim.port}`))).status,
      ).to.equal(200);
      expect((await quick.api('GET', '/proxy/projects/p/datasources/local-prom/api/v1/query?query=up')).status).to.equal(200);
    } finally {
      await stopChild(opted.child);
      await quick?.stop();
      optDir.remove();
    }
  });
});

/** Sends a request target as written on a raw socket (absolute form included) and reads the whole answer. */
function rawTarget(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; head: string; body: string }> {
  const u = new URL(base);
  const lines = [
    `${method} ${target} HTTP/1.1`,
    `Host: ${u.host}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ];
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(u.port), u.hostname, () => socket.write(lines.join('\r\n')));
    socket.on('data', (b: Buffer) => chunks.push(b));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: rest.join('\r\n\r\n') });
    });
  });
}

/** Every JavaScript MIME type of the WHATWG MIME Sniffing standard (§4.6): a browser runs a `<script src>` answer of any of them. */
const JAVASCRIPT_TYPES = [
  'application/ecmascript',
  'application/javascript',
  'application/x-ecmascript',
  'application/x-javascript',
  'text/ecmascript',
  'text/javascript',
  'text/javascript1.0',
  'text/javascript1.1',
  'text/javascript1.2',
  'text/javascript1.3',
  'text/javascript1.4',
  'text/javascript1.5',
  'text/jscript',
  'text/livescript',
  'text/x-ecmascript',
  'text/x-javascript',
];
/** Documents, styles, and types a browser may render or sniff: none may keep its type. `null`: no Content-Type at all. */
const ACTIVE_TYPES: (string | null)[] = [
  ...JAVASCRIPT_TYPES,
  'TEXT/JAVASCRIPT; charset=utf-8',
  'text/javascript;charset=utf-8',
  ' text/html ',
  'text/html',
  'text/html; charset=utf-8',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'application/rss+xml',
  'text/xsl',
  'text/css',
  'application/pdf',
  'multipart/x-mixed-replace; boundary=x',
  'application/json, text/html',
  'text/html;x=application/json',
  'application/vnd.unknown',
  '',
  null,
];
/** What datasources answer: kept as they are. */
const PASSIVE_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/problem+json',
  'text/plain; version=0.0.4; charset=utf-8',
  'application/x-protobuf',
  'image/png',
];

describe('proxy: answer types, absolute-form targets and Content-Length (PROXY-23, PROXY-24, PROXY-25)', function () {
  this.timeout(30_000);
  let victim: Victim;
  let s: TestServer;
  let big: http.Server;
  let bigUrl: string;
  const BIG = Buffer.alloc(1_000_000, 'x');
  const ACTIVE_BODY = '<html><script>alert(document.domain)</script></html>';

  before(async () => {
    victim = await new Victim().start();
    big = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/typed') {
        const type = u.searchParams.get('type');
        res.writeHead(200, type === null ? {} : { 'content-type': type });
        return void res.end(ACTIVE_BODY);
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG.length) });
      res.end(req.method === 'HEAD' ? undefined : BIG);
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    bigUrl = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
    s = await startTestServer();
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
    expect(
      (await s.api('POST', '/api/v1/projects/p/datasources', datasource('d', `http://127.0.0.1:${victim.port}/base`))).status,
    ).to.equal(200);
    expect((await s.api('POST', '/api/v1/projects/p/datasources', datasource('big', bigUrl))).status).to.equal(200);
    expect(
      (
        await s.api('POST', '/api/v1/globaldatasources', {
          ...datasource('g', `http://127.0.0.1:${victim.port}/base`),
          kind: 'GlobalDatasource',
        })
      ).status,
    ).to.equal(200);
  });
  after(async () => {
    await s?.stop();
    await victim?.stop();
    await new Promise<void>((resolve) => big?.close(() => resolve()));
  });

  it('PROXY-23: an answer typed as script, style, document, unknown or nothing is served as application/octet-stream attachment (nosniff, sandbox, same-origin); data types pass as they are', async () => {
    const fetchTyped = async (type: string | null) => {
      const r = await s.raw('GET', `/proxy/projects/p/datasources/big/typed${type === null ? '' : `?type=${encodeURIComponent(type)}`}`);
      expect(r.status, String(type)).to.equal(200);
      expect(r.text, "the bytes are the upstream's").to.equal(ACTIVE_BODY);
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(r.headers.get('content-security-policy')).to.equal('sandbox');
      expect(r.headers.get('cross-origin-resource-policy')).to.equal('same-origin');
      return r;
    };
    const served: string[] = [];
    for (const type of ACTIVE_TYPES) {
      const r = await fetchTyped(type);
      const got = r.headers.get('content-type') ?? '';
      const essence = got.split(';')[0].trim().toLowerCase();
      const usable = JAVASCRIPT_TYPES.includes(essence) || essence === 'text/css' || /html|xml|svg|pdf|multipart/.test(essence);
      if (usable || got !== 'application/octet-stream' || r.headers.get('content-disposition') !== 'attachment') {
        served.push(`${JSON.stringify(type)} -> ${got} (${r.headers.get('content-disposition')})`);
      }
    }
    expect(served, 'answers usable as script, style or document').to.deep.equal([]);
    for (const type of PASSIVE_TYPES) {
      const r = await fetchTyped(type);
      expect(r.headers.get('content-type'), type).to.equal(type);
      expect(r.headers.get('content-disposition'), type).to.equal(null);
    }
  });

  it('PROXY-24: a request in absolute form reaches the upstream at the same path as in origin form (project and global routes, any scheme case, with or without a path)', async () => {
    const host = new URL(s.url).host;
    const cases: [string, string][] = [
      ['/proxy/projects/p/datasources/d/api/v1/query?query=up', '/base/api/v1/query?query=up'],
      // another query than the first (the query cache would answer the same one again itself)
      [`http://${host}/proxy/projects/p/datasources/d/api/v1/query?query=down`, '/base/api/v1/query?query=down'],
      [`HTTP://${host}/proxy/projects/p/datasources/d/api/v1/labels`, '/base/api/v1/labels'],
      // the parameters of a Prometheus query call go upstream sorted and form-encoded (the query cache's key)
      [`http://other.example:1234/proxy/globaldatasources/g/api/v1/series?match[]=up`, '/base/api/v1/series?match%5B%5D=up'],
      [`http://${host}/proxy/projects/p/datasources/d`, '/base'],
    ];
    for (const [target, expected] of cases) {
      victim.urls = [];
      const r = await rawTarget(s.url, 'GET', target);
      expect(r.status, `${target}: ${r.head}\n${r.body}`).to.equal(200);
      expect(victim.urls, target).to.deep.equal([expected]);
    }
    // the path checks hold for the absolute form too
    victim.urls = [];
    const outside = await rawTarget(s.url, 'GET', `http://${host}/proxy/projects/p/datasources/d/%2e%2e/secret`);
    expect(outside.status, outside.body).to.equal(400);
    expect(victim.urls).to.deep.equal([]);
  });

  it("PROXY-25: the upstream's Content-Length reaches the caller, for GET and HEAD, not chunked", async () => {
    for (const method of ['GET', 'HEAD']) {
      const r = await rawTarget(s.url, method, '/proxy/projects/p/datasources/big/blob');
      expect(r.status, r.head).to.equal(200);
      const headers = Object.fromEntries(
        r.head
          .split('\r\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      expect(headers['content-length'], `${method}: ${r.head}`).to.equal(String(BIG.length));
      expect(headers, method).to.not.have.property('transfer-encoding');
      expect(Buffer.byteLength(r.body, 'latin1'), method).to.equal(method === 'GET' ? BIG.length : 0);
    }
  });
});
