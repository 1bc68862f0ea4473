/**
 * Datasource proxy security rows PROXY-01..20, SECRET-03 and SECRET-06 of
 * docs/security.md (docs/api.md §8, §9), against a real server and a hostile upstream on
 * loopback. The upstream (`Hostile`) records every request it receives, so "nothing left the
 * server" is asserted as "the upstream saw no request".
 *
 * Cast (main server, auth on): admin owns proj-a and its Secret s1 (basicAuth svc:S1_CANARY);
 * dse holds a Role with `*` on Datasource only; dbe a Role with `*` on Dashboard only; gdse a
 * GlobalRole with `*` on GlobalDatasource only. Secret and GlobalSecret `sa` (basicAuth
 * svc:SA_CANARY) belong to admin too.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LevelStore } from '../src/storage/level-store.js';
import { AUTH_ENV, bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';
import { startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const MB = 1024 * 1024;
const canary = (tag: string) => `${tag}-CANARY-${randomBytes(9).toString('hex')}`;
const S1_CANARY = canary('S1');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const SA_CANARY = canary('SA');
/** Upstream response headers a browser would obey for our origin (none may reach the caller). */
const OBEYED_BY_BROWSERS: Record<string, string> = {
  'access-control-allow-origin': 'https://evil.example',
  'access-control-allow-credentials': 'true',
  'access-control-expose-headers': '*',
  'clear-site-data': '"cookies", "storage"',
  refresh: '0; url=https://evil.example/',
  link: '<https://evil.example/x.css>; rel=stylesheet, <https://evil.example/p.js>; rel=preload; as=script',
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'alt-svc': 'h2="evil.example:443"; ma=86400',
  'www-authenticate': 'Basic realm="dashplane login"',
  nel: '{"report_to":"evil","max_age":86400}',
  'report-to': '{"group":"evil","max_age":86400,"endpoints":[{"url":"https://evil.example/r"}]}',
  'reporting-endpoints': 'evil="https://evil.example/r"',
  'content-security-policy-report-only': "default-src 'none'; report-uri https://evil.example/r",
  'cross-origin-resource-policy': 'cross-origin',
  'cross-origin-opener-policy': 'unsafe-none',
  'service-worker-allowed': '/',
  'timing-allow-origin': '*',
  'accept-ch': 'Sec-CH-UA-Full-Version-List',
};

// ---------------------------------------------------------------------------------------------
// The hostile upstream
// ---------------------------------------------------------------------------------------------

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * An HTTP server that misbehaves on purpose. The route is the last path segment:
 * hang, drip, reset, big (?mb=N), html, cookie, redirect; anything else echoes the request
 * (method, url, headers, body length and sha256) as JSON.
 */
class Hostile {
  readonly server: http.Server;
  port = 0;
  hits: Hit[] = [];
  connections = 0;
  /** Sockets/responses of the slow routes that were closed (the proxy let go of them). */
  closed = { hang: 0, drip: 0, big: 0 };
  bigBytesSent = 0;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly host = '127.0.0.1') {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s: Socket) => {
      this.connections++;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  reset(): void {
    this.hits = [];
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.hits.push({ method: req.method!, url: req.url!, headers: req.headers });
    const u = new URL(req.url!, 'http://x');
    const route = u.pathname.split('/').pop();
    switch (route) {
      case 'hang':
        req.socket.once('close', () => this.closed.hang++);
        return;
      case 'drip': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x');
        const timer = setInterval(() => res.write('x'), 1000);
        res.once('close', () => {
          clearInterval(timer);
          this.closed.drip++;
        });
        return;
      }
      case 'reset':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000000' });
        res.write(Buffer.alloc(1000, 'r'), () => setTimeout(() => req.socket.resetAndDestroy(), 20));
        return;
      case 'big': {
        const total = Number(u.searchParams.get('mb') ?? '300') * MB;
        const chunk = Buffer.alloc(64 * 1024, 'b');
        let sent = 0;
        const body = new Readable({
          read: () => {
            if (sent >= total) return void body.push(null);
            const n = Math.min(chunk.length, total - sent);
            sent += n;
            this.bigBytesSent += n;
            body.push(n === chunk.length ? chunk : chunk.subarray(0, n));
          },
        });
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
        res.once('close', () => {
          body.destroy();
          this.closed.big++;
        });
        body.pipe(res);
        return;
      }
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': 'default-src *', 'x-content-type-options': 'off' });
        res.end('<html><body><script>fetch("/api/v1/users",{credentials:"include"})</script></body></html>');
        return;
      case 'cookie':
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['jwtSignature=evil; Path=/', 'jwtPayload=evil; Path=/'] });
        res.end('{}');
        return;
      case 'redirect':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
        return;
      case 'obey':
        res.writeHead(200, {
          'content-type': 'application/json',
          etag: '"v1"',
          'cache-control': 'max-age=5',
          'x-upstream': 'kept',
          ...OBEYED_BY_BROWSERS,
        });
        res.end('{}');
        return;
      default: {
        const hash = createHash('sha256');
        let length = 0;
        req.on('data', (b: Buffer) => {
          hash.update(b);
          length += b.length;
        });
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, length, sha256: hash.digest('hex') }));
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Set when the response broke off (reset, truncated, aborted). */
  error?: string;
}

/**
 * A request sent byte-exact with node:http (fetch would normalise `..` and `%2e`); headers as an
 * object, or as name/value pairs sent as written (case kept, names repeated).
 */
