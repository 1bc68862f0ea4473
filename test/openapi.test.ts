import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildKindRegistry } from '../src/kinds/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { openApiPath, UNDOCUMENTED } from '../src/api/openapi/document.js';
import { kindRoutes } from '../src/api/resource-router.js';
import { REASONS } from '../src/api/error-handler.js';
import { startAuthServer } from './helpers/auth.js';
import { openPage, scrollUntilPresent } from './helpers/browser.js';
import { readResources } from './helpers/manifests.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { skipWithoutProgram } from './helpers/programs.js';

type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } } & Record<
  string,
  any
>;

/** OpenAPI's methods, as the document lists them (HEAD is Fastify's automatic twin of GET). */
const OPENAPI_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'patch', 'trace']);

/** Every (method, path) pair of the route table, as the document would spell it. */
function mounted(srv: TestServer): Set<string> {
  const out = new Set<string>();
  for (const r of srv.server.app.routeTable) {
    for (const m of Array.isArray(r.method) ? r.method : [r.method]) {
      if (OPENAPI_METHODS.has(m.toLowerCase())) out.add(`${m.toLowerCase()} ${openApiPath(r.url)}`);
    }
  }
  return out;
}

function documentedOps(doc: Doc): Set<string> {
  return new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`)));
}

/** Every `$ref` in the document, with where it is. */
function refs(value: unknown, at = '#'): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => refs(v, `${at}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [[at, v] as [string, string]] : refs(v, `${at}/${k}`),
  );
}

function pointer(doc: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, p) => (node === undefined ? undefined : node[p]), doc);
}

