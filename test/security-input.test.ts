/**
 * Security checklist (docs/security.md), input rows INPUT-01..19 that apply without
 * authentication, plus SECRET-01 and SECRET-02. Every test runs against a real server on
 * 127.0.0.1 and every rejected request must leave the stored data unchanged.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { createGzip, gzipSync } from 'node:zlib';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const KINDS = [
  'Project',
  'Dashboard',
  'EphemeralDashboard',
  'Folder',
  'Variable',
  'Datasource',
  'Secret',
  'Role',
  'RoleBinding',
  'GlobalVariable',
  'GlobalDatasource',
  'GlobalSecret',
  'GlobalRole',
  'GlobalRoleBinding',
  'User',
];

const JSON_CT = { 'content-type': 'application/json' };
const YAML_CT = { 'content-type': 'application/yaml' };

// ---------------------------------------------------------------------------------------------
// helpers

/** Everything the store holds (one entry per object) and the store revision. */
async function snapshot(s: TestServer): Promise<{ revision: number; objects: Map<string, string> }> {
  const objects = new Map<string, string>();
  for (const kind of KINDS) {
    for (const o of await s.server.store.list({ kind }))
      objects.set(`${kind}/${o.metadata.project ?? ''}/${o.metadata.name}`, JSON.stringify(o));
  }
  return { revision: await s.server.store.revision(), objects };
}

/** What differs between two snapshots, as short lines (empty when nothing changed). */
function snapshotDiff(a: Awaited<ReturnType<typeof snapshot>>, b: Awaited<ReturnType<typeof snapshot>>): string[] {
  const out: string[] = [];
  if (a.revision !== b.revision) out.push(`revision ${a.revision} -> ${b.revision}`);
  for (const [k, v] of b.objects) {
    if (!a.objects.has(k)) out.push(`added ${k}: ${v.slice(0, 200)}`);
    else if (a.objects.get(k) !== v) out.push(`changed ${k}: ${v.slice(0, 200)}`);
  }
  for (const k of a.objects.keys()) if (!b.objects.has(k)) out.push(`removed ${k}`);
  return out;
}