function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> | string[] = {},
  body?: Buffer | string,
): Promise<RawResponse> {
  const u = new URL(base);
  // node:http adds no Host to headers given as pairs (and a server answers 400 without one).
  if (Array.isArray(headers) && !headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host')) headers = ['Host', u.host, ...headers];
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let error: string | undefined;
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('aborted', () => (error ??= 'aborted'));
      res.on('error', (e) => (error ??= e.message));
      res.on('close', () => {
        const bodyBuf = Buffer.concat(chunks);
        if (!error && !res.complete) error = 'incomplete';
        resolve({ status: res.statusCode!, headers: res.headers, body: bodyBuf, ...(error ? { error } : {}) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const proxyDs = (name: string, url: string, extra: Record<string, unknown> = {}, kind = 'Datasource') => ({
  kind,
  metadata: { name },
  spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url, ...extra } } } } },
});
const panel = () => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text: 'hi' } } } });
const dashWithLocal = (name: string, local: Record<string, unknown>) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: {
    display: { name },
    duration: '1h',
    panels: { a: panel() },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
    datasources: {
      local: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: local } } } },
    },
  },
});
/** A dashboard body whose local datasource `local` is replaced by `ds`. */
const withLocal = (dash: ReturnType<typeof dashWithLocal>, ds: unknown) => ({
  ...dash,
  spec: { ...dash.spec, datasources: { local: ds } },
});
const role = (name: string, scopes: string[]) => ({
  kind: 'Role',
  metadata: { name },
  spec: { permissions: [{ actions: ['*'], scopes }] },
});
const binding = (name: string, roleName: string, user: string) => ({
  kind: 'RoleBinding',
  metadata: { name },
  spec: { role: roleName, subjects: [{ kind: 'User', name: user }] },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = http.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Text forms a secret could leak in: raw, base64 at every alignment, hex (both cases). */
function leakForms(secret: string): string[] {
  const out = [secret, Buffer.from(secret).toString('hex'), Buffer.from(secret).toString('hex').toUpperCase()];
  for (let k = 0; k < 3; k++) {
    const enc = Buffer.from('x'.repeat(k) + secret).toString('base64');
    // Drop the group holding the prefix and the last (possibly padded) group.
    out.push(enc.slice(k ? 4 : 0, enc.length - 4));
  }
  return out;
}

/** Reads a response with node:http, counting its bytes without keeping them. */
function countBytes(base: string, path: string): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    http
      .get({ host: u.hostname, port: u.port, path, agent: false }, (res) => {
        let n = 0;
        res.on('data', (b: Buffer) => (n += b.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function healthy(s: { url: string }): Promise<void> {
  const r = await fetch(`${s.url}/api/v1/health`);
  expect(r.status).to.equal(200);
  await r.arrayBuffer();
}

const vmRssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

async function stopChild(p: ServerProcess): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await p.exited;
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

describe('proxy security: PROXY-01..20, SECRET-03, SECRET-06', function () {
  this.timeout(60_000);
  const PROXY_ENV = {
    DASHPLANE_PROXY_TIMEOUT: '2s',
    DASHPLANE_PROXY_MAX_DURATION: '5s',
    DASHPLANE_PROXY_MAX_CONCURRENT: '50',
    DASHPLANE_PROXY_DENIED_NETWORKS: '["127.0.0.2/32"]',
    ...LOOPBACK_UPSTREAMS,
  };
  const files = tempDir('dashplane-secret-files-');
  const FILE_CANARY = canary('FILE');
  let up: Hostile;
  let s: TestServer;
  let admin: Tokens;
  const t: Record<string, Tokens> = {};
  const P = '/proxy/projects/proj-a/datasources';
  const asAdmin = () => bearer(admin);
  const asAdminPairs = () => Object.entries(asAdmin()).flat();

  before(async () => {
    writeFileSync(join(files.path, 'pw.txt'), `${FILE_CANARY}\n`);
    up = await new Hostile().start();
    s = await startAuthServer({ ...PROXY_ENV, DASHPLANE_SECURITY_SECRET_FILES_DIR: files.path });
    admin = await loginAdmin(s);
    for (const name of ['dse', 'dbe', 'gdse']) {
      await signUp(s, name);
      t[name] = await login(s, name);
    }
    await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'proj-a' }, spec: {} }, asAdmin()));
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/secrets',
        { kind: 'Secret', metadata: { name: 's1' }, spec: { basicAuth: { username: 'svc', password: S1_CANARY } } },
        asAdmin(),
      ),
    );
    await ok(s.api('POST', '/api/v1/projects/proj-a/roles', role('ds-only', ['Datasource']), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/proj-a/roles', role('dash-only', ['Dashboard']), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/proj-a/rolebindings', binding('dse-ds', 'ds-only', 'dse'), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/proj-a/rolebindings', binding('dbe-dash', 'dash-only', 'dbe'), asAdmin()));
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/secrets',
        { kind: 'Secret', metadata: { name: 'sa' }, spec: { basicAuth: { username: 'svc', password: SA_CANARY } } },
        asAdmin(),
      ),
    );
    await ok(
      s.api(
        'POST',
        '/api/v1/globalsecrets',
        { kind: 'GlobalSecret', metadata: { name: 'sa' }, spec: { basicAuth: { username: 'svc', password: SA_CANARY } } },
        asAdmin(),
      ),
    );
    await ok(
      s.api(
        'POST',
        '/api/v1/globalroles',
        { kind: 'GlobalRole', metadata: { name: 'gds-only' }, spec: { permissions: [{ actions: ['*'], scopes: ['GlobalDatasource'] }] } },
        asAdmin(),
      ),
    );
    await ok(
      s.api(
        'POST',
        '/api/v1/globalrolebindings',
        {
          kind: 'GlobalRoleBinding',
          metadata: { name: 'gdse-gds' },
          spec: { role: 'gds-only', subjects: [{ kind: 'User', name: 'gdse' }] },
        },
        asAdmin(),
      ),
    );
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('plain', up.url), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('withsecret', up.url, { secret: 's1' }), asAdmin()));
    await ok(s.api('POST', '/api/v1/globaldatasources', proxyDs('gplain', up.url, {}, 'GlobalDatasource'), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/proj-a/dashboards', dashWithLocal('dash1', { url: up.url, secret: 's1' }), asAdmin()));
  });
  beforeEach(() => up.reset());
  after(async () => {
    await s?.stop();
    await up?.stop();
    files.remove();
  });

  it('sanity: the proxy forwards for an authorised caller (project, global, dashboard-local)', async () => {
    for (const path of [
      `${P}/plain/api/v1/query?query=up`,
      '/proxy/globaldatasources/gplain/api/v1/query?query=up',
      '/proxy/projects/proj-a/dashboards/dash1/datasources/local/api/v1/query?query=up',
    ]) {
      const r = await rawRequest(s.url, 'GET', path, asAdmin());
      expect(r.status, `${path}: ${r.body}`).to.equal(200);
      expect(JSON.parse(r.body.toString()).url).to.equal('/api/v1/query?query=up');
    }
    expect(up.hits).to.have.length(3);
  });

  it('PROXY-01: a Datasource editor without Secret read cannot save a datasource using s1 (403); the attacker receives nothing', async () => {
    const attacker = proxyDs('evil', `${up.url}/steal`, { secret: 's1' });
    const r = await s.api('POST', '/api/v1/projects/proj-a/datasources', attacker, bearer(t.dse));
    expect(r.status, r.text).to.equal(403);
    expect(r.text).to.not.include(S1_CANARY);
    // Moving an existing datasource to the attacker URL is refused the same way.
    const put = await s.api(
      'PUT',
      '/api/v1/projects/proj-a/datasources/withsecret',
      { ...proxyDs('withsecret', `${up.url}/steal`, { secret: 's1' }), metadata: { name: 'withsecret', project: 'proj-a' } },
      bearer(t.dse),
    );
    expect(put.status, put.text).to.equal(403);
    // Without a secret the same user may save (the role works), so the 403 is about s1.
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('dse-own', up.url), bearer(t.dse)));
    expect(await s.server.store.get({ kind: 'Datasource', project: 'proj-a', name: 'evil' })).to.equal(undefined);
    const stored = await s.server.store.get({ kind: 'Datasource', project: 'proj-a', name: 'withsecret' });
    expect(JSON.stringify(stored)).to.not.include('/steal');
    const probe = await rawRequest(s.url, 'GET', `${P}/evil/steal`, bearer(t.dse));
    expect(probe.status).to.equal(404);
    expect(up.hits).to.deep.equal([]);
  });

  it('PROXY-02: the unsaved-datasource route referencing s1 forwards no credential', async () => {
    const U = '/proxy/unsaved/projects/proj-a/datasources/api/v1/query';
    const send = (spec: unknown, who: Tokens) =>
      rawRequest(
        s.url,
        'POST',
        U,
        { ...bearer(who), 'content-type': 'application/json' },
        JSON.stringify({ method: 'GET', spec, body: null }),
      );
    // Control: the route works for dse without a secret (so the refusal below is about s1).
    const control = await send(proxyDs('tmp', `${up.url}/control`).spec, t.dse);
    expect(control.status, control.body.toString()).to.equal(200);
    expect(up.hits.map((h) => h.url)).to.deep.equal(['/control/api/v1/query']);
    up.reset();
    for (const path of [U, '/proxy/unsaved/projects/proj-a/dashboards/dash1/datasources/api/v1/query']) {
      const body = JSON.stringify({ method: 'GET', spec: proxyDs('tmp', `${up.url}/steal`, { secret: 's1' }).spec, body: null });
      const r = await rawRequest(s.url, 'POST', path, { ...bearer(t.dse), 'content-type': 'application/json' }, body);
      expect([401, 403, 404], `${path}: ${r.status} ${r.body}`).to.include(r.status);
      expect(r.body.toString()).to.not.include(S1_CANARY);
    }
    // The secret named at another place of the plugin spec than the proxy block changes nothing.
    const nested = {
      default: false,
      plugin: {
        kind: 'PrometheusDatasource',
        spec: { a: { proxy: { kind: 'HTTPProxy', spec: { url: `${up.url}/steal`, secret: 's1' } } } },
      },
    };
    const n = await send(nested, t.dse);
    expect([400, 401, 403, 404], `${n.status} ${n.body}`).to.include(n.status);
    expect(up.hits, JSON.stringify(up.hits)).to.deep.equal([]);
  });

  it('PROXY-03: a Dashboard editor without Secret read cannot save a local datasource using s1; no credential leaves', async () => {
    const r = await s.api(
      'POST',
      '/api/v1/projects/proj-a/dashboards',
      dashWithLocal('evil-dash', { url: `${up.url}/attacker`, secret: 's1' }),
      bearer(t.dbe),
    );
    expect(r.status, r.text).to.equal(403);
    // Re-pointing the admin's dashboard-local datasource at the attacker: refused too.
    const put = await s.api(
      'PUT',
      '/api/v1/projects/proj-a/dashboards/dash1',
      { ...dashWithLocal('dash1', { url: `${up.url}/attacker`, secret: 's1' }), metadata: { name: 'dash1', project: 'proj-a' } },
      bearer(t.dbe),
    );
    expect(put.status, put.text).to.equal(403);
    // Adding a second local datasource with s1 next to the admin's: refused.
    const two = dashWithLocal('dash1', { url: up.url, secret: 's1' }) as any;
    two.spec.datasources.extra = {
      default: false,
      plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: `${up.url}/attacker`, secret: 's1' } } } },
    };
    const add = await s.api(
      'PUT',
      '/api/v1/projects/proj-a/dashboards/dash1',
      { ...two, metadata: { name: 'dash1', project: 'proj-a' } },
      bearer(t.dbe),
    );
    expect(add.status, add.text).to.equal(403);
    for (const name of ['evil-dash/datasources/local', 'dash1/datasources/extra']) {
      const call = await rawRequest(s.url, 'GET', `/proxy/projects/proj-a/dashboards/${name}/x`, bearer(t.dbe));
      expect([403, 404], `${name}: ${call.status} ${call.body}`).to.include(call.status);
    }
    const stored = JSON.stringify(await s.server.store.get({ kind: 'Dashboard', project: 'proj-a', name: 'dash1' }));
    expect(stored).to.not.include('/attacker');
    expect(up.hits, JSON.stringify(up.hits)).to.deep.equal([]);
  });

  // Shapes of a secret reference that are not a name: the permission check used to look only at
  // strings while the lookup stringified the value, so ["sa"] borrowed Secret "sa" unchecked.
  const BAD_SECRETS: unknown[] = [['sa'], 7, { name: 'sa' }, true, '../B/s1', '*', 's\u0000', ''];
  const dsSpec = (pluginKind: string, proxy: Record<string, unknown>) => ({
    default: false,
    plugin: { kind: pluginKind, spec: { proxy: { kind: 'HTTPProxy', spec: proxy } } },
  });
  /** The JSON paths a 400 answer names. */
  const problemPaths = (text: string): string[] =>
    ((JSON.parse(text) as { details?: { path: string }[] }).details ?? []).map((d) => d.path);
  const sendUnsaved = (path: string, body: unknown, who: Tokens) =>
    rawRequest(s.url, 'POST', path, { ...bearer(who), 'content-type': 'application/json' }, JSON.stringify(body));
  const expectNothingLeft = () => {
    expect(up.hits, JSON.stringify(up.hits.map((h) => `${h.method} ${h.url} ${h.headers.authorization ?? ''}`))).to.deep.equal([]);
  };

  it('PROXY-02: the unsaved route refuses a secret reference that is not a valid name (project, global, dashboard-local) before any check or lookup', async () => {
    const routes: [string, Tokens][] = [
      ['/proxy/unsaved/projects/proj-a/datasources/api/v1/query', t.dse],
      ['/proxy/unsaved/globaldatasources/api/v1/query', t.gdse],
      ['/proxy/unsaved/projects/proj-a/dashboards/dash1/datasources/api/v1/query', t.dbe],
    ];
    for (const [path, who] of routes) {
      for (const pluginKind of ['PrometheusDatasource', 'TempoDatasource']) {
        for (const secret of BAD_SECRETS) {
          const r = await sendUnsaved(
            path,
            { method: 'GET', spec: dsSpec(pluginKind, { url: `${up.url}/steal`, secret }), body: null },
            who,
          );
          const what = `${path} ${pluginKind} ${JSON.stringify(secret)}: ${r.status} ${r.body}`;
          expect(r.status, what).to.equal(400);
          expect(problemPaths(r.body.toString()), what).to.include('spec.plugin.spec.proxy.spec.secret');
          expect(r.body.toString()).to.not.include(SA_CANARY);
        }
      }
      // Control: the same caller and route forward a datasource without a secret.
      const control = await sendUnsaved(
        path,
        { method: 'GET', spec: dsSpec('TempoDatasource', { url: `${up.url}/control` }), body: null },
        who,
      );
      expect(control.status, `${path}: ${control.body}`).to.equal(200);
      expect(up.hits.map((h) => h.url)).to.deep.equal(['/control/api/v1/query']);
      up.reset();
    }
    expectNothingLeft();
  });

  it('PROXY-01/03: saving a secret reference that is not a valid name is 400 for every plugin kind (Datasource, GlobalDatasource, dashboard-local)', async () => {
    for (const pluginKind of ['TempoDatasource', 'LokiDatasource', 'PrometheusDatasource']) {
      for (const secret of BAD_SECRETS) {
        const proxy = { url: `${up.url}/steal`, secret };
        const saves: [string, unknown, Tokens, string][] = [
          [
            '/api/v1/projects/proj-a/datasources',
            { kind: 'Datasource', metadata: { name: 'evil' }, spec: dsSpec(pluginKind, proxy) },
            t.dse,
            'spec.plugin.spec.proxy.spec.secret',
          ],
          [
            '/api/v1/globaldatasources',
            { kind: 'GlobalDatasource', metadata: { name: 'evil' }, spec: dsSpec(pluginKind, proxy) },
            t.gdse,
            'spec.plugin.spec.proxy.spec.secret',
          ],
          [
            '/api/v1/projects/proj-a/dashboards',
            withLocal(dashWithLocal('evil-dash', {}), dsSpec(pluginKind, proxy)),
            t.dbe,
            'spec.datasources.local.plugin.spec.proxy.spec.secret',
          ],
        ];
        for (const [path, body, who, field] of saves) {
          const r = await s.api('POST', path, body, bearer(who));
          const what = `${path} ${pluginKind} ${JSON.stringify(secret)}: ${r.status} ${r.text}`;
          expect(r.status, what).to.equal(400);
          expect(problemPaths(r.text), what).to.include(field);
        }
      }
    }
    expect(await s.server.store.get({ kind: 'Datasource', project: 'proj-a', name: 'evil' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'GlobalDatasource', project: '', name: 'evil' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'Dashboard', project: 'proj-a', name: 'evil-dash' })).to.equal(undefined);
    for (const path of [
      `${P}/evil/x`,
      '/proxy/globaldatasources/evil/x',
      '/proxy/projects/proj-a/dashboards/evil-dash/datasources/local/x',
    ]) {
      expect((await rawRequest(s.url, 'GET', path, asAdmin())).status, path).to.equal(404);
    }
    expectNothingLeft();
  });

  it('PROXY-01: a stored datasource whose secret is not a name (written before the rule) is refused at the proxy, never looked up', async () => {
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/datasources',
        { kind: 'Datasource', metadata: { name: 'legacy' }, spec: dsSpec('TempoDatasource', { url: `${up.url}/steal` }) },
        asAdmin(),
      ),
    );
    const key = { kind: 'Datasource', project: 'proj-a', name: 'legacy' };
    for (const secret of [['sa'], { name: 'sa' }, 's\u0000']) {
      const obj = (await s.server.store.get(key))!;
      (obj.spec as any).plugin.spec.proxy.spec.secret = secret;
      await s.server.store.update(obj, { expectedVersion: obj.metadata.version });
      const r = await rawRequest(s.url, 'GET', `${P}/legacy/api/v1/query`, bearer(t.dse));
      expect(r.status, `${JSON.stringify(secret)}: ${r.body}`).to.equal(400);
      expect(problemPaths(r.body.toString())).to.include('spec.plugin.spec.proxy.spec.secret');
    }
    expectNothingLeft();
  });

  it('PROXY-02/03: a datasource has one proxy block: a second one anywhere in the plugin spec is 400 (unsaved and at save)', async () => {
    const two = {
      default: false,
      plugin: {
        kind: 'TempoDatasource',
        spec: {
          proxy: { kind: 'HTTPProxy', spec: { url: `${up.url}/ok` } },
          extra: { deep: { kind: 'HTTPProxy', spec: { url: `${up.url}/steal`, secret: 'sa' } } },
        },
      },
    };
    const r = await sendUnsaved('/proxy/unsaved/projects/proj-a/datasources/x', { method: 'GET', spec: two, body: null }, t.dse);
    expect(r.status, r.body.toString()).to.equal(400);
    expect(problemPaths(r.body.toString())).to.include('spec.plugin.spec.extra.deep');
    const save = await s.api('POST', '/api/v1/projects/proj-a/dashboards', withLocal(dashWithLocal('two-dash', {}), two), bearer(t.dbe));
    expect(save.status, save.text).to.equal(400);
    expect(problemPaths(save.text)).to.include('spec.datasources.local.plugin.spec.extra.deep');
    expectNothingLeft();
  });

  it('PROXY-08: malformed url, headers and allowedEndpoints are 400 naming the field, at save and in the unsaved route', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ url: [up.url] }, 'url'],
      [{ url: 7 }, 'url'],
      [{ url: up.url, headers: ['X-A: 1'] }, 'headers'],
      [{ url: up.url, headers: { 'X-A': 7 } }, 'headers.X-A'],
      [{ url: up.url, headers: { 'X-A': 'a\r\nX-Injected: 1' } }, 'headers.X-A'],
      [{ url: up.url, headers: { 'X-A': 'a\u0000' } }, 'headers.X-A'],
      [{ url: up.url, headers: { 'Bad Name': 'x' } }, 'headers["Bad Name"]'],
      [{ url: up.url, allowedEndpoints: 'GET /api' }, 'allowedEndpoints'],
      [{ url: up.url, allowedEndpoints: [{ endpointPattern: ['/api'], method: 'GET' }] }, 'allowedEndpoints[0].endpointPattern'],
      [{ url: up.url, allowedEndpoints: [{ endpointPattern: '(', method: 'GET' }] }, 'allowedEndpoints[0].endpointPattern'],
      [{ url: up.url, allowedEndpoints: [{ endpointPattern: '/api/.*', method: 'get' }] }, 'allowedEndpoints[0].method'],
      [{ url: up.url, allowedEndpoints: [{ endpointPattern: '/api/.*', method: ['GET'] }] }, 'allowedEndpoints[0].method'],
      [{ url: up.url, allowedEndpoints: ['/api'] }, 'allowedEndpoints[0]'],
    ];
    for (const [proxy, field] of bad) {
      const spec = dsSpec('TempoDatasource', proxy);
      const save = await s.api(
        'POST',
        '/api/v1/projects/proj-a/datasources',
        { kind: 'Datasource', metadata: { name: 'bad-shape' }, spec },
        bearer(t.dse),
      );
      expect(save.status, `${JSON.stringify(proxy)}: ${save.text}`).to.equal(400);
      expect(problemPaths(save.text), JSON.stringify(proxy)).to.include(`spec.plugin.spec.proxy.spec.${field}`);
      const r = await sendUnsaved('/proxy/unsaved/projects/proj-a/datasources/api/x', { method: 'GET', spec, body: null }, t.dse);
      expect(r.status, `${JSON.stringify(proxy)}: ${r.body}`).to.equal(400);
      expect(problemPaths(r.body.toString()), JSON.stringify(proxy)).to.include(`spec.plugin.spec.proxy.spec.${field}`);
    }
    expectNothingLeft();
  });

  it('PROXY-02: the unsaved route checks method, spec and body: strings where strings belong', async () => {
    const spec = dsSpec('TempoDatasource', { url: up.url });
    const bad: [Record<string, unknown>, string][] = [
      [{ method: 'get', spec, body: null }, 'method'],
      [{ method: ['GET'], spec, body: null }, 'method'],
      [{ method: 'CONNECT', spec, body: null }, 'method'],
      [{ method: 'POST', spec, body: { query: 'up' } }, 'body'],
      [{ method: 'POST', spec, body: 7 }, 'body'],
      [{ method: 'GET', spec, body: 'query=up' }, 'body'],
      [{ method: 'GET', spec: [spec], body: null }, 'spec'],
      [{ method: 'GET', spec: { plugin: 'TempoDatasource' }, body: null }, 'spec.plugin'],
    ];
    for (const [body, field] of bad) {
      const r = await sendUnsaved('/proxy/unsaved/projects/proj-a/datasources/x', body, t.dse);
      expect(r.status, `${JSON.stringify(body)}: ${r.body}`).to.equal(400);
      expect(problemPaths(r.body.toString()), JSON.stringify(body)).to.include(field);
    }
    expectNothingLeft();
    // The envelope's Content-* headers describe the JSON, not the body sent upstream.
    const good = await rawRequest(
      s.url,
      'POST',
      '/proxy/unsaved/projects/proj-a/datasources/x',
      { ...bearer(t.dse), 'content-type': 'application/json', 'content-language': 'de' },
      JSON.stringify({ method: 'POST', spec, body: 'query=up' }),
    );
    expect(good.status, good.body.toString()).to.equal(200);
    const echo = JSON.parse(good.body.toString());
    expect(echo).to.include({ method: 'POST', url: '/x', length: 8 });
    expect(Object.keys(echo.headers).filter((n) => n.startsWith('content-') && n !== 'content-length')).to.deep.equal([]);
  });

  it('PROXY-04: our jwtPayload/jwtSignature/jwtRefreshToken cookies never reach the upstream', async () => {
    const [h, p, sig] = admin.access_token.split('.');
    const cookie = `jwtPayload=${h}.${p}; jwtSignature=${sig}; jwtRefreshToken=${admin.refresh_token}; other=1`;
    const r = await rawRequest(s.url, 'GET', `${P}/plain/api/v1/query`, { cookie });
    expect(r.status, r.body.toString()).to.equal(200);
    const echo = JSON.parse(r.body.toString());
    expect(echo.headers).to.not.have.property('cookie');
    expect(JSON.stringify(echo)).to.not.include(sig).and.not.include(admin.refresh_token);
  });

  it("PROXY-05: the caller's Authorization never reaches the upstream; with a secret only the secret's does", async () => {
    const plain = JSON.parse((await rawRequest(s.url, 'GET', `${P}/plain/api/v1/query`, asAdmin())).body.toString());
    expect(plain.headers).to.not.have.property('authorization');
    expect(JSON.stringify(plain)).to.not.include(admin.access_token.split('.')[2]);
    const withSecret = await rawRequest(s.url, 'GET', `${P}/withsecret/api/v1/query`, asAdmin());
    expect(withSecret.status).to.equal(200);
    const echo = JSON.parse(withSecret.body.toString());
    expect(echo.headers.authorization).to.equal(`Basic ${b64(`svc:${S1_CANARY}`)}`);
    expect(JSON.stringify(echo)).to.not.include(admin.access_token.split('.')[2]);
    // The credential is for the upstream only: it is not echoed back by dashplane's own headers.
    expect(JSON.stringify(withSecret.headers)).to.not.include(b64(`svc:${S1_CANARY}`));
  });

  it('PROXY-06: an upstream text/html page is served sandboxed (CSP sandbox, nosniff), overriding upstream values', async () => {
    const r = await rawRequest(s.url, 'GET', `${P}/plain/html`, asAdmin());
    expect(r.status).to.equal(200);
    expect(r.body.toString()).to.include('<script>');
    expect(r.headers['content-security-policy']).to.equal('sandbox');
    expect(r.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('PROXY-07: upstream Set-Cookie (jwtSignature=evil) is dropped', async () => {
    const r = await rawRequest(s.url, 'GET', `${P}/plain/cookie`, asAdmin());
    expect(r.status).to.equal(200);
    expect(r.headers['set-cookie']).to.equal(undefined);
    // Our session is untouched: the token still works.
    await ok(s.api('GET', '/api/v1/user/whoami', undefined, asAdmin()));
  });

  it('PROXY-08: allowedEndpoints is matched anchored on the normalised path and method', async () => {
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/datasources',
        proxyDs('restricted', up.url, { allowedEndpoints: [{ endpointPattern: '/api/v1/query', method: 'GET' }] }),
        asAdmin(),
      ),
    );
    const refused: [string, string][] = [
      ['GET', '/x/api/v1/query'],
      ['GET', '/api/v1/query/../../admin'],
      ['GET', '/api/v1/query/%2e%2e/%2e%2e/admin'],
      ['GET', '/api/v1/query/%2E%2E/%2E%2E/admin'],
      ['GET', '/api/v1/query/.%2e/admin'],
      ['GET', '/api/v1/query%2f..%2f..%2fadmin'],
      ['GET', '/api/v1/query/'],
      ['GET', '/api/v1/query/x'],
      ['GET', '/API/v1/query'],
      ['GET', '/api/v1/queryx'],
      ['POST', '/api/v1/query'],
      ['DELETE', '/api/v1/query'],
    ];
    for (const [method, suffix] of refused) {
      const r = await rawRequest(s.url, method, `${P}/restricted${suffix}`, asAdmin());
      expect([400, 403], `${method} ${suffix}: ${r.status} ${r.body}`).to.include(r.status);
    }
    expect(up.hits, JSON.stringify(up.hits.map((h) => `${h.method} ${h.url}`))).to.deep.equal([]);
    const good = await rawRequest(s.url, 'GET', `${P}/restricted/api/v1/query?query=up`, asAdmin());
    expect(good.status).to.equal(200);
    expect(up.hits.map((h) => `${h.method} ${h.url}`)).to.deep.equal(['GET /api/v1/query?query=up']);
  });

  it('a datasource changed or deleted between two requests: the next request follows the stored one (project, global, dashboard-local)', async () => {
    // The proxy keeps what it worked out of a datasource (its checked proxy block, compiled
    // allowedEndpoints) while the stored object is unchanged: every change must end that.
    const cases = [
      {
        path: `${P}/changing`,
        put: (spec: Record<string, unknown>) =>
          s.api('PUT', '/api/v1/projects/proj-a/datasources/changing', proxyDs('changing', up.url, spec), asAdmin()),
        create: () => s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('changing', up.url), asAdmin()),
        del: () => s.api('DELETE', '/api/v1/projects/proj-a/datasources/changing', undefined, asAdmin()),
      },
      {
        path: '/proxy/globaldatasources/gchanging',
        put: (spec: Record<string, unknown>) =>
          s.api('PUT', '/api/v1/globaldatasources/gchanging', proxyDs('gchanging', up.url, spec, 'GlobalDatasource'), asAdmin()),
        create: () => s.api('POST', '/api/v1/globaldatasources', proxyDs('gchanging', up.url, {}, 'GlobalDatasource'), asAdmin()),
        del: () => s.api('DELETE', '/api/v1/globaldatasources/gchanging', undefined, asAdmin()),
      },
      {
        path: '/proxy/projects/proj-a/dashboards/dchanging/datasources/local',
        put: (spec: Record<string, unknown>) =>
          s.api('PUT', '/api/v1/projects/proj-a/dashboards/dchanging', dashWithLocal('dchanging', { url: up.url, ...spec }), asAdmin()),
        create: () => s.api('POST', '/api/v1/projects/proj-a/dashboards', dashWithLocal('dchanging', { url: up.url }), asAdmin()),
        del: () => s.api('DELETE', '/api/v1/projects/proj-a/dashboards/dchanging', undefined, asAdmin()),
      },
    ];
    for (const c of cases) {
      up.reset();
      await ok(c.create());
      // each request another query: the query cache would answer a repeated one itself
      let n = 0;
      const seen = async () => (await rawRequest(s.url, 'GET', `${c.path}/api/v1/query?query=up${++n}`, asAdmin())).status;
      expect(await seen(), c.path).to.equal(200);
      // a new base path: the next request goes under it
      await ok(c.put({ url: `${up.url}/v2` }));
      expect(await seen(), c.path).to.equal(200);
      // allowedEndpoints that leave the query out: refused, nothing sent
      await ok(c.put({ url: up.url, allowedEndpoints: [{ endpointPattern: '/api/v1/labels', method: 'GET' }] }));
      expect(await seen(), c.path).to.equal(403);
      // a header to send: it arrives
      await ok(c.put({ url: up.url, headers: { 'X-Scope-OrgID': 'tenant-2' } }));
      expect(await seen(), c.path).to.equal(200);
      expect(
        up.hits.map((h) => `${h.url} ${h.headers['x-scope-orgid'] ?? '-'}`),
        c.path,
      ).to.deep.equal(['/api/v1/query?query=up1 -', '/v2/api/v1/query?query=up2 -', '/api/v1/query?query=up4 tenant-2']);
      await ok(c.del(), 204);
      expect(await seen(), c.path).to.equal(404);
      // the same name again, as it was first: the first spec, not a remembered one
      await ok(c.create());
      expect(await seen(), c.path).to.equal(200);
      expect(up.hits.at(-1)?.headers['x-scope-orgid'], c.path).to.equal(undefined);
      await ok(c.del(), 204);
    }
  });

  it("a datasource's Secret changed or deleted between two requests: the next request sends the stored credentials", async () => {
    const authOf = async () => {
      const r = await rawRequest(s.url, 'GET', `${P}/rotating/api/v1/query`, asAdmin());
      return r.status === 200 ? (JSON.parse(r.body.toString()).headers.authorization ?? '-') : r.status;
    };
    const secret = (spec: unknown) => ({ kind: 'Secret', metadata: { name: 'rotating' }, spec });
    await ok(s.api('POST', '/api/v1/projects/proj-a/secrets', secret({ basicAuth: { username: 'svc', password: 'first' } }), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('rotating', up.url, { secret: 'rotating' }), asAdmin()));
    try {
      expect(await authOf()).to.equal(`Basic ${b64('svc:first')}`);
      await ok(
        s.api('PUT', '/api/v1/projects/proj-a/secrets/rotating', secret({ basicAuth: { username: 'svc', password: 'second' } }), asAdmin()),
      );
      expect(await authOf()).to.equal(`Basic ${b64('svc:second')}`);
      await ok(
        s.api(
          'PUT',
          '/api/v1/projects/proj-a/secrets/rotating',
          secret({ authorization: { type: 'Bearer', credentials: 'third' } }),
          asAdmin(),
        ),
      );
      expect(await authOf()).to.equal('Bearer third');
      await ok(s.api('DELETE', '/api/v1/projects/proj-a/secrets/rotating', undefined, asAdmin()), 204);
      expect(await authOf()).to.equal(400);
      await ok(s.api('POST', '/api/v1/projects/proj-a/secrets', secret({ basicAuth: { username: 'svc', password: 'fourth' } }), asAdmin()));
      expect(await authOf()).to.equal(`Basic ${b64('svc:fourth')}`);
    } finally {
      await s.api('DELETE', '/api/v1/projects/proj-a/datasources/rotating', undefined, asAdmin());
      await s.api('DELETE', '/api/v1/projects/proj-a/secrets/rotating', undefined, asAdmin());
    }
  });

  it('PROXY-09: encoded and plain dot segments never leave the datasource base path', async () => {
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('based', `${up.url}/base`), asAdmin()));
    const attempts = [
      '/../secret',
      '/%2e%2e/secret',
      '/%2E%2E/secret',
      '/.%2e/secret',
      '/..%2fsecret',
      '/..%2Fsecret',
      '/..%5csecret',
      '/..\\secret',
      '/%252e%252e/secret',
      '/a/../../secret',
      '/./secret',
      '//../secret',
      '/%2e%2e%2fsecret',
      '/ok/..',
    ];
    for (const suffix of attempts) {
      const r = await rawRequest(s.url, 'GET', `${P}/based${suffix}`, asAdmin());
      expect([200, 400], `${suffix}: ${r.status} ${r.body}`).to.include(r.status);
    }
    const ok200 = await rawRequest(s.url, 'GET', `${P}/based/ok?x=1`, asAdmin());
    expect(ok200.status).to.equal(200);
    expect(up.hits.length).to.be.greaterThan(0);
    for (const h of up.hits) {
      expect(h.url, h.url).to.match(/^\/base\//);
      const decoded = decodeURIComponent(h.url.split('?')[0]);
      expect(decoded.split(/[/\\]/), h.url).to.not.include('..');
    }
  });

  it("the datasource URL's own query string (a tenant) is kept, before the caller's, as Perses' reverse proxy joins them", async () => {
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('with-tenant', `${up.url}/base/?tenant=x`), asAdmin()));
    for (const [suffix, expected] of [
      ['/api/v1/query?query=up', '/base/api/v1/query?tenant=x&query=up'],
      ['/api/v1/labels', '/base/api/v1/labels?tenant=x'],
    ]) {
      const before = up.hits.length;
      const r = await rawRequest(s.url, 'GET', `${P}/with-tenant${suffix}`, asAdmin());
      expect(r.status, String(r.body)).to.equal(200);
      expect(up.hits.slice(before).map((h) => h.url)).to.deep.equal([expected]);
    }
  });

  it('PROXY-10: spoofed forwarding, hop-by-hop and proxy-credential headers are not forwarded', async () => {
    const r = await rawRequest(s.url, 'GET', `${P}/plain/api/v1/query`, {
      ...asAdmin(),
      'X-Forwarded-For': '6.6.6.6',
      'X-Forwarded-Host': 'evil.example',
      'X-Forwarded-Proto': 'gopher',
      Forwarded: 'for=6.6.6.7;host=evil2.example',
      Connection: 'X-Secret',
      'X-Secret': 'hop-by-hop-value',
      'Proxy-Authorization': 'Basic cHJveHk6c2VjcmV0',
      'X-Real-IP': '6.6.6.8',
    });
    expect(r.status).to.equal(200);
    const echo = JSON.parse(r.body.toString());
    for (const name of ['x-secret', 'proxy-authorization', 'forwarded']) expect(echo.headers, name).to.not.have.property(name);
    const sent = JSON.stringify(echo.headers);
    for (const spoof of ['6.6.6.6', 'evil.example', 'gopher', '6.6.6.7', 'hop-by-hop-value', 'cHJveHk6c2VjcmV0', '6.6.6.8'])
      expect(sent, spoof).to.not.include(spoof);
  });

  it('PROXY-10: only allow-listed caller headers reach the upstream: no identity, client-address, override or cookie header, in any case or repeated', async () => {
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/datasources',
        proxyDs('tenant', up.url, { headers: { 'X-Scope-OrgID': 'tenant-1', 'X-Forwarded-User': 'configured-by-admin' } }),
        asAdmin(),
      ),
    );
    const refused = [
      'X-Forwarded-User',
      'x-forwarded-server',
      'X-FORWARDED-FOR',
      'X-Forwarded-Host',
      'x-Forwarded-Proto',
      'X-Forwarded-Port',
      'X-Forwarded-Prefix',
      'X-Forwarded-Email',
      'X-Forwarded-Groups',
      'X-Forwarded-Access-Token',
      'X-Remote-User',
      'x-remote-group',
      'X-Auth-Request-User',
      'X-Auth-Request-Email',
      'X-WEBAUTH-USER',
      'Remote-User',
      'True-Client-IP',
      'X-Original-URL',
      'X-Rewrite-URL',
      'X-HTTP-Method-Override',
      'x-http-method',
      'X-Method-Override',
      'X-Real-IP',
      'CF-Connecting-IP',
      'Forwarded',
      'X-Client-IP',
      'X-Cluster-Client-IP',
      'Proxy-Authorization',
      'Proxy-Connection',
      'Cookie',
      'Authorization',
      'Origin',
      'Referer',
      'X-Scope-OrgID',
      'X-Requested-With',
    ];
    const pairs: string[] = [];
    refused.forEach((name, i) => pairs.push(name, `SPOOF-${i}`, name.toLowerCase(), `SPOOF-${i}-again`));
    pairs.push(
      'Accept',
      'application/json',
      'ACCEPT',
      'text/plain',
      'accept-encoding',
      'identity',
      'Accept-Language',
      'de',
      'Content-Type',
      'application/x-www-form-urlencoded',
      'User-Agent',
      'perses-ui',
      'Cache-Control',
      'no-cache',
      'If-None-Match',
      '"v0"',
      'traceparent',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    );
    for (const path of [`${P}/plain/api/v1/query`, `${P}/tenant/api/v1/query`]) {
      const r = await rawRequest(s.url, 'POST', path, [...asAdminPairs(), ...pairs], 'query=up');
      expect(r.status, r.body.toString()).to.equal(200);
      const echo = JSON.parse(r.body.toString()) as { headers: Record<string, string>; length: number };
      expect(JSON.stringify(echo.headers), path).to.not.include('SPOOF');
      expect(echo.length).to.equal(8);
      expect(echo.headers).to.include({
        accept: 'application/json, text/plain',
        'accept-encoding': 'identity',
        'accept-language': 'de',
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'perses-ui',
        'cache-control': 'no-cache',
        'if-none-match': '"v0"',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        via: '1.1 dashplane',
      });
      const expected = new Set([
        'host',
        'connection',
        'content-length',
        'transfer-encoding',
        'accept',
        'accept-encoding',
        'accept-language',
        'content-type',
        'user-agent',
        'cache-control',
        'if-none-match',
        'traceparent',
        'via',
      ]);
      if (path.includes('tenant')) {
        // The datasource's configured headers are the admin's and are sent (instead of the caller's copies).
        expect(echo.headers).to.include({ 'x-scope-orgid': 'tenant-1', 'x-forwarded-user': 'configured-by-admin' });
        expected.add('x-scope-orgid').add('x-forwarded-user');
      }
      expect(
        Object.keys(echo.headers).filter((n) => !expected.has(n)),
        path,
      ).to.deep.equal([]);
    }
  });

  it('PROXY-06/07: upstream headers our origin would obey (CORS grants, Clear-Site-Data, Refresh, Link, HSTS, Alt-Svc, ...) do not reach the caller', async () => {
    const r = await rawRequest(s.url, 'GET', `${P}/plain/obey`, asAdmin());
    expect(r.status).to.equal(200);
    // Cross-Origin-Resource-Policy is ours (same-origin), never the upstream's (cross-origin)
    for (const name of Object.keys(OBEYED_BY_BROWSERS))
      if (name !== 'cross-origin-resource-policy') expect(r.headers, name).to.not.have.property(name);
    expect(r.headers['cross-origin-resource-policy']).to.equal('same-origin');
    expect(r.headers).to.include({
      etag: '"v1"',
      'cache-control': 'max-age=5',
      'x-upstream': 'kept',
      'content-type': 'application/json',
      'content-security-policy': 'sandbox',
    });
  });

  it('PROXY-11: a datasource pointing back at dashplane gets no privilege (401/403/508)', async () => {
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/datasources',
        proxyDs('loop', `${s.url}/api/v1/users`, { headers: { 'X-Forwarded-User': 'admin' } }),
        asAdmin(),
      ),
    );
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('loop2', `${s.url}${P}/loop2`), asAdmin()));
    for (const path of [`${P}/loop`, `${P}/loop/admin`, `${P}/loop2/x`]) {
      const r = await rawRequest(s.url, 'GET', path, asAdmin());
      expect([401, 403, 508], `${path}: ${r.status} ${r.body}`).to.include(r.status);
      expect(r.body.toString()).to.not.include('"kind":"User"').and.not.include('nativeProvider');
    }
  });

  it('PROXY-12: *File secret fields: refused without/outside secret_files_dir, same error for existing and missing files; inside the dir the file is used', async () => {
    const sec = (name: string, spec: unknown) => ({ kind: 'Secret', metadata: { name }, spec });
    // (a) No secret_files_dir configured: every file reference is 400.
    const bare = await startTestServer({ env: PROXY_ENV });
    try {
      await ok(bare.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }));
      const texts: string[] = [];
      for (const [i, path] of ['/etc/hostname', '/etc/definitely-missing-dashplane-file'].entries()) {
        for (const spec of [{ basicAuth: { username: 'u', passwordFile: path } }, { tlsConfig: { keyFile: path } }]) {
          const r = await bare.api('POST', '/api/v1/projects/p/secrets', sec(`f${i}`, spec));
          expect(r.status, r.text).to.equal(400);
          texts.push(r.text.split(path).join('<path>'));
        }
      }
      expect(texts[0], 'existing vs missing file (basicAuth)').to.equal(texts[2]);
      expect(texts[1], 'existing vs missing file (tlsConfig)').to.equal(texts[3]);
      expect(await bare.server.store.list({ kind: 'Secret' })).to.deep.equal([]);
    } finally {
      await bare.stop();
    }
    // (b) secret_files_dir set: paths outside it are 400, indistinguishable whether they exist.
    const outside: string[] = [];
    for (const path of [
      '/etc/hostname',
      '/etc/definitely-missing-dashplane-file',
      '../../../../etc/hostname',
      `${files.path}/../../../etc/definitely-missing`,
    ]) {
      const r = await s.api(
        'POST',
        '/api/v1/projects/proj-a/secrets',
        sec('outside', { basicAuth: { username: 'u', passwordFile: path } }),
        asAdmin(),
      );
      expect(r.status, `${path}: ${r.text}`).to.equal(400);
      outside.push(r.text.split(path).join('<path>'));
      const k = await s.api('POST', '/api/v1/projects/proj-a/secrets', sec('outside', { tlsConfig: { keyFile: path } }), asAdmin());
      expect(k.status, `${path}: ${k.text}`).to.equal(400);
    }
    expect(new Set(outside).size, outside.join('\n')).to.equal(1);
    // (c) A file inside the directory is read at proxy time and sent as the password.
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/secrets',
        sec('from-file', { basicAuth: { username: 'svc', passwordFile: join(files.path, 'pw.txt') } }),
        asAdmin(),
      ),
    );
    await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('filesecret', up.url, { secret: 'from-file' }), asAdmin()));
    const r = await rawRequest(s.url, 'GET', `${P}/filesecret/api/v1/query`, asAdmin());
    expect(r.status, r.body.toString()).to.equal(200);
    expect(JSON.parse(r.body.toString()).headers.authorization).to.equal(`Basic ${b64(`svc:${FILE_CANARY}`)}`);
    // ... on every request: a rotated file (a mounted Secret updated in place) is used at once
    const rotated = canary('ROTATED');
    writeFileSync(join(files.path, 'pw.txt'), `${rotated}\n`);
    try {
      const again = await rawRequest(s.url, 'GET', `${P}/filesecret/api/v1/query`, asAdmin());
      expect(JSON.parse(again.body.toString()).headers.authorization).to.equal(`Basic ${b64(`svc:${rotated}`)}`);
    } finally {
      writeFileSync(join(files.path, 'pw.txt'), `${FILE_CANARY}\n`);
    }
    // (d) A symlink inside the directory pointing outside it: its target never goes upstream.
    mkdirSync(join(files.path, 'sub'), { recursive: true });
    symlinkSync('/etc/hostname', join(files.path, 'sub', 'link'));
    const hostname = readFileSync('/etc/hostname', 'utf8').trim();
    const link = await s.api(
      'POST',
      '/api/v1/projects/proj-a/secrets',
      sec('via-link', { basicAuth: { username: 'svc', passwordFile: join(files.path, 'sub', 'link') } }),
      asAdmin(),
    );
    if (link.status === 200) {
      await ok(s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs('linksecret', up.url, { secret: 'via-link' }), asAdmin()));
      up.reset();
      const l = await rawRequest(s.url, 'GET', `${P}/linksecret/api/v1/query`, asAdmin());
      expect([400, 403, 500, 502], `${l.status} ${l.body}`).to.include(l.status);
      expect(up.hits).to.deep.equal([]);
      if (hostname) expect(l.body.toString()).to.not.include(hostname);
    } else {
      expect(link.status, link.text).to.equal(400);
    }
  });

  it('PROXY-13: unauthenticated calls to every /proxy/... route family are 401 and connect nowhere', async () => {
    const paths = [
      `${P}/plain/api/v1/query`,
      `${P}/plain`,
      `${P}/withsecret/api/v1/query`,
      `${P}/nonexistent/x`,
      '/proxy/projects/no-such-project/datasources/x/y',
      '/proxy/globaldatasources/gplain/api/v1/query',
      '/proxy/globaldatasources/gplain',
      '/proxy/projects/proj-a/dashboards/dash1/datasources/local/api/v1/query',
      '/proxy/unsaved/projects/proj-a/datasources/plain/api/v1/query',
      '/proxy/unsaved/globaldatasources/gplain/api/v1/query',
      '/proxy/unsaved/projects/proj-a/dashboards/dash1/datasources/local/api/v1/query',
    ];
    const credentials: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-token' },
      { cookie: `jwtRefreshToken=${admin.refresh_token}` },
      { cookie: 'jwtPayload=a.b; jwtSignature=c' },
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        for (const headers of credentials) {
          const r = await rawRequest(
            s.url,
            method,
            path,
            { ...headers, 'content-type': 'application/json' },
            method === 'POST' ? '{}' : undefined,
          );
          expect(r.status, `${method} ${path} ${JSON.stringify(headers)}: ${r.body}`).to.equal(401);
        }
      }
    }
    expect(up.hits).to.deep.equal([]);
  });

  it('PROXY-14: proxy.denied_networks holds for every spelling of 127.0.0.2 (403; no connection)', async () => {
    const victim = await new Hostile('127.0.0.2').start();
    try {
      const v = victim.port;
      // A DNS name resolving to 127.0.0.2 would need /etc/hosts or an outside resolver: skipped.
      const forms = [
        `http://127.0.0.2:${v}`,
        `http://2130706434:${v}`,
        `http://[::ffff:127.0.0.2]:${v}`,
        `http://0x7f000002:${v}`,
        `http://127.2:${v}`,
        `http://0177.0.0.2:${v}`,
        `http://127.0.0.2.:${v}`,
      ];
      const results: string[] = [];
      for (const [i, url] of forms.entries()) {
        const save = await s.api('POST', '/api/v1/projects/proj-a/datasources', proxyDs(`denied-${i}`, url), asAdmin());
        if (save.status !== 200) {
          results.push(`${url}: save ${save.status}`);
          expect([400, 403], `${url}: ${save.text}`).to.include(save.status);
          continue;
        }
        const r = await rawRequest(s.url, 'GET', `${P}/denied-${i}/api/v1/query`, asAdmin());
        results.push(`${url}: proxy ${r.status}`);
      }
      expect(
        results.filter((x) => !/ (save 4\d\d|proxy 403)$/.test(x)),
        results.join('\n'),
      ).to.deep.equal([]);
      expect(victim.connections, 'connections to 127.0.0.2').to.equal(0);
      expect(victim.hits).to.deep.equal([]);
    } finally {
      await victim.stop();
    }
  });

  it('PROXY-15: a 5 MB body with credential injection reaches the upstream whole; the server lives', async () => {
    const body = randomBytes(5 * MB);
    const r = await rawRequest(
      s.url,
      'POST',
      `${P}/withsecret/api/v1/write`,
      { ...asAdmin(), 'content-type': 'application/octet-stream' },
      body,
    );
    expect(r.status, r.body.toString().slice(0, 300)).to.equal(200);
    const echo = JSON.parse(r.body.toString());
    expect(echo.length).to.equal(body.length);
    expect(echo.sha256).to.equal(sha256(body));
    expect(echo.headers.authorization).to.equal(`Basic ${b64(`svc:${S1_CANARY}`)}`);
    await healthy(s);
  });

  it('PROXY-16: refused → 502; reset mid-response → error or truncation; client abort mid-stream → no crash', async () => {
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/proj-a/datasources',
        proxyDs('refused', `http://127.0.0.1:${await closedPort()}`, { secret: 's1' }),
        asAdmin(),
      ),
    );
    const refused = await rawRequest(s.url, 'GET', `${P}/refused/api/v1/query`, asAdmin());
    expect(refused.status).to.equal(502);
    expect(refused.body.toString()).to.not.include(S1_CANARY);
    await healthy(s);

    const reset = await rawRequest(s.url, 'GET', `${P}/plain/reset`, asAdmin());
    if (reset.status === 200) expect(reset.error !== undefined || reset.body.length < 1_000_000, 'truncated').to.equal(true);
    else expect(reset.status).to.equal(502);
    await healthy(s);

    const closedBefore = up.closed.big;
    await new Promise<void>((resolve, reject) => {
      const u = new URL(s.url);
      const req = http.get({ host: u.hostname, port: u.port, path: `${P}/plain/big?mb=200`, headers: asAdmin(), agent: false }, (res) => {
        let got = 0;
        res.on('data', (b: Buffer) => {
          got += b.length;
          if (got > MB) req.destroy();
        });
        res.on('error', () => undefined);
        res.on('close', () => resolve());
      });
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
    });
    await waitFor('the upstream stream to be released after the client abort', () => up.closed.big > closedBefore, 5_000);
    expect(up.bigBytesSent).to.be.lessThan(200 * MB);
    await healthy(s);

    // A client that goes away before the upstream answers: the upstream request is cancelled at
    // once, not left to proxy.timeout (2 s here).
    const hangClosed = up.closed.hang;
    const hits = up.hits.length;
    const u = new URL(s.url);
    const waiting = http.get({ host: u.hostname, port: u.port, path: `${P}/plain/hang`, headers: asAdmin(), agent: false });
    waiting.on('error', () => undefined);
    await waitFor('the upstream to receive the request', () => up.hits.length > hits, 5_000);
    const goneAt = Date.now();
    waiting.destroy();
    await waitFor('the upstream request to be cancelled after the client left', () => up.closed.hang > hangClosed, 5_000);
    expect(Date.now() - goneAt, 'ms from the client leaving to the upstream connection closing').to.be.below(1_500);
    await healthy(s);
    const after = await rawRequest(s.url, 'GET', `${P}/plain/api/v1/query`, asAdmin());
    expect(after.status).to.equal(200);
  });

  it('PROXY-17: no answer → 504 within proxy.timeout; 1 B/s drip cut by proxy.max_duration; sockets freed', async () => {
    const hangClosed = up.closed.hang;
    const dripClosed = up.closed.drip;
    const started = Date.now();
    const [hang, drip] = await Promise.all([
      rawRequest(s.url, 'GET', `${P}/plain/hang`, asAdmin()).then((r) => ({ r, ms: Date.now() - started })),
      rawRequest(s.url, 'GET', `${P}/plain/drip`, asAdmin()).then((r) => ({ r, ms: Date.now() - started })),
    ]);
    expect(hang.r.status).to.equal(504);
    expect(hang.ms, 'hang answered after (ms)').to.be.within(1_500, 3_500);
    expect(drip.ms, 'drip cut after (ms)').to.be.within(4_500, 7_000);
    // a 200 GET is read whole to be shared (query cache), so the cut comes before any byte went
    // out: a 504; an answer already streaming would be cut after the bytes that came (at most 8)
    expect(drip.r.status, `drip: ${drip.r.status} ${drip.r.error}`).to.equal(504);
    expect(drip.r.headers?.['content-type']).to.match(/^application\/json/);
    await waitFor('hang socket closed', () => up.closed.hang > hangClosed, 3_000);
    await waitFor('drip response closed', () => up.closed.drip > dripClosed, 3_000);
    await healthy(s);
  });

  it('PROXY-18: a 300 MB upstream body is streamed; RSS grows < 50 MB; other requests are answered meanwhile', async function () {
    this.timeout(60_000);
    const dir = tempDir();
    const child = await spawnServer({
      dataDir: dir.path,
      env: { ...PROXY_ENV, DASHPLANE_PROXY_MAX_DURATION: '60s', DASHPLANE_PROXY_TIMEOUT: '10s' },
    });
    try {
      const api = (method: string, path: string, body?: unknown) =>
        fetch(child.url + path, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      expect((await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
      expect((await api('POST', '/api/v1/projects/p/datasources', proxyDs('big', up.url))).status).to.equal(200);
      // Warm up: proxied requests and a 100 MB stream. The first large transfer grows V8's young
      // generation by ~45 MB whatever its size (measured: 100 MB +45, then 300 MB +8, 900 MB +2),
      // so the baseline is taken after it; what is checked is that memory does not follow the body.
      for (let i = 0; i < 5; i++)
        expect((await rawRequest(child.url, 'GET', '/proxy/projects/p/datasources/big/echo')).status).to.equal(200);
      expect(await countBytes(child.url, '/proxy/projects/p/datasources/big/big?mb=100')).to.equal(100 * MB);
      const pid = child.child.pid!;
      const baseline = vmRssKb(pid);
      let peak = baseline;
      let streaming = true;
      const sampler = (async () => {
        while (streaming) {
          peak = Math.max(peak, vmRssKb(pid));
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      let firstByte!: () => void;
      const started = new Promise<void>((r) => (firstByte = r));
      const u = new URL(child.url);
      const transfer = new Promise<{ bytes: number; complete: boolean }>((resolve, reject) => {
        http
          .get({ host: u.hostname, port: u.port, path: '/proxy/projects/p/datasources/big/big?mb=300', agent: false }, (res) => {
            let bytes = 0;
            res.on('data', (b: Buffer) => {
              if (bytes === 0) firstByte();
              bytes += b.length;
            });
            res.on('end', () => resolve({ bytes, complete: res.complete }));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      await started;
      let answered = 0;
      let done = false;
      void transfer.finally(() => (done = true));
      const side = (async () => {
        while (!done) {
          const t0 = Date.now();
          const h = await fetch(`${child.url}/api/v1/health`);
          await h.arrayBuffer();
          const e = await rawRequest(child.url, 'GET', '/proxy/projects/p/datasources/big/echo');
          if (h.status === 200 && e.status === 200 && Date.now() - t0 < 2_000 && !done) answered++;
        }
      })();
      const result = await transfer;
      streaming = false;
      await Promise.all([sampler, side]);
      expect(result.bytes).to.equal(300 * MB);
      expect(result.complete).to.equal(true);
      const growthMb = (peak - baseline) / 1024;
      expect(growthMb, `RSS grew ${growthMb.toFixed(1)} MB (baseline ${(baseline / 1024).toFixed(1)} MB)`).to.be.lessThan(50);
      expect(answered, 'health + proxied requests answered during the transfer').to.be.greaterThan(0);
    } finally {
      await stopChild(child);
      dir.remove();
    }
  });

  it('PROXY-19: an upstream 302 to 169.254.169.254 is passed through, not followed, with CSP', async () => {
    const r = await rawRequest(s.url, 'GET', `${P}/plain/redirect`, asAdmin());
    expect(r.status).to.equal(302);
    expect(r.headers.location).to.equal('http://169.254.169.254/latest/meta-data/');
    expect(r.headers['content-security-policy']).to.equal('sandbox');
    expect(r.headers['x-content-type-options']).to.equal('nosniff');
    expect(up.hits).to.have.length(1);
  });

  it('PROXY-20: a datasource URL with user:CANARY@ is 400 at save and the answer does not echo the canary', async () => {
    const C = canary('URL');
    const url = `http://user:${C}@127.0.0.1:1`;
    const checks: [string, string, unknown][] = [
      ['POST', '/api/v1/projects/proj-a/datasources', proxyDs('with-userinfo', url)],
      ['POST', '/api/v1/globaldatasources', proxyDs('with-userinfo', url, {}, 'GlobalDatasource')],
      ['PUT', '/api/v1/projects/proj-a/datasources/plain', { ...proxyDs('plain', url), metadata: { name: 'plain', project: 'proj-a' } }],
    ];
    for (const [method, path, body] of checks) {
      const r = await s.api(method, path, body, asAdmin());
      expect(r.status, `${method} ${path}: ${r.text}`).to.equal(400);
      for (const form of leakForms(C)) expect(r.text, `${method} ${path}`).to.not.include(form);
    }
    // Dashboard-local datasource: 400 at save, or (if accepted) the proxy answer holds no canary.
    const d = await s.api('POST', '/api/v1/projects/proj-a/dashboards', dashWithLocal('userinfo-dash', { url }), asAdmin());
    for (const form of leakForms(C)) expect(d.text).to.not.include(form);
    if (d.status === 200) {
      const r = await rawRequest(s.url, 'GET', '/proxy/projects/proj-a/dashboards/userinfo-dash/datasources/local/x', asAdmin());
      expect(r.status).to.be.within(400, 599);
      for (const form of leakForms(C)) expect(r.body.toString()).to.not.include(form);
    } else {
      expect(d.status, d.text).to.equal(400);
    }
  });

  it('SECRET-03: a full exercise at debug and trace log levels prints no canary (raw, base64, hex)', async function () {
    this.timeout(60_000);
    const refusedPort = await closedPort();
    for (const level of ['debug', 'trace']) {
      const ADMIN_PW = canary('ADMINPW');
      const USER_PW = canary('USERPW');
      const BASIC = canary('BASIC');
      const BASIC2 = canary('BASIC2');
      const BEARER = canary('BEARER');
      const TLSKEY = canary('TLSKEY');
      const dir = tempDir();
      const child = await spawnServer({
        dataDir: dir.path,
        env: { ...AUTH_ENV, ...PROXY_ENV, DASHPLANE_ADMIN_PASSWORD: ADMIN_PW, DASHPLANE_LOG_LEVEL: level },
      });
      const tokens: string[] = [];
      try {
        const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
          const r = await fetch(child.url + path, {
            method,
            headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          });
          const text = await r.text();
          return { status: r.status, text, body: text ? (JSON.parse(text) as any) : undefined };
        };
        const must = async (p: ReturnType<typeof call>, status = 200) => {
          const r = await p;
          expect(r.status, r.text).to.equal(status);
          return r;
        };
        expect([400, 401]).to.include(
          (await call('POST', '/api/auth/providers/native/login', { login: 'admin', password: `${ADMIN_PW}-wrong` })).status,
        );
        const adm = (await must(call('POST', '/api/auth/providers/native/login', { login: 'admin', password: ADMIN_PW }))).body as Tokens;
        tokens.push(adm.access_token, adm.refresh_token);
        const A = { authorization: `Bearer ${adm.access_token}` };
        await must(
          call('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'uma' }, spec: { nativeProvider: { password: USER_PW } } }),
        );
        const uma = (await must(call('POST', '/api/auth/providers/native/login', { login: 'uma', password: USER_PW }))).body as Tokens;
        const refreshed = (await must(call('POST', '/api/auth/refresh', { refresh_token: uma.refresh_token }))).body as Tokens;
        tokens.push(uma.access_token, uma.refresh_token, refreshed.access_token, refreshed.refresh_token);
        expect([400, 401]).to.include((await call('POST', '/api/auth/refresh', { refresh_token: `${uma.refresh_token}x` })).status);
        await must(call('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }, A));
        await must(
          call(
            'POST',
            '/api/v1/projects/p/secrets',
            { kind: 'Secret', metadata: { name: 'basic' }, spec: { basicAuth: { username: 'svc', password: BASIC } } },
            A,
          ),
        );
        const got = await must(call('GET', '/api/v1/projects/p/secrets/basic', undefined, A));
        await must(
          call('PUT', '/api/v1/projects/p/secrets/basic', { ...got.body, spec: { basicAuth: { username: 'svc', password: BASIC2 } } }, A),
        );
        await must(
          call(
            'POST',
            '/api/v1/projects/p/secrets',
            {
              kind: 'Secret',
              metadata: { name: 'bearer' },
              spec: { authorization: { type: 'Bearer', credentials: BEARER }, tlsConfig: { key: TLSKEY, insecureSkipVerify: true } },
            },
            A,
          ),
        );
        // A malformed secret (both value and file): the 400 must not echo the value either.
        expect(
          (
            await call(
              'POST',
              '/api/v1/projects/p/secrets',
              { kind: 'Secret', metadata: { name: 'bad' }, spec: { basicAuth: { username: 'svc', password: BASIC, passwordFile: 'x' } } },
              A,
            )
          ).status,
        ).to.equal(400);
        await must(call('POST', '/api/v1/projects/p/datasources', proxyDs('up-basic', up.url, { secret: 'basic' }), A));
        await must(call('POST', '/api/v1/projects/p/datasources', proxyDs('up-bearer', up.url, { secret: 'bearer' }), A));
        await must(
          call('POST', '/api/v1/projects/p/datasources', proxyDs('down', `http://127.0.0.1:${refusedPort}`, { secret: 'basic' }), A),
        );
        up.reset();
        const echo = await must(call('GET', '/proxy/projects/p/datasources/up-basic/api/v1/query?query=up', undefined, A));
        expect(echo.body.headers.authorization).to.equal(`Basic ${b64(`svc:${BASIC2}`)}`);
        await must(call('POST', '/proxy/projects/p/datasources/up-bearer/api/v1/query', { q: 1 }, A));
        expect(up.hits.at(-1)!.headers.authorization).to.equal(`Bearer ${BEARER}`);
        expect((await call('GET', '/proxy/projects/p/datasources/down/api/v1/query', undefined, A)).status).to.equal(502);
        const reset = await rawRequest(child.url, 'GET', '/proxy/projects/p/datasources/up-basic/reset', A);
        expect(reset.status === 502 || reset.error !== undefined || reset.body.length < 1_000_000).to.equal(true);
        await must(call('GET', '/api/auth/logout', undefined, { authorization: `Bearer ${refreshed.access_token}` }), 204);
        await must(call('GET', '/api/v1/health'));
      } finally {
        await stopChild(child);
        dir.remove();
      }
      const lines = child.output().split('\n');
      expect(lines.length, 'the server logged at this level').to.be.greaterThan(5);
      const secrets: [string, string][] = [
        ['admin password', ADMIN_PW],
        ['user password', USER_PW],
        ['basicAuth password', BASIC],
        ['updated basicAuth password', BASIC2],
        ['bearer credentials', BEARER],
        ['tls key', TLSKEY],
        ['Basic header (svc:BASIC2)', b64(`svc:${BASIC2}`)],
      ];
      for (const [what, value] of secrets) {
        for (const form of leakForms(value)) {
          const hit = lines.find((l) => l.includes(form));
          expect(hit, `${level}: ${what} (${form}) in the log:\n${hit?.slice(0, 400)}`).to.equal(undefined);
        }
      }
      for (const token of tokens) {
        const sig = token.split('.').at(-1)!;
        const hit = lines.find((l) => l.includes(sig));
        expect(hit, `${level}: a token (signature ${sig.slice(0, 8)}...) in the log:\n${hit?.slice(0, 400)}`).to.equal(undefined);
      }
    }
  });

  it('SECRET-06: a tampered ciphertext → 502 with a generic message, no Authorization upstream; an intact secret still works', async () => {
    const dir = tempDir();
    const BROKEN = canary('BROKEN');
    const INTACT = canary('INTACT');
    try {
      let srv = await startTestServer({ dataDir: dir.path, env: PROXY_ENV });
      let storedCipher: string;
      try {
        await ok(srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }));
        await ok(
          srv.api('POST', '/api/v1/projects/p/secrets', {
            kind: 'Secret',
            metadata: { name: 'broken' },
            spec: { basicAuth: { username: 'svc', password: BROKEN } },
          }),
        );
        await ok(
          srv.api('POST', '/api/v1/projects/p/secrets', {
            kind: 'Secret',
            metadata: { name: 'intact' },
            spec: { basicAuth: { username: 'svc', password: INTACT } },
          }),
        );
        await ok(srv.api('POST', '/api/v1/projects/p/datasources', proxyDs('ds-broken', up.url, { secret: 'broken' })));
        await ok(srv.api('POST', '/api/v1/projects/p/datasources', proxyDs('ds-intact', up.url, { secret: 'intact' })));
      } finally {
        await srv.stop();
      }
      // Offline: flip one base64 character inside the ciphertext part (after nonce) of the password.
      const store = new LevelStore(dir.path);
      await store.open();
      try {
        const obj = (await store.get({ kind: 'Secret', project: 'p', name: 'broken' }))!;
        const spec = obj.spec as { basicAuth: { password: string } };
        storedCipher = spec.basicAuth.password;
        expect(storedCipher).to.match(/^v1:[0-9a-f]{8}:/);
        const i = 'v1:00000000:'.length + 16 + 2;
        const flipped = storedCipher.slice(0, i) + (storedCipher[i] === 'A' ? 'B' : 'A') + storedCipher.slice(i + 1);
        expect(flipped).to.not.equal(storedCipher);
        spec.basicAuth.password = flipped;
        await store.update(obj, { expectedVersion: obj.metadata.version });
      } finally {
        await store.close();
      }
      srv = await startTestServer({ dataDir: dir.path, env: PROXY_ENV });
      try {
        up.reset();
        const good = await rawRequest(srv.url, 'GET', '/proxy/projects/p/datasources/ds-intact/api/v1/query');
        expect(good.status, good.body.toString()).to.equal(200);
        expect(JSON.parse(good.body.toString()).headers.authorization).to.equal(`Basic ${b64(`svc:${INTACT}`)}`);
        up.reset();
        const bad = await rawRequest(srv.url, 'GET', '/proxy/projects/p/datasources/ds-broken/api/v1/query');
        expect(bad.status, bad.body.toString()).to.equal(502);
        const text = bad.body.toString();
        expect(JSON.parse(text)).to.have.property('message').that.is.a('string');
        expect(text).to.not.include(BROKEN).and.not.include('v1:').and.not.include(storedCipher.slice(12, 40));
        expect(up.hits, 'the upstream received a request for the broken secret').to.deep.equal([]);
        // The API still masks the value rather than answering garbage.
        const shown = await ok(srv.api('GET', '/api/v1/projects/p/secrets/broken'));
        expect(shown.body.spec.basicAuth.password).to.equal('<secret>');
      } finally {
        await srv.stop();
      }
    } finally {
      dir.remove();
    }
  });
});