describe('OpenAPI document (GET /api/openapi.json) and the API reference (/api/docs)', function () {
  this.timeout(60_000);
  let srv: TestServer;
  let doc: Doc;

  before(async () => {
    srv = await startAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OAUTH: JSON.stringify([
        {
          slug_id: 'forge',
          name: 'Forge',
          client_id: 'c',
          client_secret: 's',
          auth_url: 'http://127.0.0.1:1/a',
          token_url: 'http://127.0.0.1:1/t',
          user_infos_url: 'http://127.0.0.1:1/u',
        },
      ]),
    });
    const r = await srv.raw('GET', '/api/openapi.json');
    expect(r.status, r.text).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/json/);
    doc = r.body;
  });
  after(async () => srv?.stop());

  it('is served without credentials, and is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    expect(doc.openapi).to.equal('3.1.0');
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc) as never);
    expect(res.valid, JSON.stringify(res.errors, null, 2)).to.equal(true);
    expect(validator.version).to.equal('3.1');
    expect(() => validator.resolveRefs()).to.not.throw();
  });

  it('every $ref points at something in the document', () => {
    const broken = refs(doc).filter(([, ref]) => !ref.startsWith('#/') || pointer(doc, ref) === undefined);
    expect(broken).to.deep.equal([]);
  });

  it("lists exactly the routes the server mounted (Fastify's route table), each described", () => {
    const routes = mounted(srv);
    const ops = documentedOps(doc);
    expect(
      [...routes].filter((r) => !ops.has(r)),
      'mounted but not in the document',
    ).to.deep.equal([]);
    expect(
      [...ops].filter((o) => !routes.has(o)),
      'in the document but not mounted',
    ).to.deep.equal([]);
    const undocumented = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([, op]) => op[UNDOCUMENTED])
        .map(([m]) => `${m} ${p}`),
    );
    expect(undocumented, 'routes without a config.doc').to.deep.equal([]);
    // with auth and a provider on, the sign-in routes are there too
    for (const p of [
      '/api/auth/providers/native/login',
      '/api/auth/refresh',
      '/api/auth/providers/{kind}/{slug}/token',
      '/api/v1/users/{name}/permissions',
    ])
      expect(doc.paths, p).to.have.property(p);
  });

  it('every documented operation reaches a route (no "no route" 404 for any method and path)', async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const url = path.replace(/\{(\w+)\}/g, (_m, n: string) =>
        n === 'version' ? '1' : n === 'kind' ? 'oauth' : n === 'slug' ? 'forge' : `x${n}`,
      );
      for (const method of Object.keys(item)) {
        if (method === 'trace') continue; // fetch refuses TRACE
        const r = await fetch(srv.url + url, { method: method.toUpperCase(), redirect: 'manual', headers: { accept: 'application/json' } });
        expect(`${r.status} ${(await r.text()).slice(0, 200)}`, `${method} ${url}`).to.not.match(/no route for/);
      }
    }
  });

  it('holds the routes of every kind, made from the kind registry', () => {
    const ops = documentedOps(doc);
    for (const d of buildKindRegistry().all()) {
      for (const r of kindRoutes(d))
        expect(ops.has(`${r.method.toLowerCase()} ${openApiPath(r.url)}`), `${d.kind}: ${r.method} ${r.url}`).to.equal(true);
      const list = doc.paths[openApiPath(kindRoutes(d)[0].url)].get;
      for (const f of d.listFilters ?? [])
        expect(
          list.parameters.map((p: any) => p.name),
          `${d.kind} list filter ${f.param}`,
        ).to.include(f.param);
    }
    expect(doc.components.schemas.Error.properties.reason.enum).to.deep.equal([...REASONS]);
  });

  it('names every write input the server honours (dryRun, fieldManager, If-Match, X-Dashplane-Manager, X-Dashplane-Skip-Unchanged) and the X-Dashplane-Unchanged answer', () => {
    const one = doc.paths['/api/v1/projects/{project}/dashboards/{name}'];
    const names = (op: any) => (op.parameters ?? []).map((p: any) => `${p.in}:${p.name}`);
    expect(names(one.put)).to.include.members([
      'query:dryRun',
      'query:fieldManager',
      'header:If-Match',
      'header:X-Dashplane-Manager',
      'header:X-Dashplane-Skip-Unchanged',
    ]);
    expect(one.put.responses['200'].headers).to.have.keys('ETag', 'X-Dashplane-Unchanged');
    expect(names(one.delete)).to.include.members(['query:dryRun', 'query:fieldManager', 'header:If-Match', 'header:X-Dashplane-Manager']);
    expect(names(doc.paths['/api/v1/projects/{project}/dashboards'].post)).to.include.members([
      'query:dryRun',
      'query:fieldManager',
      'header:X-Dashplane-Manager',
    ]);
    const restore = doc.paths['/api/v1/projects/{project}/dashboards/{name}/versions/{version}/restore'].post;
    expect(names(restore)).to.include.members(['query:dryRun', 'header:If-Match', 'header:X-Dashplane-Skip-Unchanged']);
  });

  it("its kind schemas accept every example manifest and refuse a broken one (they are the server's schemas)", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'https://dashplane.test/openapi.json' } as never);
    const dir = join(PACKAGE_ROOT, 'examples', 'manifests');
    const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).to.be.greaterThan(10);
    for (const f of files) {
      for (const obj of readResources(join(dir, f))) {
        const withMeta = {
          ...obj,
          metadata: {
            createdAt: '2026-01-01T00:00:00Z',
            updatedAt: '2026-01-01T00:00:00Z',
            version: 0,
            ...obj.metadata,
            ...(buildKindRegistry().byName(obj.kind)?.scope === 'project' ? { project: obj.metadata?.project ?? 'demo' } : {}),
          },
        };
        const validate = ajv.getSchema(`https://dashplane.test/openapi.json#/components/schemas/${obj.kind}`)!;
        expect(validate(withMeta), `${f}: ${JSON.stringify(validate.errors)}`).to.equal(true);
        expect(validate({ ...withMeta, spec: 'not an object' }), `${f} with a string spec`).to.equal(false);
      }
    }
  });

  it('says which routes are anonymous when authentication is on', () => {
    expect(doc.security).to.deep.equal([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(doc.paths['/api/v1/health'].get.security).to.deep.include({});
    expect(doc.paths['/api/v1/projects'].get.security).to.equal(undefined);
  });

  it('/api/docs renders it with Swagger UI from local files, under the strict Content-Security-Policy', async () => {
    const page = await srv.raw('GET', '/api/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'").and.not.include('unsafe-eval');
    expect(page.text).to.not.match(/<script>(?!<)/); // no inline script
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).to.include('/api/docs/swagger-ui-bundle.js').and.include('/api/docs/init.js');
    for (const a of assets) {
      expect(a, 'served from this server, not a CDN').to.match(/^\/api\/docs\//);
      const r = await srv.raw('GET', a);
      expect(r.status, a).to.equal(200);
    }
    expect((await srv.raw('GET', '/api/docs/init.js')).text).to.include("url: '/api/openapi.json'");
    expect((await srv.raw('GET', '/api/docs/package.json')).status, 'only the viewer files').to.equal(404);
    expect((await srv.raw('GET', '/api/docs/..%2f..%2fpackage.json')).status).to.be.oneOf([400, 404]);
  });

  it('/api/docs works in Chromium under that policy: the operations are listed, no CSP violation or script error', async function () {
    skipWithoutProgram(this, 'chromium');
    this.timeout(120_000);
    const w = await openPage(srv.url);
    try {
      await w.page.goto('/api/docs');
      await w.page.locator('.swagger-ui .info .title').filter({ hasText: 'dashplane HTTP API' }).waitFor({ timeout: 30_000 });
      await w.page
        .locator('.opblock-summary-path', { hasText: '/api/v1/projects/{project}/dashboards/{name}' })
        .first()
        .waitFor({ timeout: 30_000 });
      await w.screenshot('api-docs');
      // Swagger UI renders a long document as it scrolls (only the sections near the view): scroll in steps shorter than a section
      const last = w.page.locator('.opblock-tag', { hasText: 'The web UI' });
      // (scrolled until it is drawn: on a loaded machine the page draws well behind the wheel)
      await scrollUntilPresent(w.page, last, 'the last section of /api/docs ("The web UI")', 800, 40_000);
      // brought into view before it is read: on a loaded machine the section may exist a while
      // before it is laid out
      await last.scrollIntoViewIfNeeded({ timeout: 30_000 });
      expect(await last.textContent()).to.include('The web UI');
      expect(w.errors).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });
});

describe('OpenAPI document with authentication off and ephemeral dashboards switched off', () => {
  it('has no security requirements and no routes the server does not answer', async () => {
    const srv = await startTestServer({ env: { DASHPLANE_EPHEMERAL_DASHBOARD_ENABLE: 'false' } });
    try {
      const doc = (await srv.raw('GET', '/api/openapi.json')).body as Doc;
      expect(doc.security).to.equal(undefined);
      expect(doc.paths).to.not.have.property('/api/auth/providers/native/login');
      expect(doc.paths).to.not.have.property('/api/v1/projects/{project}/ephemeraldashboards');
      expect(doc.paths).to.have.property('/api/v1/projects/{project}/dashboards');
      expect([...mounted(srv)].sort()).to.deep.equal([...documentedOps(doc)].sort());
    } finally {
      await srv.stop();
    }
  });
});