/** Runs `fn` and asserts that nothing in the store changed (objects and revision). */
async function unchanged<T>(s: TestServer, fn: () => Promise<T>): Promise<T> {
  const before = await snapshot(s);
  const out = await fn();
  expect(snapshotDiff(before, await snapshot(s)), 'the stored data changed after a rejected request').to.deep.equal([]);
  return out;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A request with the path sent byte for byte (fetch would normalise `..`, `%2e%2e` and `\`).
 * `body` may be several chunks (sent chunked when no content-length is given).
 */
function rawHttp(
  s: { url: string },
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer | Buffer[],
): Promise<RawResponse> {
  const u = new URL(s.url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: u.hostname, port: Number(u.port), method, path, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // The server may answer (413, 431) and close before the whole request body was written.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    // A request the server never answers must fail the test, not hang the suite.
    req.setTimeout(5000, () => req.destroy(new Error(`no response to ${method} ${path.slice(0, 80)} within 5 s`)));
    if (Array.isArray(body)) {
      for (const c of body) req.write(c);
      req.end();
    } else if (body !== undefined) req.end(body);
    else req.end();
  });
}

const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });

function dashboardSpec(extra: Record<string, unknown> = {}) {
  return {
    display: { name: 'Plain' },
    panels: { p1: { kind: 'Panel', spec: { display: { name: 'Notes' }, plugin: { kind: 'Markdown', spec: { text: 'hello' } } } } },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 6, content: { $ref: '#/spec/panels/p1' } }] } }],
    ...extra,
  };
}

const dashboard = (proj: string, name: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Dashboard',
  metadata: { name, project: proj },
  spec: dashboardSpec(extra),
});

async function ok(p: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const r = await p;
  expect(r.status, `expected ${status}, got ${r.status}: ${r.text.slice(0, 300)}`).to.equal(status);
  return r;
}

function expectStatus(r: { status: number; text: string }, allowed: number[], what: string): void {
  expect(allowed, `${what}: got ${r.status} ${r.text.slice(0, 300)}`).to.include(r.status);
}

function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).isAdmin, 'Object.prototype was polluted').to.equal(undefined);
  expect(Object.hasOwn(Object.prototype, 'isAdmin')).to.equal(false);
  expect((Object as unknown as Record<string, unknown>).isAdmin).to.equal(undefined);
}

async function expectHealthy(s: TestServer): Promise<void> {
  const r = await s.api('GET', '/api/v1/health');
  expect(r.status).to.equal(200);
  expect(r.body.database).to.equal(true);
}

/** Wall time of an async call in ms, with its result. */
async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/**
 * The fastest of three runs of `fn` (ms), with every result: a stall of a loaded machine (other
 * test workers, a browser) during one run is not the server's answer time, while an answer that
 * is slow by itself is slow every time.
 */
async function fastestOfThree<T>(fn: () => Promise<T>): Promise<{ ms: number; values: T[] }> {
  const runs = [await timed(fn), await timed(fn), await timed(fn)];
  return { ms: Math.min(...runs.map((r) => r.ms)), values: runs.map((r) => r.value) };
}

/**
 * A server in a child process, for requests that might crash the process: mocha would swallow an
 * uncaught exception thrown in-process, so only a separate process shows whether it survives.
 */
async function startChildServer(): Promise<{ url: string; output: () => string; exitCode: () => number | null; stop(): Promise<void> }> {
  const helper = new URL('./helpers/server.js', import.meta.url).href;
  const script = `import { startTestServer } from ${JSON.stringify(helper)};
const s = await startTestServer();
process.stdout.write('URL ' + s.url + ' DIR ' + s.dataDir + '\\n');
process.on('SIGTERM', () => s.stop().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let code: number | null = null;
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) =>
    child.on('close', (c) => {
      code = c ?? -1;
      resolve();
    }),
  );
  await waitFor(
    `the child server to start (output so far: ${out})`,
    () => {
      if (code !== null) throw new Error(`child server did not start: ${out}`);
      return /URL (\S+) DIR (.+)\n/.test(out);
    },
    15_000,
  );
  return {
    url: /URL (\S+)/.exec(out)![1],
    output: () => out,
    exitCode: () => code,
    stop: async () => {
      if (code === null) child.kill('SIGTERM');
      await exited;
      // a crashed child could not remove its own data directory
      rmSync(/URL \S+ DIR (.+)\n/.exec(out)![1], { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------

describe('security checklist: input handling (INPUT-*, SECRET-01/02)', function () {
  this.timeout(60_000);
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.stop();
  });
  afterEach(() => expectNoPollution());

  // -------------------------------------------------------------------------------------------
  describe('INPUT-01 __proto__ payloads', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p1')));
      await ok(s.api('POST', '/api/v1/projects/p1/dashboards', dashboard('p1', 'keep')));
    });

    const jsonBodies: [string, string, string][] = [
      ['top level', '/api/v1/projects', '{"kind":"Project","metadata":{"name":"proto1"},"spec":{},"__proto__":{"isAdmin":true}}'],
      ['in metadata', '/api/v1/projects', '{"kind":"Project","metadata":{"name":"proto1","__proto__":{"isAdmin":true}},"spec":{}}'],
      ['escaped key', '/api/v1/projects', '{"kind":"Project","metadata":{"name":"proto1"},"spec":{},"\\u005f_proto__":{"isAdmin":true}}'],
      [
        'nested in spec',
        '/api/v1/projects/p1/dashboards',
        '{"kind":"Dashboard","metadata":{"name":"proto1","project":"p1"},"spec":{"panels":{},"layouts":[],"__proto__":{"isAdmin":true}}}',
      ],
      [
        'deep in spec',
        '/api/v1/projects/p1/dashboards',
        '{"kind":"Dashboard","metadata":{"name":"proto1","project":"p1"},"spec":{"panels":{"__proto__":{"kind":"Panel","spec":{"isAdmin":true}}},"layouts":[]}}',
      ],
      [
        'in an array item',
        '/api/v1/projects/p1/dashboards',
        '{"kind":"Dashboard","metadata":{"name":"proto1","project":"p1"},"spec":{"panels":{},"layouts":[{"__proto__":{"isAdmin":true}}]}}',
      ],
    ];
    for (const [label, path, text] of jsonBodies) {
      it(`INPUT-01 JSON body, __proto__ ${label}: 400, nothing stored`, async () => {
        const r = await unchanged(s, () => s.raw('POST', path, text, JSON_CT));
        expect(r.status, r.text).to.equal(400);
        expect((await s.api('GET', '/api/v1/projects/proto1')).status).to.equal(404);
        expect((await s.api('GET', '/api/v1/projects/p1/dashboards/proto1')).status).to.equal(404);
      });
    }

    it('INPUT-01 PUT of an existing dashboard with __proto__ in spec: 400, dashboard unchanged', async () => {
      const before = await ok(s.api('GET', '/api/v1/projects/p1/dashboards/keep'));
      const text =
        '{"kind":"Dashboard","metadata":{"name":"keep","project":"p1"},"spec":{"panels":{},"layouts":[],"display":{"__proto__":{"isAdmin":true},"name":"x"}}}';
      const r = await unchanged(s, () => s.raw('PUT', '/api/v1/projects/p1/dashboards/keep', text, JSON_CT));
      expect(r.status, r.text).to.equal(400);
      const after = await ok(s.api('GET', '/api/v1/projects/p1/dashboards/keep'));
      expect(after.body).to.deep.equal(before.body);
    });

    it('INPUT-01 POST /api/validate/dashboards with __proto__: 400', async () => {
      const text =
        '{"kind":"Dashboard","metadata":{"name":"v","project":"p1"},"spec":{"panels":{},"layouts":[],"__proto__":{"isAdmin":true}}}';
      const r = await unchanged(s, () => s.raw('POST', '/api/validate/dashboards', text, JSON_CT));
      expect(r.status, r.text).to.equal(400);
    });

    const yamlBodies: [string, string, string][] = [
      ['top level', '/api/v1/projects', 'kind: Project\nmetadata:\n  name: proto1\n__proto__:\n  isAdmin: true\n'],
      ['quoted key', '/api/v1/projects', 'kind: Project\nmetadata:\n  name: proto1\n"__proto__": {isAdmin: true}\n'],
      [
        'nested in spec',
        '/api/v1/projects/p1/dashboards',
        'kind: Dashboard\nmetadata:\n  name: proto1\n  project: p1\nspec:\n  panels: {}\n  layouts: []\n  __proto__:\n    isAdmin: true\n',
      ],
      ['through a merge key', '/api/v1/projects', 'kind: Project\nmetadata:\n  name: proto1\nspec:\n  <<: {__proto__: {isAdmin: true}}\n'],
    ];
    for (const [label, path, text] of yamlBodies) {
      it(`INPUT-01 YAML body, __proto__ ${label}: 400, nothing stored`, async () => {
        const r = await unchanged(s, () => s.raw('POST', path, text, YAML_CT));
        expect(r.status, r.text).to.equal(400);
        expect((await s.api('GET', '/api/v1/projects/proto1')).status).to.equal(404);
      });
    }

    it('INPUT-01 afterwards ({}).isAdmin is undefined in-process', () => {
      expectNoPollution();
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-02 constructor.prototype payloads', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p2')));
    });

    const bodies: [string, string, string, Record<string, string>][] = [
      [
        'JSON top level',
        '/api/v1/projects',
        '{"kind":"Project","metadata":{"name":"ctor"},"constructor":{"prototype":{"isAdmin":true}}}',
        JSON_CT,
      ],
      [
        'JSON in spec',
        '/api/v1/projects',
        '{"kind":"Project","metadata":{"name":"ctor"},"spec":{"constructor":{"prototype":{"isAdmin":true}}}}',
        JSON_CT,
      ],
      [
        'JSON deep in a dashboard',
        '/api/v1/projects/p2/dashboards',
        '{"kind":"Dashboard","metadata":{"name":"ctor","project":"p2"},"spec":{"panels":{"constructor":{"prototype":{"isAdmin":true}}},"layouts":[]}}',
        JSON_CT,
      ],
      [
        'YAML',
        '/api/v1/projects',
        'kind: Project\nmetadata:\n  name: ctor\nspec:\n  constructor:\n    prototype:\n      isAdmin: true\n',
        YAML_CT,
      ],
    ];
    for (const [label, path, text, ct] of bodies) {
      it(`INPUT-02 ${label}: 400, nothing stored, no pollution`, async () => {
        const r = await unchanged(s, () => s.raw('POST', path, text, ct));
        expect(r.status, r.text).to.equal(400);
        expect((await s.api('GET', '/api/v1/projects/ctor')).status).to.equal(404);
        expectNoPollution();
      });
    }
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-03 body size limit and gzip bomb (http.body_limit = 65536)', () => {
    let small: TestServer;
    before(async () => {
      small = await startTestServer({ env: { DASHPLANE_HTTP_BODY_LIMIT: '65536' } });
    });
    after(async () => {
      await small?.stop();
    });

    const padded = (name: string, pad: number) => `{"kind":"Project","metadata":{"name":"${name}"},"spec":{}}${' '.repeat(pad)}`;

    it('INPUT-03 control: a body just under the limit is accepted', async () => {
      await ok(small.raw('POST', '/api/v1/projects', padded('under', 60_000), JSON_CT));
    });

    it('INPUT-03 a body over the limit (with Content-Length) answers 413 and stores nothing', async () => {
      const r = await unchanged(small, () => small.raw('POST', '/api/v1/projects', padded('big', 70_000), JSON_CT));
      expect(r.status, r.text).to.equal(413);
      expect(r.body?.message).to.be.a('string');
      expect((await small.api('GET', '/api/v1/projects/big')).status).to.equal(404);
    });

    it('INPUT-03 a chunked body (no Content-Length) over the limit answers 413 and stores nothing', async () => {
      const chunks = [Buffer.from(padded('chunked', 0))];
      for (let i = 0; i < 20; i++) chunks.push(Buffer.alloc(16 * 1024, 0x20));
      const r = await unchanged(small, () =>
        rawHttp(small, 'POST', '/api/v1/projects', { ...JSON_CT, 'transfer-encoding': 'chunked' }, chunks),
      );
      expect(r.status, r.text).to.equal(413);
      expect((await small.api('GET', '/api/v1/projects/chunked')).status).to.equal(404);
    });

    it('INPUT-03 control: a small gzip body is inflated and accepted', async () => {
      const r = await ok(
        small.raw('POST', '/api/v1/projects', gzipSync(Buffer.from(padded('gzipped', 100))), { ...JSON_CT, 'content-encoding': 'gzip' }),
      );
      expect(r.body.metadata.name).to.equal('gzipped');
    });

    it('INPUT-03 gzip bomb (50 MB of spaces in a few KB) answers 413, stores nothing, RSS bounded', async () => {
      // Compress in a stream so the test itself never holds 50 MB.
      const gz = createGzip({ level: 9 });
      const parts: Buffer[] = [];
      gz.on('data', (c: Buffer) => parts.push(c));
      const done = new Promise((r) => gz.on('end', r));
      gz.write(padded('bomb', 0));
      const mb = Buffer.alloc(1 << 20, 0x20);
      for (let i = 0; i < 50; i++) gz.write(mb);
      gz.end();
      await done;
      const bomb = Buffer.concat(parts);
      expect(bomb.length).to.be.below(65_536); // under the limit as sent: only the inflated size is over

      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
      let r: ApiResponse;
      try {
        r = await unchanged(small, () => small.raw('POST', '/api/v1/projects', bomb, { ...JSON_CT, 'content-encoding': 'gzip' }));
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(r.status, r.text).to.equal(413);
      expect((peak - baseline) / 2 ** 20, 'RSS growth in MB').to.be.below(100);
      expect((await small.api('GET', '/api/v1/projects/bomb')).status).to.equal(404);
      await expectHealthy(small);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-04 deeply nested bodies', () => {
    const DEPTH = 100_000;

    it('INPUT-04 100 000-deep JSON arrays: 400, server still healthy', async () => {
      const text = `{"kind":"Project","metadata":{"name":"deep"},"spec":{"display":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}}`;
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, JSON_CT));
      expect(r.status, r.text.slice(0, 300)).to.equal(400);
      await expectHealthy(s);
    });

    it('INPUT-04 100 000-deep JSON objects: 400, server still healthy', async () => {
      const text = `{"kind":"Project","metadata":{"name":"deep"},"spec":${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}`;
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, JSON_CT));
      expect(r.status, r.text.slice(0, 300)).to.equal(400);
      await expectHealthy(s);
    });

    it('INPUT-04 100 000-deep YAML flow sequence: 400, server still healthy', async () => {
      const text = `kind: Project\nmetadata:\n  name: deep\nspec: ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}\n`;
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, YAML_CT));
      expect(r.status, r.text.slice(0, 300)).to.equal(400);
      await expectHealthy(s);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-05 YAML bombs, custom tags, multi-document', () => {
    it('INPUT-05 billion laughs: 400 quickly, nothing stored', async () => {
      const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
      let text = 'kind: Project\nmetadata:\n  name: lol\nspec:\n  l0: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
      for (let i = 1; i < levels.length; i++) {
        text += `  l${i}: &${levels[i]} [${Array(9)
          .fill(`*${levels[i - 1]}`)
          .join(', ')}]\n`;
      }
      const { ms, values } = await unchanged(s, () => fastestOfThree(() => s.raw('POST', '/api/v1/projects', text, YAML_CT)));
      for (const r of values) expect(r.status, r.text).to.equal(400);
      expect(ms, 'round trip in ms (the fastest of three)').to.be.below(500);
      expect((await s.api('GET', '/api/v1/projects/lol')).status).to.equal(404);
      await expectHealthy(s);
    });

    const tagged: [string, string][] = [
      ['!!js/function', 'name: !!js/function "function () { return 1 }"'],
      ['!!js/regexp', 'name: !!js/regexp /x/'],
      ['!!js/undefined', 'name: !!js/undefined ""'],
      ['!!python/object/apply', 'name: !!python/object/apply:os.system ["id"]'],
      ['a local !custom tag', 'name: !custom tagged'],
      ['!!binary (YAML 1.1 only)', 'name: !!binary aGVsbG8='],
      ['!!set (YAML 1.1 only)', 'name: !!set {a, b}'],
      ['a %TAG directive', 'name: !e!thing tagged'],
    ];
    for (const [label, line] of tagged) {
      it(`INPUT-05 tag ${label}: 400 quickly`, async () => {
        const directive = line.includes('!e!') ? '%TAG !e! tag:evil.example,2000:\n---\n' : '';
        const text = `${directive}kind: Project\nmetadata:\n  ${line}\nspec: {}\n`;
        const { ms, values } = await unchanged(s, () => fastestOfThree(() => s.raw('POST', '/api/v1/projects', text, YAML_CT)));
        for (const r of values) expect(r.status, r.text).to.equal(400);
        expect(ms, 'round trip in ms (the fastest of three)').to.be.below(500);
      });
    }

    it('INPUT-05 multi-document YAML body: 400, no document stored', async () => {
      const text = 'kind: Project\nmetadata:\n  name: multi1\n---\nkind: Project\nmetadata:\n  name: multi2\n';
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, YAML_CT));
      expect(r.status, r.text).to.equal(400);
      expect((await s.api('GET', '/api/v1/projects/multi1')).status).to.equal(404);
      expect((await s.api('GET', '/api/v1/projects/multi2')).status).to.equal(404);
    });

    it('INPUT-05 control: a plain single YAML document is accepted', async () => {
      const r = await ok(s.raw('POST', '/api/v1/projects', 'kind: Project\nmetadata:\n  name: yamlok\nspec: {}\n', YAML_CT));
      expect(r.body.metadata.name).to.equal('yamlok');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-06 duplicate keys', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p6')));
      await ok(s.api('POST', '/api/v1/projects', project('p6other')));
    });

    it('INPUT-06 JSON metadata.name twice: 400, or the last value is the one stored and answered', async () => {
      const text = '{"kind":"Project","metadata":{"name":"dupfirst","name":"duplast"},"spec":{}}';
      const before = await snapshot(s);
      const r = await s.raw('POST', '/api/v1/projects', text, JSON_CT);
      expectStatus(r, [200, 400], 'duplicate name');
      expect((await s.api('GET', '/api/v1/projects/dupfirst')).status, 'the first value must never be stored').to.equal(404);
      if (r.status === 400) {
        expect(snapshotDiff(before, await snapshot(s))).to.deep.equal([]);
        expect((await s.api('GET', '/api/v1/projects/duplast')).status).to.equal(404);
      } else {
        expect(r.body.metadata.name).to.equal('duplast');
        expect((await ok(s.api('GET', '/api/v1/projects/duplast'))).body.metadata.name).to.equal('duplast');
      }
    });

    it('INPUT-06 JSON metadata.project twice (other, then the path project): 400 or stored only in the path project', async () => {
      const text = '{"kind":"Dashboard","metadata":{"name":"dupd","project":"p6other","project":"p6"},"spec":{"panels":{},"layouts":[]}}';
      const before = await snapshot(s);
      const r = await s.raw('POST', '/api/v1/projects/p6/dashboards', text, JSON_CT);
      expectStatus(r, [200, 400], 'duplicate project');
      expect((await s.api('GET', '/api/v1/projects/p6other/dashboards/dupd')).status).to.equal(404);
      if (r.status === 400) expect(snapshotDiff(before, await snapshot(s))).to.deep.equal([]);
      else {
        expect(r.body.metadata.project).to.equal('p6');
        await ok(s.api('GET', '/api/v1/projects/p6/dashboards/dupd'));
      }
    });

    it('INPUT-06 JSON metadata.project twice (path project, then other): 400, nothing stored anywhere', async () => {
      const text = '{"kind":"Dashboard","metadata":{"name":"dupe","project":"p6","project":"p6other"},"spec":{"panels":{},"layouts":[]}}';
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects/p6/dashboards', text, JSON_CT));
      expect(r.status, r.text).to.equal(400);
      expect((await s.api('GET', '/api/v1/projects/p6other/dashboards/dupe')).status).to.equal(404);
      expect((await s.api('GET', '/api/v1/projects/p6/dashboards/dupe')).status).to.equal(404);
    });

    it('INPUT-06 YAML metadata.name twice: 400, nothing stored', async () => {
      const text = 'kind: Project\nmetadata:\n  name: ydupfirst\n  name: yduplast\nspec: {}\n';
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, YAML_CT));
      expect(r.status, r.text).to.equal(400);
      expect((await s.api('GET', '/api/v1/projects/ydupfirst')).status).to.equal(404);
      expect((await s.api('GET', '/api/v1/projects/yduplast')).status).to.equal(404);
    });

    it('INPUT-06 YAML top-level kind twice: 400', async () => {
      const text = 'kind: Project\nkind: Project\nmetadata:\n  name: ydup2\n';
      const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, YAML_CT));
      expect(r.status, r.text).to.equal(400);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-07 Unicode, homoglyph, RTL and zero-width names', () => {
    const names: [string, string][] = [
      ['Cyrillic a homoglyph', 'd\u0430sh'],
      ['Cyrillic d homoglyph', '\u0501ash'],
      ['fullwidth letters', '\uff44\uff41\uff53\uff48'],
      ['zero-width space', 'da\u200bsh'],
      ['leading zero-width space', '\u200bdash'],
      ['zero-width joiner', 'da\u200dsh'],
      ['word joiner', 'da\u2060sh'],
      ['byte order mark', '\ufeffdash'],
      ['RTL override', 'dash\u202egpj.exe'],
      ['RTL mark', 'dash\u200f'],
      ['combining accent', 'dash\u0301'],
      ['precomposed accent', 'd\u00e1sh'],
      ['no-break space', 'dash\u00a0'],
      ['emoji', 'dash\u{1F600}'],
    ];

    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p7')));
      await ok(s.api('POST', '/api/v1/projects/p7/dashboards', dashboard('p7', 'dash')));
      await ok(s.api('POST', '/api/v1/projects', project('dash')));
    });

    for (const [label, name] of names) {
      it(`INPUT-07 ${label} (${JSON.stringify(name)}): 400 in body and in URL path, nothing touched`, async () => {
        await unchanged(s, async () => {
          expect((await s.api('POST', '/api/v1/projects', project(name))).status, 'project name in body').to.equal(400);
          expect((await s.api('POST', '/api/v1/projects/p7/dashboards', dashboard('p7', name))).status, 'dashboard name in body').to.equal(
            400,
          );
          expect((await s.api('POST', '/api/v1/projects/p7/dashboards', dashboard(name, 'x'))).status, 'project in body').to.be.oneOf([
            400,
          ]);
          const enc = encodeURIComponent(name);
          expect((await s.api('GET', `/api/v1/projects/p7/dashboards/${enc}`)).status, 'GET path').to.equal(400);
          expect((await s.api('PUT', `/api/v1/projects/p7/dashboards/${enc}`, dashboard('p7', name))).status, 'PUT path').to.equal(400);
          expect((await s.api('DELETE', `/api/v1/projects/p7/dashboards/${enc}`)).status, 'DELETE path').to.equal(400);
          expect((await s.api('GET', `/api/v1/projects/${enc}`)).status, 'GET project path').to.equal(400);
          expect((await s.api('DELETE', `/api/v1/projects/${enc}`)).status, 'DELETE project path').to.equal(400);
          expect((await s.api('GET', `/api/v1/projects/${enc}/dashboards`)).status, 'list in project path').to.equal(400);
        });
        await ok(s.api('GET', '/api/v1/projects/p7/dashboards/dash'));
        await ok(s.api('GET', '/api/v1/projects/dash'));
      });
    }
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-08 name length', () => {
    const n75 = 'n'.repeat(75);
    const n76 = 'n'.repeat(76);
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p8')));
    });

    it('INPUT-08 75 characters: 200 (project and dashboard), readable by path', async () => {
      await ok(s.api('POST', '/api/v1/projects', project(n75)));
      await ok(s.api('GET', `/api/v1/projects/${n75}`));
      await ok(s.api('POST', '/api/v1/projects/p8/dashboards', dashboard('p8', n75)));
      const r = await ok(s.api('GET', `/api/v1/projects/p8/dashboards/${n75}`));
      expect(r.body.metadata.name).to.equal(n75);
    });

    it('INPUT-08 76 characters: 400 in body and in URL path, nothing stored', async () => {
      await unchanged(s, async () => {
        expect((await s.api('POST', '/api/v1/projects', project(n76))).status).to.equal(400);
        expect((await s.api('POST', '/api/v1/projects/p8/dashboards', dashboard('p8', n76))).status).to.equal(400);
        expect((await s.api('GET', `/api/v1/projects/${n76}`)).status).to.equal(400);
        expect((await s.api('GET', `/api/v1/projects/p8/dashboards/${n76}`)).status).to.equal(400);
        expect((await s.api('PUT', `/api/v1/projects/p8/dashboards/${n76}`, dashboard('p8', n76))).status).to.equal(400);
      });
    });

    it('INPUT-08 empty or missing name: 400, nothing stored', async () => {
      await unchanged(s, async () => {
        expect((await s.api('POST', '/api/v1/projects', project(''))).status).to.equal(400);
        expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: {}, spec: {} })).status).to.equal(400);
        expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', spec: {} })).status).to.equal(400);
        expect((await s.api('POST', '/api/v1/projects/p8/dashboards', dashboard('p8', ''))).status).to.equal(400);
        expect((await s.api('POST', '/api/v1/projects', project(null as unknown as string))).status).to.equal(400);
      });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-09 NUL bytes in names', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p9')));
      await ok(s.api('POST', '/api/v1/projects/p9/dashboards', dashboard('p9', 'a')));
      await ok(s.api('POST', '/api/v1/projects', project('a')));
    });

    it('INPUT-09 a%00b in the URL path: 400 on every verb, "a" untouched', async () => {
      await unchanged(s, async () => {
        for (const [method, path] of [
          ['GET', '/api/v1/projects/p9/dashboards/a%00b'],
          ['DELETE', '/api/v1/projects/p9/dashboards/a%00b'],
          ['GET', '/api/v1/projects/p9/dashboards/a%00'],
          ['DELETE', '/api/v1/projects/p9/dashboards/a%00'],
          ['GET', '/api/v1/projects/a%00b'],
          ['DELETE', '/api/v1/projects/a%00'],
          ['GET', '/api/v1/projects/a%00b/dashboards'],
        ]) {
          const r = await s.api(method, path);
          expect(r.status, `${method} ${path}: ${r.text}`).to.equal(400);
        }
        const put = await s.api('PUT', '/api/v1/projects/p9/dashboards/a%00b', dashboard('p9', ''));
        expect(put.status, put.text).to.equal(400);
      });
      await ok(s.api('GET', '/api/v1/projects/p9/dashboards/a'));
      await ok(s.api('GET', '/api/v1/projects/a'));
    });

    it('INPUT-09 "a\\u0000b" in metadata.name or metadata.project: 400, nothing stored', async () => {
      await unchanged(s, async () => {
        const r1 = await s.raw('POST', '/api/v1/projects', '{"kind":"Project","metadata":{"name":"a\\u0000b"},"spec":{}}', JSON_CT);
        expect(r1.status, r1.text).to.equal(400);
        const r2 = await s.raw(
          'POST',
          '/api/v1/projects/p9/dashboards',
          '{"kind":"Dashboard","metadata":{"name":"a\\u0000b","project":"p9"},"spec":{"panels":{},"layouts":[]}}',
          JSON_CT,
        );
        expect(r2.status, r2.text).to.equal(400);
        const r3 = await s.raw(
          'POST',
          '/api/v1/dashboards',
          '{"kind":"Dashboard","metadata":{"name":"nul","project":"p9\\u0000"},"spec":{"panels":{},"layouts":[]}}',
          JSON_CT,
        );
        expect(r3.status, r3.text).to.equal(400);
        const r4 = await s.raw('POST', '/api/v1/projects', 'kind: Project\nmetadata:\n  name: "a\\0b"\n', YAML_CT);
        expect(r4.status, r4.text).to.equal(400);
      });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-10 path traversal names and prefix isolation of projects a / ab', () => {
    before(async () => {
      for (const p of ['ab', 'p10']) await ok(s.api('POST', '/api/v1/projects', project(p)));
      // project "a" already exists (INPUT-09); give both a and ab dashboards, one with the same name
      for (const [p, n] of [
        ['a', 'd'],
        ['a', 'x'],
        ['ab', 'd'],
        ['ab', 'y'],
      ])
        await ok(s.api('POST', `/api/v1/projects/${p}/dashboards`, dashboard(p, n)));
    });

    const bodyNames = ['..', '.', 'a/b', 'a%2Fb', 'a%252Fb', 'a\\b', 'a!b', '.hidden', 'trailing.', '../ab'];
    it('INPUT-10 bad names in the body: 400, nothing stored', async () => {
      await unchanged(s, async () => {
        for (const n of bodyNames) {
          const r1 = await s.api('POST', '/api/v1/projects', project(n));
          expect(r1.status, `project ${JSON.stringify(n)}: ${r1.text}`).to.equal(400);
          const r2 = await s.api('POST', '/api/v1/projects/p10/dashboards', dashboard('p10', n));
          expect(r2.status, `dashboard ${JSON.stringify(n)}: ${r2.text}`).to.equal(400);
          const r3 = await s.api('POST', '/api/v1/dashboards', dashboard(n, 'z'));
          expect(r3.status, `metadata.project ${JSON.stringify(n)}: ${r3.text}`).to.equal(400);
        }
      });
    });

    const pathNames = ['..', '.', '%2e%2e', '%2E%2E', 'a%2Fb', 'a%252Fb', 'a\\b', 'a%5Cb', 'a!b', '..%2F..%2Fab', '%2e%2e%2fab', '*'];
    it('INPUT-10 bad names in the URL path: 400 or 404 (never 2xx/5xx), nothing touched', async () => {
      await unchanged(s, async () => {
        for (const n of pathNames) {
          const requests: [string, string][] = [
            ['GET', `/api/v1/projects/a/dashboards/${n}`],
            ['DELETE', `/api/v1/projects/a/dashboards/${n}`],
            ['GET', `/api/v1/projects/${n}`],
            ['DELETE', `/api/v1/projects/${n}`],
            ['GET', `/api/v1/projects/${n}/dashboards`],
            ['GET', `/api/v1/projects/${n}/dashboards/d`],
            ['DELETE', `/api/v1/projects/${n}/dashboards/d`],
          ];
          for (const [method, path] of requests) {
            const r = await rawHttp(s, method, path);
            expectStatus(r, [400, 404], `${method} ${path}`);
          }
          const body = JSON.stringify({ kind: 'Dashboard', metadata: { project: 'a' }, spec: dashboardSpec() });
          const r = await rawHttp(s, 'PUT', `/api/v1/projects/a/dashboards/${n}`, JSON_CT, body);
          expectStatus(r, [400, 404], `PUT /api/v1/projects/a/dashboards/${n}`);
        }
        // dot segments that climb out of project a into ab never reach ab's objects
        for (const path of [
          '/api/v1/projects/a/dashboards/../../ab/dashboards/d',
          '/api/v1/projects/a/../ab/dashboards/y',
          '/api/v1/projects/a/dashboards/..%2F..%2Fab%2Fdashboards%2Fd',
        ]) {
          for (const method of ['GET', 'DELETE']) {
            const r = await rawHttp(s, method, path);
            expectStatus(r, [400, 404], `${method} ${path}`);
          }
        }
      });
    });

    const names = (r: ApiResponse) =>
      (r.body as { metadata: { project: string; name: string } }[]).map((o) => `${o.metadata.project}/${o.metadata.name}`);

    it('INPUT-10 listing project a never returns ab objects (path, query, name prefix, pages)', async () => {
      expect(names(await ok(s.api('GET', '/api/v1/projects/a/dashboards')))).to.deep.equal(['a/d', 'a/x']);
      expect(names(await ok(s.api('GET', '/api/v1/dashboards?project=a')))).to.deep.equal(['a/d', 'a/x']);
      expect(names(await ok(s.api('GET', '/api/v1/projects/a/dashboards?name=d')))).to.deep.equal(['a/d']);
      expect(names(await ok(s.api('GET', '/api/v1/projects/a/dashboards?name=y')))).to.deep.equal([]);
      const paged: string[] = [];
      let next: string | undefined = '/api/v1/projects/a/dashboards?limit=1';
      for (let i = 0; next && i < 10; i++) {
        const r = await ok(s.api('GET', next));
        paged.push(...names(r));
        next = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
      }
      expect(paged).to.deep.equal(['a/d', 'a/x']);
      const all = names(await ok(s.api('GET', '/api/v1/dashboards')));
      expect(all).to.include.members(['a/d', 'a/x', 'ab/d', 'ab/y']);
    });

    it('INPUT-10 deleting in a never touches ab; deleting project a leaves ab and its dashboards intact', async () => {
      const ab = JSON.stringify((await ok(s.api('GET', '/api/v1/projects/ab/dashboards'))).body);
      expect((await s.api('DELETE', '/api/v1/projects/a/dashboards/y')).status).to.equal(404);
      expect((await s.api('DELETE', '/api/v1/projects/a/dashboards/d')).status).to.equal(204);
      expect(JSON.stringify((await ok(s.api('GET', '/api/v1/projects/ab/dashboards'))).body)).to.equal(ab);
      expect((await s.api('DELETE', '/api/v1/projects/a')).status).to.equal(204);
      await ok(s.api('GET', '/api/v1/projects/ab'));
      expect(JSON.stringify((await ok(s.api('GET', '/api/v1/projects/ab/dashboards'))).body)).to.equal(ab);
      expect(names(await ok(s.api('GET', '/api/v1/projects/ab/dashboards')))).to.deep.equal(['ab/d', 'ab/y']);
      expect(await s.server.store.list({ kind: 'Dashboard', project: 'a' })).to.deep.equal([]);
      expect((await s.api('GET', '/api/v1/projects/a')).status).to.equal(404);
      // re-creating "a" does not resurrect its dashboards
      await ok(s.api('POST', '/api/v1/projects', project('a')));
      expect(names(await ok(s.api('GET', '/api/v1/projects/a/dashboards')))).to.deep.equal([]);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-12 bad ttl and numbers', () => {
    const eph = (name: string, ttl: unknown, extra: Record<string, unknown> = {}) => ({
      kind: 'EphemeralDashboard',
      metadata: { name, project: 'p12' },
      spec: { ttl, ...dashboardSpec(extra) },
    });
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p12')));
      await ok(s.api('POST', '/api/v1/projects/p12/ephemeraldashboards', eph('e0', '1h')));
    });

    for (const ttl of ['-1h', '0s', '0ms', '0h0m0s', '999999999999999h', '']) {
      it(`INPUT-12 ttl ${JSON.stringify(ttl)}: 400 on create and on update, nothing changed`, async () => {
        await unchanged(s, async () => {
          const c = await s.api('POST', '/api/v1/projects/p12/ephemeraldashboards', eph('bad', ttl));
          expect(c.status, c.text).to.equal(400);
          const u = await s.api('PUT', '/api/v1/projects/p12/ephemeraldashboards/e0', eph('e0', ttl));
          expect(u.status, u.text).to.equal(400);
        });
        const e0 = await ok(s.api('GET', '/api/v1/projects/p12/ephemeraldashboards/e0'));
        expect(e0.body.spec.ttl).to.equal('1h');
      });
    }

    // Numbers as JSON text at a place where an integer is legitimate (a grid item's x).
    const template = JSON.stringify(eph('num', '1h')).replace('"x":0', '"x":@NUM@');
    it('INPUT-12 control: the number template is accepted with x = 0', async () => {
      expect(template).to.contain('@NUM@');
      await ok(
        s.raw('POST', '/api/v1/projects/p12/ephemeraldashboards', template.replace('@NUM@', '0').replace('"num"', '"numok"'), JSON_CT),
      );
    });

    for (const num of ['1e400', '-1e400', '9007199254740993', '-9007199254740993', '-0']) {
      it(`INPUT-12 number ${num} in a JSON body: 400, nothing stored`, async () => {
        const r = await unchanged(s, () =>
          s.raw('POST', '/api/v1/projects/p12/ephemeraldashboards', template.replace('@NUM@', num), JSON_CT),
        );
        expect(r.status, r.text).to.equal(400);
        expect((await s.api('GET', '/api/v1/projects/p12/ephemeraldashboards/num')).status).to.equal(404);
      });
    }

    for (const num of ['1e400', '-1e400', '9007199254740993', '-0']) {
      it(`INPUT-12 ttl given as the number ${num}: 400`, async () => {
        const text = JSON.stringify(eph('num', '1h')).replace('"ttl":"1h"', `"ttl":${num}`);
        const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects/p12/ephemeraldashboards', text, JSON_CT));
        expect(r.status, r.text).to.equal(400);
      });
    }

    for (const num of ['.inf', '-.inf', '.nan', '1e400', '9007199254740993']) {
      it(`INPUT-12 number ${num} in a YAML body: 400`, async () => {
        const text = `kind: Project\nmetadata:\n  name: ynum\nspec:\n  display:\n    name: ${num}\n`;
        const r = await unchanged(s, () => s.raw('POST', '/api/v1/projects', text, YAML_CT));
        expect(r.status, r.text).to.equal(400);
      });
    }
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-13 names "*"', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p13')));
      await ok(
        s.api('POST', '/api/v1/projects/p13/roles', {
          kind: 'Role',
          metadata: { name: 'r1', project: 'p13' },
          spec: { permissions: [{ actions: ['read'], scopes: ['*'] }] },
        }),
      );
    });
    const perms = { permissions: [{ actions: ['*'], scopes: ['*'] }] };
    const ds = { default: false, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://127.0.0.1:9' } } };

    it('INPUT-13 create project / datasource / role (and global kinds) named "*": 400, nothing stored', async () => {
      await unchanged(s, async () => {
        const cases: [string, unknown][] = [
          ['/api/v1/projects', project('*')],
          ['/api/v1/projects/p13/datasources', { kind: 'Datasource', metadata: { name: '*', project: 'p13' }, spec: ds }],
          ['/api/v1/projects/p13/roles', { kind: 'Role', metadata: { name: '*', project: 'p13' }, spec: perms }],
          [
            '/api/v1/projects/p13/rolebindings',
            { kind: 'RoleBinding', metadata: { name: '*', project: 'p13' }, spec: { role: 'r1', subjects: [{ kind: 'User', name: 'x' }] } },
          ],
          ['/api/v1/globaldatasources', { kind: 'GlobalDatasource', metadata: { name: '*' }, spec: ds }],
          ['/api/v1/globalroles', { kind: 'GlobalRole', metadata: { name: '*' }, spec: perms }],
          ['/api/v1/users', { kind: 'User', metadata: { name: '*' }, spec: {} }],
          ['/api/v1/datasources', { kind: 'Datasource', metadata: { name: 'x', project: '*' }, spec: ds }],
        ];
        for (const [path, body] of cases) {
          const r = await s.api('POST', path, body);
          expect(r.status, `POST ${path}: ${r.text}`).to.equal(400);
        }
      });
    });

    it('INPUT-13 "*" in the URL path never acts as a wildcard', async () => {
      await unchanged(s, async () => {
        for (const p of ['*', '%2A']) {
          expect((await s.api('DELETE', `/api/v1/projects/p13/roles/${p}`)).status).to.be.oneOf([400, 404]);
          expect((await s.api('GET', `/api/v1/projects/p13/roles/${p}`)).status).to.be.oneOf([400, 404]);
          expect(
            (await s.api('PUT', `/api/v1/projects/p13/roles/${p}`, { kind: 'Role', metadata: { project: 'p13' }, spec: perms })).status,
          ).to.be.oneOf([400, 404]);
          expect((await s.api('DELETE', `/api/v1/projects/${p}`)).status).to.be.oneOf([400, 404]);
          expect((await s.api('GET', `/api/v1/projects/${p}/roles`)).status).to.be.oneOf([400, 404]);
        }
      });
      await ok(s.api('GET', '/api/v1/projects/p13/roles/r1'));
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-14 placeholder names: undefined, null, :name, %3Aname', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p14')));
      await ok(s.api('POST', '/api/v1/projects/p14/dashboards', dashboard('p14', 'real')));
    });

    for (const n of ['undefined', 'null', ':name', '%3Aname', 'NaN', '[object%20Object]']) {
      it(`INPUT-14 GET/DELETE .../dashboards/${n}: 404 or 400, nothing returned or deleted`, async () => {
        await unchanged(s, async () => {
          const g = await s.api('GET', `/api/v1/projects/p14/dashboards/${n}`);
          expectStatus(g, [400, 404], `GET ${n}`);
          expect(g.body?.kind).to.equal(undefined);
          expect(g.text).not.to.contain('"real"');
          const d = await s.api('DELETE', `/api/v1/projects/p14/dashboards/${n}`);
          expectStatus(d, [400, 404], `DELETE ${n}`);
          const gp = await s.api('GET', `/api/v1/projects/${n}`);
          expectStatus(gp, [400, 404], `GET project ${n}`);
        });
        await ok(s.api('GET', '/api/v1/projects/p14/dashboards/real'));
        expect((await ok(s.api('GET', '/api/v1/projects/p14/dashboards'))).body).to.have.length(1);
      });
    }
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-16 javascript: URLs and <script> in titles', () => {
    const evil = {
      display: { name: '<script>alert(1)</script>', description: '<img src=x onerror=alert(2)>' },
      links: [{ name: '<script>alert(3)</script>', url: 'javascript:alert(1)', tooltip: '"><svg onload=alert(4)>' }],
      panels: {
        p1: {
          kind: 'Panel',
          spec: {
            display: { name: '</script><script>alert(5)</script>' },
            plugin: { kind: 'Markdown', spec: { text: '<script>alert(6)</script>[x](javascript:alert(7))' } },
            links: [{ url: 'JaVaScRiPt:alert(8)' }],
          },
        },
      },
      layouts: [
        {
          kind: 'Grid',
          spec: {
            display: { title: '<script>alert(9)</script>' },
            items: [{ x: 0, y: 0, width: 12, height: 6, content: { $ref: '#/spec/panels/p1' } }],
          },
        },
      ],
    };

    function expectJsonNosniff(r: ApiResponse, what: string): void {
      expect(r.headers.get('content-type') ?? '', `${what} content-type`).to.match(/^application\/json/);
      expect(r.headers.get('x-content-type-options'), `${what} nosniff`).to.equal('nosniff');
    }

    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p16')));
    });

    it('INPUT-16 stored verbatim or rejected; every read is application/json + nosniff', async () => {
      const body = { kind: 'Dashboard', metadata: { name: 'xss', project: 'p16' }, spec: evil };
      const before = await snapshot(s);
      const c = await s.api('POST', '/api/v1/projects/p16/dashboards', body, { accept: 'text/html' });
      expectStatus(c, [200, 400], 'create');
      expectJsonNosniff(c, 'create');
      if (c.status === 400) {
        expect(snapshotDiff(before, await snapshot(s))).to.deep.equal([]);
        return;
      }
      const expected = { ...evil, duration: '1h' };
      expect(c.body.spec).to.deep.equal(expected);
      const reads: [string, string][] = [
        ['get', '/api/v1/projects/p16/dashboards/xss'],
        ['list', '/api/v1/projects/p16/dashboards'],
        ['cross-project list', '/api/v1/dashboards?project=p16'],
        ['metadata_only', '/api/v1/projects/p16/dashboards?metadata_only=true'],
        ['not found', '/api/v1/projects/p16/dashboards/%3Cscript%3E'],
        ['no route', '/api/v1/projects/p16/dashboards/xss/%3Cscript%3E'],
      ];
      for (const [what, path] of reads) {
        for (const accept of ['*/*', 'text/html']) {
          const r = await s.api('GET', path, undefined, { accept });
          expectJsonNosniff(r, `${what} (Accept: ${accept})`);
          expect(r.text.toLowerCase(), what).not.to.match(/^\s*</);
        }
      }
      const g = await ok(s.api('GET', '/api/v1/projects/p16/dashboards/xss', undefined, { accept: 'text/html' }));
      expect(g.body.spec).to.deep.equal(expected);
      const u = await ok(s.api('PUT', '/api/v1/projects/p16/dashboards/xss', body, { accept: 'text/html' }));
      expectJsonNosniff(u, 'update');
      expect(u.body.spec).to.deep.equal(expected);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-17 server-owned metadata', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p17')));
    });
    const forged = { version: 999, createdAt: '1970-01-01T00:00:00Z', updatedAt: '1970-01-01T00:00:00Z' };
    const recent = (iso: string) => {
      const t = Date.parse(iso);
      expect(Number.isNaN(t), iso).to.equal(false);
      expect(Math.abs(Date.now() - t), `${iso} is not recent`).to.be.below(60_000);
    };

    it('INPUT-17 create with version 999 / createdAt 1970: server values win (version 0, recent timestamps)', async () => {
      for (const [path, body, get] of [
        [
          '/api/v1/projects/p17/dashboards',
          { ...dashboard('p17', 'meta'), metadata: { name: 'meta', project: 'p17', ...forged } },
          '/api/v1/projects/p17/dashboards/meta',
        ],
        ['/api/v1/projects', { kind: 'Project', metadata: { name: 'p17meta', ...forged }, spec: {} }, '/api/v1/projects/p17meta'],
      ] as const) {
        const c = await ok(s.api('POST', path, body));
        expect(c.body.metadata.version).to.equal(0);
        recent(c.body.metadata.createdAt);
        recent(c.body.metadata.updatedAt);
        expect(c.headers.get('etag')).to.equal('"0"');
        const g = await ok(s.api('GET', get));
        expect(g.body.metadata).to.deep.equal(c.body.metadata);
      }
      const stored = await s.server.store.get({ kind: 'Dashboard', project: 'p17', name: 'meta' });
      expect(stored!.metadata.version).to.equal(0);
      recent(stored!.metadata.createdAt);
    });

    it('INPUT-17 update with version 999 / createdAt 1970: version +1, createdAt kept', async () => {
      const before = await ok(s.api('GET', '/api/v1/projects/p17/dashboards/meta'));
      const body = { ...dashboard('p17', 'meta'), metadata: { name: 'meta', project: 'p17', tags: ['edited'], ...forged } };
      const u = await ok(s.api('PUT', '/api/v1/projects/p17/dashboards/meta', body));
      expect(u.body.metadata.version).to.equal(1);
      expect(u.body.metadata.createdAt).to.equal(before.body.metadata.createdAt);
      recent(u.body.metadata.updatedAt);
      const g = await ok(s.api('GET', '/api/v1/projects/p17/dashboards/meta'));
      expect(g.body.metadata).to.deep.equal(u.body.metadata);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-18 content types and identity mismatches', () => {
    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('p18')));
      await ok(s.api('POST', '/api/v1/projects', project('p18b')));
      await ok(s.api('POST', '/api/v1/projects/p18/dashboards', dashboard('p18', 'd')));
    });
    const json = JSON.stringify(dashboard('p18', 'ct'));

    const types: [string, Record<string, string>, string | Buffer][] = [
      ['text/plain', { 'content-type': 'text/plain' }, json],
      ['text/plain;charset=UTF-8', { 'content-type': 'text/plain;charset=UTF-8' }, json],
      ['missing', {}, json],
      ['application/json; charset=utf-16', { 'content-type': 'application/json; charset=utf-16' }, Buffer.from(json, 'utf16le')],
      ['application/json; charset=iso-8859-1', { 'content-type': 'application/json; charset=iso-8859-1' }, json],
      ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, 'kind=Dashboard&metadata[name]=ct'],
      [
        'multipart/form-data',
        { 'content-type': 'multipart/form-data; boundary=xyz' },
        `--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n${json}\r\n--xyz--\r\n`,
      ],
      ['text/html', { 'content-type': 'text/html' }, json],
    ];
    for (const [label, headers, body] of types) {
      it(`INPUT-18 Content-Type ${label}: 415 on POST and PUT, nothing changed`, async () => {
        await unchanged(s, async () => {
          const c = await rawHttp(s, 'POST', '/api/v1/projects/p18/dashboards', headers, body);
          expect(c.status, `POST: ${c.text}`).to.equal(415);
          const putBody = typeof body === 'string' ? body.replace('"ct"', '"d"') : Buffer.from(json.replace('"ct"', '"d"'), 'utf16le');
          const u = await rawHttp(s, 'PUT', '/api/v1/projects/p18/dashboards/d', headers, putBody);
          expect(u.status, `PUT: ${u.text}`).to.equal(415);
        });
        expect((await s.api('GET', '/api/v1/projects/p18/dashboards/ct')).status).to.equal(404);
      });
    }

    for (const ct of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/yaml; charset=utf-8']) {
      it(`INPUT-18 control: ${ct} is accepted (UTF-8 is the one allowed charset)`, async () => {
        const name = `utf8-${ct.includes('yaml') ? 'yaml' : ct.includes(' ') ? 'json' : 'json2'}`;
        const body = ct.includes('yaml')
          ? `kind: Dashboard\nmetadata:\n  name: ${name}\n  project: p18\nspec:\n  panels: {}\n  layouts: []\n`
          : JSON.stringify(dashboard('p18', name));
        const r = await ok(s.raw('POST', '/api/v1/projects/p18/dashboards', body, { 'content-type': ct }));
        expect(r.body.metadata.name).to.equal(name);
      });
    }

    it('INPUT-18 kind mismatch with the route: 400, nothing changed', async () => {
      await unchanged(s, async () => {
        const cases: [string, string, unknown][] = [
          ['POST', '/api/v1/projects/p18/dashboards', { ...dashboard('p18', 'km'), kind: 'Datasource' }],
          ['POST', '/api/v1/projects/p18/dashboards', { ...dashboard('p18', 'km'), kind: 'EphemeralDashboard' }],
          ['POST', '/api/v1/projects', { ...dashboard('p18', 'km'), kind: 'Dashboard' }],
          [
            'POST',
            '/api/v1/projects/p18/secrets',
            { kind: 'Dashboard', metadata: { name: 'km', project: 'p18' }, spec: { basicAuth: { username: 'u', password: 'p' } } },
          ],
          ['POST', '/api/v1/projects/p18/dashboards', { ...dashboard('p18', 'km'), kind: 42 }],
          ['PUT', '/api/v1/projects/p18/dashboards/d', { ...dashboard('p18', 'd'), kind: 'Folder' }],
        ];
        for (const [method, path, body] of cases) {
          const r = await s.api(method, path, body);
          expect(r.status, `${method} ${path} ${JSON.stringify((body as { kind: unknown }).kind)}: ${r.text}`).to.equal(400);
        }
      });
    });

    it('INPUT-18 project or name mismatch with the route: 400, nothing stored in either project', async () => {
      await unchanged(s, async () => {
        const cases: [string, string, unknown][] = [
          ['POST', '/api/v1/projects/p18/dashboards', dashboard('p18b', 'pm')],
          ['PUT', '/api/v1/projects/p18/dashboards/d', dashboard('p18b', 'd')],
          ['PUT', '/api/v1/projects/p18/dashboards/d', dashboard('p18', 'other')],
          ['PUT', '/api/v1/projects/p18b/dashboards/d', dashboard('p18', 'd')],
          ['POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'pm', project: 'p18' }, spec: {} }],
        ];
        for (const [method, path, body] of cases) {
          const r = await s.api(method, path, body);
          expectStatus(r, method === 'PUT' && path.includes('p18b') ? [400, 404] : [400], `${method} ${path}`);
        }
        expect((await s.api('GET', '/api/v1/projects/p18/dashboards?project=p18b')).status).to.equal(400);
      });
      expect((await s.api('GET', '/api/v1/projects/p18b/dashboards/pm')).status).to.equal(404);
      expect((await s.api('GET', '/api/v1/projects/p18/dashboards/pm')).status).to.equal(404);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('INPUT-19 oversized URLs, headers and query strings', () => {
    it('INPUT-19 100 KB URL: 414 or 431 within 1 s, still healthy', async () => {
      const { ms, value: r } = await timed(() => rawHttp(s, 'GET', `/api/v1/projects/${'a'.repeat(100_000)}`));
      expectStatus(r, [414, 431], '100 KB URL');
      expect(ms).to.be.below(1000);
      await expectHealthy(s);
    });

    it('INPUT-19 20 KB of headers: 431 within 1 s, still healthy', async () => {
      const { ms, value: r } = await timed(() => rawHttp(s, 'GET', '/api/v1/health', { 'x-big': 'b'.repeat(20_000) }));
      expect(r.status, r.text).to.equal(431);
      expect(ms).to.be.below(1000);
      const many: Record<string, string> = {};
      for (let i = 0; i < 1000; i++) many[`x-h${i}`] = 'v'.repeat(20);
      const { ms: ms2, value: r2 } = await timed(() => rawHttp(s, 'GET', '/api/v1/health', many));
      expect(r2.status, r2.text).to.equal(431);
      expect(ms2).to.be.below(1000);
      await expectHealthy(s);
    });

    it('INPUT-19 10 000 query parameters: 400 (or 414/431) within 1 s, still healthy', async () => {
      const qs = Array.from({ length: 10_000 }, (_, i) => `q${i}=1`).join('&');
      const { ms, value: r } = await timed(() => rawHttp(s, 'GET', `/api/v1/projects?${qs}`));
      expectStatus(r, [400, 414, 431], '10 000 query parameters');
      expect(ms).to.be.below(1000);
      await expectHealthy(s);
    });

    it("INPUT-19 3 000 query parameters under the 16 KB URL limit (the server's own cap answers): 400 within 1 s, process alive", async () => {
      // 2 bytes each keeps the URL under Node's header limit, so the request reaches the query parser.
      const child = await startChildServer();
      try {
        const qs = Array.from({ length: 3000 }, () => 'a').join('&');
        let r: RawResponse | undefined;
        let error: unknown;
        const t0 = performance.now();
        try {
          r = await rawHttp(child, 'GET', `/api/v1/projects?${qs}`);
        } catch (e) {
          error = e;
        }
        const ms = performance.now() - t0;
        // the process either answers its health check next or has exited (a crash the request caused)
        const health = await waitFor('the server to answer its health check or exit', async () =>
          child.exitCode() !== null ? 'exited' : await rawHttp(child, 'GET', '/api/v1/health').catch(() => undefined),
        );
        expect(child.exitCode(), `the server process exited: ${child.output().slice(-1500)}`).to.equal(null);
        expect(error, `no answer: ${String(error)}`).to.equal(undefined);
        expect(r!.status, r!.text).to.equal(400);
        expect(r!.headers['content-type'] ?? '').to.match(/^application\/json/);
        expect(ms).to.be.below(1000);
        expect(typeof health === 'object' && health.status).to.equal(200);
      } finally {
        await child.stop();
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('SECRET-01/02 secret values never leave the server', () => {
    const CANARY = 'CANARY-8d1f0c2a7e';
    const canaryForms = [
      CANARY,
      Buffer.from(CANARY).toString('base64'),
      Buffer.from(CANARY).toString('hex'),
      CANARY.split('').reverse().join(''),
    ];
    const expectNoCanary = (text: string, what: string) => {
      for (const c of canaryForms) expect(text, `${what} leaks the canary`).not.to.contain(c);
    };

    const secretSpecs: Record<string, { spec: Record<string, unknown>; masked: string[] }> = {
      basic: { spec: { basicAuth: { username: 'u', password: CANARY } }, masked: ['basicAuth.password'] },
      bearer: { spec: { authorization: { type: 'Bearer', credentials: CANARY } }, masked: ['authorization.credentials'] },
      oauth: {
        spec: { oauth: { clientID: 'client', clientSecret: CANARY, tokenURL: 'http://127.0.0.1:9/token' } },
        masked: ['oauth.clientSecret'],
      },
      tls: {
        spec: { tlsConfig: { key: `-----BEGIN PRIVATE KEY-----\n${CANARY}\n-----END PRIVATE KEY-----`, serverName: 'x' } },
        masked: ['tlsConfig.key'],
      },
    };
    const at = (o: unknown, path: string) => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);

    before(async () => {
      await ok(s.api('POST', '/api/v1/projects', project('ps')));
    });

    it('SECRET-01 Secret / GlobalSecret: create, get, list and dry-run answers show "<secret>", never the canary', async () => {
      for (const [name, { spec, masked }] of Object.entries(secretSpecs)) {
        const created = await ok(s.api('POST', '/api/v1/projects/ps/secrets', { kind: 'Secret', metadata: { name, project: 'ps' }, spec }));
        const gcreated = await ok(s.api('POST', '/api/v1/globalsecrets', { kind: 'GlobalSecret', metadata: { name: `g-${name}` }, spec }));
        const dry = await ok(
          s.api('POST', '/api/v1/projects/ps/secrets?dryRun=true', {
            kind: 'Secret',
            metadata: { name: `dry-${name}`, project: 'ps' },
            spec,
          }),
        );
        for (const [what, r] of [
          ['create', created],
          ['global create', gcreated],
          ['dry-run create', dry],
        ] as const) {
          expectNoCanary(r.text, `${what} ${name}`);
          for (const p of masked) expect(at(r.body.spec, p), `${what} ${name} ${p}`).to.equal('<secret>');
        }
        for (const [what, path] of [
          ['get', `/api/v1/projects/ps/secrets/${name}`],
          ['global get', `/api/v1/globalsecrets/g-${name}`],
        ]) {
          const r = await ok(s.api('GET', path));
          expectNoCanary(r.text, `${what} ${name}`);
          for (const p of masked) expect(at(r.body.spec, p), `${what} ${name} ${p}`).to.equal('<secret>');
        }
      }
      for (const path of [
        '/api/v1/projects/ps/secrets',
        '/api/v1/secrets',
        '/api/v1/secrets?project=ps',
        '/api/v1/projects/ps/secrets?name=b',
        '/api/v1/projects/ps/secrets?limit=1',
        '/api/v1/projects/ps/secrets?metadata_only=true',
        '/api/v1/globalsecrets',
        '/api/v1/globalsecrets?name=g-',
      ]) {
        const r = await ok(s.api('GET', path));
        expectNoCanary(r.text, `list ${path}`);
        expect(r.body).to.be.an('array').that.is.not.empty;
        for (const item of r.body as { metadata: { name: string }; spec: unknown }[]) {
          if (path.includes('metadata_only')) continue;
          const key = item.metadata.name.replace(/^g-/, '');
          for (const p of secretSpecs[key].masked) expect(at(item.spec, p), `${path} ${item.metadata.name} ${p}`).to.equal('<secret>');
        }
      }
      // the dry run stored nothing
      expect((await s.api('GET', '/api/v1/projects/ps/secrets/dry-basic')).status).to.equal(404);
    });

    it('SECRET-01 User: create, get and list show "<secret>" for the password (also the older spec.password form)', async () => {
      const u1 = await ok(
        s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'canary-user' }, spec: { nativeProvider: { password: CANARY } } }),
      );
      const u2 = await ok(
        s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'canary-user-old' }, spec: { password: CANARY } }),
      );
      for (const r of [u1, u2]) {
        expectNoCanary(r.text, 'user create');
        expect(r.body.spec.nativeProvider.password).to.equal('<secret>');
      }
      for (const path of ['/api/v1/users/canary-user', '/api/v1/users/canary-user-old']) {
        const r = await ok(s.api('GET', path));
        expectNoCanary(r.text, path);
        expect(r.body.spec.nativeProvider.password).to.equal('<secret>');
      }
      for (const path of ['/api/v1/users', '/api/v1/users?name=canary', '/api/v1/users?metadata_only=true']) {
        const r = await ok(s.api('GET', path));
        expectNoCanary(r.text, path);
      }
    });

    it('SECRET-01 PUT of a Secret / GlobalSecret / User as read back keeps the stored value', async () => {
      const cases: [string, { kind: string; project: string; name: string }, string][] = [
        ['/api/v1/projects/ps/secrets/basic', { kind: 'Secret', project: 'ps', name: 'basic' }, 'basicAuth.password'],
        ['/api/v1/projects/ps/secrets/bearer', { kind: 'Secret', project: 'ps', name: 'bearer' }, 'authorization.credentials'],
        ['/api/v1/globalsecrets/g-basic', { kind: 'GlobalSecret', project: '', name: 'g-basic' }, 'basicAuth.password'],
        ['/api/v1/users/canary-user', { kind: 'User', project: '', name: 'canary-user' }, 'nativeProvider.password'],
      ];
      for (const [path, key, field] of cases) {
        const read = await ok(s.api('GET', path));
        const storedBefore = at((await s.server.store.get(key))!.spec, field);
        // passwords are stored as scrypt hashes, secret values encrypted (v1:<key id>:...)
        expect(String(storedBefore))
          .to.match(key.kind === 'User' ? /^scrypt:/ : /^v1:[0-9a-f]{8}:/)
          .and.not.include(CANARY);
        const body = read.body;
        if (body.spec.basicAuth) body.spec.basicAuth.username = 'changed';
        else if (body.spec.authorization) body.spec.authorization.type = 'Token';
        else body.spec.firstName = 'Changed';
        const put = await ok(s.api('PUT', path, body));
        expectNoCanary(put.text, `PUT ${path}`);
        expect(at(put.body.spec, field)).to.equal('<secret>');
        expect(put.body.metadata.version).to.equal(read.body.metadata.version + 1);
        const stored = await s.server.store.get(key);
        expect(at(stored!.spec, field), `${path}: stored ${field} after a read-back PUT`).to.equal(storedBefore);
      }
    });

    it('SECRET-01 "<secret>" where nothing is stored (create, or a field that was empty) is a 400, nothing changed', async () => {
      await unchanged(s, async () => {
        const c = await s.api('POST', '/api/v1/projects/ps/secrets', {
          kind: 'Secret',
          metadata: { name: 'placeholder', project: 'ps' },
          spec: { basicAuth: { username: 'u', password: '<secret>' } },
        });
        expect(c.status, c.text).to.equal(400);
        const u = await s.api('PUT', '/api/v1/projects/ps/secrets/basic', {
          kind: 'Secret',
          metadata: { name: 'basic', project: 'ps' },
          spec: { authorization: { type: 'Bearer', credentials: '<secret>' } },
        });
        expect(u.status, u.text).to.equal(400);
      });
    });

    const invalidSecrets: [string, Record<string, unknown>][] = [
      ['basicAuth password and passwordFile', { basicAuth: { username: 'u', password: CANARY, passwordFile: `/run/${CANARY}` } }],
      [
        'authorization credentials and credentialsFile',
        { authorization: { type: 'Bearer', credentials: CANARY, credentialsFile: `/run/${CANARY}` } },
      ],
      [
        'oauth clientSecret and clientSecretFile',
        { oauth: { clientID: 'c', clientSecret: CANARY, clientSecretFile: `/run/${CANARY}`, tokenURL: 'http://127.0.0.1:9' } },
      ],
      ['tlsConfig key and keyFile', { tlsConfig: { key: CANARY, keyFile: `/run/${CANARY}` } }],
      ['basicAuth and authorization', { basicAuth: { username: 'u', password: CANARY }, authorization: { credentials: CANARY } }],
      ['basicAuth without username', { basicAuth: { password: CANARY } }],
      ['password of the wrong type', { basicAuth: { username: 'u', password: [CANARY] } }],
      ['unknown field next to the password', { basicAuth: { username: 'u', password: CANARY, extra: CANARY } }],
      ['enum violation with the canary', { tlsConfig: { key: CANARY, minVersion: CANARY } }],
    ];
    for (const [label, spec] of invalidSecrets) {
      it(`SECRET-02 invalid secret (${label}): 400, error body without the canary, nothing changed`, async () => {
        await unchanged(s, async () => {
          for (const [method, path, body] of [
            ['POST', '/api/v1/projects/ps/secrets', { kind: 'Secret', metadata: { name: 'invalid', project: 'ps' }, spec }],
            ['POST', '/api/v1/globalsecrets', { kind: 'GlobalSecret', metadata: { name: 'invalid' }, spec }],
            ['PUT', '/api/v1/projects/ps/secrets/tls', { kind: 'Secret', metadata: { name: 'tls', project: 'ps' }, spec }],
          ] as const) {
            const r = await s.api(method, path, body);
            expect(r.status, `${method} ${path}: ${r.text}`).to.equal(400);
            expectNoCanary(r.text, `${method} ${path}`);
          }
        });
      });
    }

    it('SECRET-02 malformed JSON / YAML secret bodies: 400, error body without the canary', async () => {
      const bodies: [string, Record<string, string>][] = [
        [`{"kind":"Secret","metadata":{"name":"mal","project":"ps"},"spec":{"basicAuth":{"username":"u","password": ${CANARY}}}}`, JSON_CT],
        [
          `{"kind":"Secret","metadata":{"name":"mal","project":"ps"},"spec":{"basicAuth":{"username":"u","password":"${CANARY}"}}}}`,
          JSON_CT,
        ],
        [
          `{"kind":"Secret","metadata":{"name":"mal","project":"ps"},"spec":{"basicAuth":{"username":"u","password":"${CANARY}\u0001"}}}`,
          JSON_CT,
        ],
        [
          `kind: Secret\nmetadata:\n  name: mal\n  project: ps\nspec:\n  basicAuth:\n    username: u\n    password: ${CANARY}: x\n`,
          YAML_CT,
        ],
        [`kind: Secret\nmetadata:\n  name: mal\n  project: ps\nspec:\n  basicAuth:\n    username: u\n    password: "${CANARY}\n`, YAML_CT],
        [
          `kind: Secret\nmetadata:\n  name: mal\n  project: ps\nspec:\n  basicAuth:\n    username: u\n    password: ${CANARY}\n    password: ${CANARY}\n`,
          YAML_CT,
        ],
      ];
      // A short password typed without quotes: parser messages that quote the text would show all of it.
      const SHORT = 'Hx7q2w';
      const head = `{"kind":"Secret","metadata":{"name":"mal","project":"ps"},"spec":{"basicAuth":{"username":"u","password":`;
      bodies.push([`${head} ${SHORT}}}}`, JSON_CT], [`${head}'${SHORT}'}}}`, JSON_CT], [`${head}"${SHORT}" "${SHORT}"}}}`, JSON_CT]);
      await unchanged(s, async () => {
        for (const [text, ct] of bodies) {
          const r = await s.raw('POST', '/api/v1/projects/ps/secrets', text, ct);
          const what = `malformed ${ct['content-type']} body ${JSON.stringify(text.slice(-40))}`;
          expect(r.status, `${what}: ${r.text}`).to.equal(400);
          expectNoCanary(r.text, what);
          expect(r.text, `${what} echoes (part of) the password`).not.to.contain(SHORT).and.not.to.contain(CANARY.slice(0, 10));
        }
      });
    });
  });
});
