/**
 * Per-kind HTTP contract (docs/api.md §1-5, 9, 12), driven by the example manifests in
 * examples/manifests: every file there is created, listed, read, updated, dry-run and deleted
 * through the real server. Kinds are never named here: plural and scope come from the registry.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import { granteesOf } from '../src/resources/grantees.js';
import type { Envelope } from '../src/storage/store.js';
import { readResources } from './helpers/manifests.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const MANIFESTS = join(EXAMPLES, 'manifests');
const CONFIG_FILE = join(EXAMPLES, 'config.yaml');

const MASK = '<secret>';
/** RFC 3339 in UTC, as docs/api.md §4 requires. */
/** Asks that a PUT of what is stored change nothing (dashctl and the web UI send it). */
const SKIP = { 'x-dashplane-skip-unchanged': 'true' };
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

type Obj = Record<string, any>;

const registry = buildKindRegistry();

interface Example {
  file: string;
  manifest: Obj;
  d: KindDescriptor;
}

/** KindName -> kind-name (the manifest file naming rule). */
const kebab = (kind: string) => kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/** Every manifest of the examples directory, the project kind first (others live in it). */
const examples: Example[] = readdirSync(MANIFESTS)
  .filter((f) => /\.ya?ml$/i.test(f))
  .sort()
  .flatMap((file) =>
    readResources(join(MANIFESTS, file)).map((manifest) => {
      const d = registry.byName(String(manifest.kind));
      if (!d) throw new Error(`${file}: kind ${JSON.stringify(manifest.kind)} is not a registered kind`);
      return { file, manifest, d };
    }),
  )
  .sort((a, b) => Number(!!b.d.isProjectScope) - Number(!!a.d.isProjectScope));

const projectExample = examples.find((e) => e.d.isProjectScope);
if (!projectExample) throw new Error(`${MANIFESTS} has no manifest of the project kind ${registry.projectKind.kind}`);
/** The project every project-scoped example lives in (`demo`). */
const PROJECT: string = projectExample.manifest.metadata.name;

function getPath(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((cur, k) => (cur !== null && typeof cur === 'object' ? (cur as Obj)[k] : undefined), obj);
}

/** Sensitive fields the manifest sets to a non-empty value: [path, original value]. */
function sensitiveValues(d: KindDescriptor, manifest: Obj): [string, string][] {
  return (d.sensitive ?? [])
    .map((p) => [p, getPath(manifest, p)] as [string, unknown])
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
}

/** The plural with the capitals of the kind name (`globalroles` -> `GlobalRoles`). */
function mixedCasePlural(d: KindDescriptor): string {
  const chars = [...d.plural].map((c, i) => (d.kind[i] !== undefined && d.kind[i].toLowerCase() === c ? d.kind[i] : c));
  const mixed = chars.join('');
  return mixed === d.plural ? d.plural.toUpperCase() : mixed;
}

function describeResponse(r: ApiResponse): string {
  return `HTTP ${r.status}: ${r.text.slice(0, 600)}`;
}

describe('example server configuration (examples/config.yaml)', () => {
  it('loads with loadConfig and holds the documented keys', () => {
    const { config, warnings } = loadConfig({ file: CONFIG_FILE });
    expect(warnings).to.deep.equal([]);
    expect(config.listen).to.be.a('string').and.match(/:\d+$/);
    expect(config.database?.level?.path).to.be.a('string').that.is.not.empty;
    expect(config.security?.enable_auth).to.equal(false);
    expect(config.history?.max_versions).to.be.a('number');
    expect(config.proxy?.timeout).to.be.a('string');
    expect(config.http?.body_limit).to.be.a('number');
    expect(config.http?.max_json_depth).to.be.a('number');
    expect(config.log?.level).to.be.a('string');
    expect(config.plugin?.schemas_dir, 'plugin.schemas_dir is shown commented out').to.equal(undefined);
  });

  it('starts a server (with listen and database path overridden)', async () => {
    const s = await startTestServer({ configFile: CONFIG_FILE });
    try {
      const r = await s.api('GET', '/api/v1/health');
      expect(r.status, describeResponse(r)).to.equal(200);
    } finally {
      await s.stop();
    }
  });
});

/**
 * The principals the examples' grants name (bindings' subjects, groups' members): a grant names
 * principals that exist (GRANT-01), so each is created first, as a copy of its kind's example.
 */
const grantees = examples.flatMap((e) => granteesOf(registry, e.d, e.manifest as unknown as Envelope));
const prerequisites = [...new Map(grantees.map((g) => [`${g.kind}/${g.name}`, g])).values()];
const prerequisite = (d: KindDescriptor, name: string) => prerequisites.some((g) => g.kind === d.kind && g.name === name);

describe('kind contract, driven by examples/manifests', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
    const r = await s.api('POST', `/api/v1/${projectExample.d.plural}`, projectExample.manifest);
    if (r.status !== 200) throw new Error(`cannot create project ${PROJECT} from ${projectExample.file}: ${describeResponse(r)}`);
    for (const g of prerequisites) {
      const e = examples.find((x) => x.d.kind === g.kind);
      if (!e) throw new Error(`the examples grant roles to ${g.kind} "${g.name}" but hold no ${g.kind} to copy`);
      const path = e.d.scope === 'project' ? `/api/v1/projects/${PROJECT}/${e.d.plural}` : `/api/v1/${e.d.plural}`;
      const made = await s.api('POST', path, { ...e.manifest, metadata: { ...e.manifest.metadata, name: g.name } });
      if (made.status !== 200)
        throw new Error(`cannot create ${g.kind} ${g.name}, which the examples' grants name: ${describeResponse(made)}`);
    }
  });

  after(async () => {
    await s?.stop();
  });

  it('the examples hold exactly one manifest per registered kind, named <kind-kebab>.yaml', () => {
    const byKind = new Map<string, string[]>();
    for (const e of examples) byKind.set(e.d.kind, [...(byKind.get(e.d.kind) ?? []), e.file]);
    for (const d of registry.all()) {
      expect(byKind.get(d.kind), `manifest of ${d.kind}`).to.deep.equal([`${kebab(d.kind)}.yaml`]);
    }
    expect(examples).to.have.length(registry.all().length);
    for (const e of examples) {
      expect(e.manifest.kind, `${e.file}: kind is spelled canonically`).to.equal(e.d.kind);
      if (e.d.scope === 'project') expect(e.manifest.metadata.project, `${e.file}: metadata.project`).to.equal(PROJECT);
      else expect(e.manifest.metadata.project, `${e.file}: no metadata.project`).to.equal(undefined);
    }
  });

  for (const { file, manifest, d } of examples) {
    describe(`${d.kind} (${file})`, () => {
      const projectScoped = d.scope === 'project';
      const collection = projectScoped ? `/api/v1/projects/${PROJECT}/${d.plural}` : `/api/v1/${d.plural}`;
      const item = (name: string) => `${collection}/${name}`;
      const secrets = sensitiveValues(d, manifest);
      const baseName: string = manifest.metadata.name;
      let counter = 0;
      /** Names created by the current test; deleted after it so tests stay independent. */
      let created: string[] = [];

      const fresh = () => `${baseName}-t${++counter}`;
      const withName = (name: string, kind: string = manifest.kind): Obj => {
        const copy = structuredClone(manifest);
        copy.kind = kind;
        copy.metadata.name = name;
        return copy;
      };

      /** Creates a copy named `name` (fresh by default) and returns the stored object. */
      async function create(name = fresh()): Promise<Obj> {
        const r = await s.api('POST', collection, withName(name));
        expect(r.status, `POST ${collection} (${name}): ${describeResponse(r)}`).to.equal(200);
        created.push(name);
        return r.body;
      }

      async function get(name: string): Promise<ApiResponse> {
        return s.api('GET', item(name));
      }

      function expectNoSecretIn(r: ApiResponse, what: string): void {
        for (const [path, value] of secrets) expect(r.text.includes(value), `${what} leaks ${path}`).to.equal(false);
      }

      function expectMasked(obj: Obj, what: string): void {
        for (const [path] of secrets) expect(getPath(obj, path), `${what}: ${path}`).to.equal(MASK);
      }

      afterEach(async () => {
        for (const name of created) await s.api('DELETE', item(name));
        created = [];
      });

      it('create answers 200 with the stored object, server metadata and masked secrets', async () => {
        // The project itself, and the principals the examples' grants name, were created in before(); every other example is created as written.
        const name = d.isProjectScope || prerequisite(d, baseName) ? fresh() : baseName;
        const r = await s.api('POST', collection, withName(name));
        expect(r.status, describeResponse(r)).to.equal(200);
        created.push(name);
        const obj = r.body;
        expect(obj.kind).to.equal(d.kind);
        expect(obj.metadata.name).to.equal(name);
        if (projectScoped) expect(obj.metadata.project).to.equal(PROJECT);
        else expect(obj.metadata).to.not.have.property('project');
        expect(obj.metadata.createdAt).to.be.a('string').and.match(RFC3339_UTC);
        expect(obj.metadata.updatedAt).to.be.a('string').and.match(RFC3339_UTC);
        expect(obj.metadata.version).to.equal(0);
        expectMasked(obj, 'create response');
        expectNoSecretIn(r, 'create response');

        const g = await get(name);
        expect(g.status, describeResponse(g)).to.equal(200);
        expect(g.body, 'create response = GET').to.deep.equal(obj);
        expectMasked(g.body, 'GET');
        expectNoSecretIn(g, 'GET');

        // What you apply is what you read back (sensitive values masked).
        const expected = structuredClone(manifest.spec ?? {});
        for (const [path] of secrets) {
          const keys = path.split('.').slice(1);
          (getPath({ spec: expected }, ['spec', ...keys.slice(0, -1)].join('.')) as Obj)[keys[keys.length - 1]] = MASK;
        }
        expect(g.body.spec ?? {}, 'spec round-trips').to.deep.equal(expected);
      });

      it('a duplicate create answers 409 with a message', async () => {
        const name = (await create()).metadata.name;
        const r = await s.api('POST', collection, withName(name));
        expect(r.status, describeResponse(r)).to.equal(409);
        expect(r.body?.message).to.be.a('string').that.is.not.empty;
        expectNoSecretIn(r, '409 response');
      });

      it('the lists contain it', async () => {
        const obj = await create();
        const routes = projectScoped ? [collection, `/api/v1/${d.plural}`, `/api/v1/${d.plural}?project=${PROJECT}`] : [collection];
        for (const route of routes) {
          const r = await s.api('GET', route);
          expect(r.status, `${route}: ${describeResponse(r)}`).to.equal(200);
          expect(r.body, route).to.be.an('array');
          const found = (r.body as Obj[]).filter(
            (o) => o.metadata?.name === obj.metadata.name && (o.metadata?.project ?? '') === (obj.metadata.project ?? ''),
          );
          expect(found, `${route} holds ${obj.metadata.name} once`).to.have.length(1);
          expect(found[0], `${route}: item = GET`).to.deep.equal(obj);
          expectNoSecretIn(r, route);
        }
      });

      it('the name filter is a prefix filter; no match is exactly []', async () => {
        const name: string = (await create()).metadata.name;
        const routes = projectScoped ? [collection, `/api/v1/${d.plural}`] : [collection];
        for (const route of routes) {
          for (const prefix of [name.slice(0, 3), name]) {
            const r = await s.api('GET', `${route}?name=${encodeURIComponent(prefix)}`);
            expect(r.status, describeResponse(r)).to.equal(200);
            const names = (r.body as Obj[]).map((o) => o.metadata.name as string);
            expect(names, `${route}?name=${prefix}`).to.include(name);
            for (const n of names) expect(n.startsWith(prefix), `${n} starts with ${prefix}`).to.equal(true);
          }
          const none = await s.api('GET', `${route}?name=zz-no-such-prefix-`);
          expect(none.status, describeResponse(none)).to.equal(200);
          expect(none.text.trim()).to.equal('[]');
          expect(none.body).to.deep.equal([]);
        }
      });

      it('GET answers ETag "0" after create', async () => {
        const name = (await create()).metadata.name;
        const r = await get(name);
        expect(r.status, describeResponse(r)).to.equal(200);
        expect(r.headers.get('etag')).to.equal('"0"');
      });

      /** The object with one tag more: a change every kind accepts. */
      const tagged = (o: Obj): Obj => ({ ...o, metadata: { ...o.metadata, tags: [...(o.metadata.tags ?? []), 'contract-edit'] } });

      it('PUT of the object as read back, twice, bumps the version each time, as Perses does (TestUpdateDashboardIncreaseVersion)', async () => {
        const name = (await create()).metadata.name;
        const before = (await get(name)).body;
        for (const version of [1, 2]) {
          const r = await s.api('PUT', item(name), before);
          expect(r.status, describeResponse(r)).to.equal(200);
          expect(r.headers.get('x-dashplane-unchanged')).to.equal(null);
          expect(r.body.metadata.version).to.equal(version);
          expect(r.headers.get('etag')).to.equal(`"${version}"`);
          expect(r.body.spec, 'spec unchanged (masked values kept)').to.deep.equal(before.spec);
          expectNoSecretIn(r, 'PUT response');
        }
        expect((await get(name)).body.metadata.version).to.equal(2);
      });

      it('PUT of the object as read back with X-Dashplane-Skip-Unchanged changes nothing (X-Dashplane-Unchanged), except that it renews a kind with a ttl', async () => {
        const name = (await create()).metadata.name;
        const before = (await get(name)).body;
        const r = await s.api('PUT', item(name), before, SKIP);
        expect(r.status, describeResponse(r)).to.equal(200);
        expectNoSecretIn(r, 'PUT response');
        if (d.ttlPath) {
          expect(r.headers.get('x-dashplane-unchanged'), 'the same body renews the lease').to.equal(null);
          expect(r.body.metadata.version).to.equal(1);
          return;
        }
        expect(r.headers.get('x-dashplane-unchanged')).to.equal('true');
        expect(r.headers.get('etag')).to.equal('"0"');
        expect(r.body, 'the stored object as it was').to.deep.equal(before);
        expect((await get(name)).body).to.deep.equal(before);
      });

      it('PUT of the object as read back with a tag added bumps the version by exactly 1', async () => {
        const name = (await create()).metadata.name;
        const before = (await get(name)).body;
        const r = await s.api('PUT', item(name), tagged(before));
        expect(r.status, describeResponse(r)).to.equal(200);
        expect(r.headers.get('x-dashplane-unchanged')).to.equal(null);
        expect(r.body.metadata.tags).to.include('contract-edit');
        expect(r.body.metadata.version).to.equal(1);
        expect(r.body.metadata.createdAt).to.equal(before.metadata.createdAt);
        expect(r.body.metadata.updatedAt).to.match(RFC3339_UTC);
        expect(Date.parse(r.body.metadata.updatedAt)).to.be.at.least(Date.parse(before.metadata.updatedAt));
        expect(r.body.spec, 'spec unchanged (masked values kept)').to.deep.equal(before.spec);
        expect(r.headers.get('etag'), 'PUT ETag').to.equal('"1"');
        expectMasked(r.body, 'PUT response');
        expectNoSecretIn(r, 'PUT response');
        const after = await get(name);
        expect(after.headers.get('etag'), 'GET ETag').to.equal('"1"');
        expect(after.body, 'PUT response = GET').to.deep.equal(r.body);
      });

      it('PUT with a body name that differs from the path answers 400', async () => {
        const obj = await create();
        const body = structuredClone(obj);
        body.metadata.name = `${obj.metadata.name}-other`;
        const r = await s.api('PUT', item(obj.metadata.name), body);
        expect(r.status, describeResponse(r)).to.equal(400);
        expect(r.body?.message).to.be.a('string').that.is.not.empty;
        expect((await get(obj.metadata.name)).body.metadata.version).to.equal(0);
        expect((await get(body.metadata.name)).status, 'nothing created under the body name').to.equal(404);
      });

      if (projectScoped) {
        it('PUT with a body project that differs from the path answers 400', async () => {
          const obj = await create();
          const body = structuredClone(obj);
          body.metadata.project = `${PROJECT}-other`;
          const r = await s.api('PUT', item(obj.metadata.name), body);
          expect(r.status, describeResponse(r)).to.equal(400);
          expect(r.body?.message).to.be.a('string').that.is.not.empty;
          expect((await get(obj.metadata.name)).body.metadata.version).to.equal(0);
        });
      }

      it('GET, PUT and DELETE of a missing name answer 404', async () => {
        const name = `${baseName}-missing`;
        const g = await get(name);
        expect(g.status, `GET: ${describeResponse(g)}`).to.equal(404);
        expect(g.body?.message).to.be.a('string').that.is.not.empty;
        const p = await s.api('PUT', item(name), withName(name));
        expect(p.status, `PUT: ${describeResponse(p)}`).to.equal(404);
        expect(p.body?.message).to.be.a('string').that.is.not.empty;
        expect((await get(name)).status, 'PUT never creates').to.equal(404);
        const del = await s.api('DELETE', item(name));
        expect(del.status, `DELETE: ${describeResponse(del)}`).to.equal(404);
      });

      it('PUT with a stale If-Match answers 412 and changes nothing', async () => {
        const name = (await create()).metadata.name;
        const v0 = (await get(name)).body;
        const put = await s.api('PUT', item(name), tagged(v0));
        expect(put.status, describeResponse(put)).to.equal(200);
        const v1 = (await get(name)).body;
        expect(v1.metadata.version).to.equal(1);
        const r = await s.api('PUT', item(name), v0, { 'If-Match': '"0"' });
        expect(r.status, describeResponse(r)).to.equal(412);
        expect(r.body?.message).to.be.a('string').that.is.not.empty;
        const after = await get(name);
        expect(after.body, 'unchanged').to.deep.equal(v1);
        expect(after.headers.get('etag')).to.equal('"1"');
      });

      it('dryRun on POST answers 200 and stores nothing', async () => {
        const name = fresh();
        const r = await s.api('POST', `${collection}?dryRun=true`, withName(name));
        expect(r.status, describeResponse(r)).to.equal(200);
        expect(r.body.kind).to.equal(d.kind);
        expect(r.body.metadata.name).to.equal(name);
        expect(r.body.metadata.version).to.equal(0);
        expectMasked(r.body, 'dry-run response');
        expectNoSecretIn(r, 'dry-run response');
        const g = await get(name);
        expect(g.status, `GET after dry run: ${describeResponse(g)}`).to.equal(404);
      });

      it('dryRun on POST of an existing name answers 409, as the real call would', async () => {
        const obj = await create();
        const r = await s.api('POST', `${collection}?dryRun=true`, withName(obj.metadata.name));
        expect(r.status, describeResponse(r)).to.equal(409);
        expect(r.body?.message).to.be.a('string').that.is.not.empty;
        expect((await get(obj.metadata.name)).body, 'stored object unchanged').to.deep.equal(obj);
      });

      it('dryRun on PUT answers like the real call and leaves the version unchanged', async () => {
        const name = (await create()).metadata.name;
        const before = (await get(name)).body;
        const same = await s.api('PUT', `${item(name)}?dryRun=true`, before, SKIP);
        expect(same.status, describeResponse(same)).to.equal(200);
        expect(same.headers.get('x-dashplane-unchanged'), 'unchanged, as the real call would say').to.equal(d.ttlPath ? null : 'true');
        const plain = await s.api('PUT', `${item(name)}?dryRun=true`, before);
        expect(plain.headers.get('x-dashplane-unchanged'), 'without the header, a write like any other').to.equal(null);
        expect(plain.body.metadata.version, 'the version the real call would give').to.equal(1);
        const r = await s.api('PUT', `${item(name)}?dryRun=true`, tagged(before));
        expect(r.status, describeResponse(r)).to.equal(200);
        expect(r.headers.get('x-dashplane-unchanged')).to.equal(null);
        expect(r.body.metadata.version, 'the version the real call would give').to.equal(1);
        const after = await get(name);
        expect(after.body, 'stored object unchanged').to.deep.equal(before);
        expect(after.headers.get('etag')).to.equal('"0"');
      });

      it('dryRun on DELETE answers 204 and leaves the object in place', async () => {
        const name = (await create()).metadata.name;
        const before = (await get(name)).body;
        const r = await s.api('DELETE', `${item(name)}?dryRun=true`);
        expect(r.status, describeResponse(r)).to.equal(204);
        expect(r.text).to.equal('');
        const after = await get(name);
        expect(after.status, describeResponse(after)).to.equal(200);
        expect(after.body).to.deep.equal(before);
      });

      it('DELETE answers 204 with an empty body, then GET answers 404', async () => {
        const name = (await create()).metadata.name;
        const r = await s.api('DELETE', item(name));
        expect(r.status, describeResponse(r)).to.equal(204);
        expect(r.text).to.equal('');
        const g = await get(name);
        expect(g.status, describeResponse(g)).to.equal(404);
        created = created.filter((n) => n !== name);
      });

      it('the plural path segment matches case-insensitively', async () => {
        const obj = await create();
        for (const plural of [mixedCasePlural(d), d.plural.toUpperCase()]) {
          const base = projectScoped ? `/api/v1/projects/${PROJECT}/${plural}` : `/api/v1/${plural}`;
          const list = await s.api('GET', base);
          expect(list.status, `GET ${base}: ${describeResponse(list)}`).to.equal(200);
          expect((list.body as Obj[]).map((o) => o.metadata.name)).to.include(obj.metadata.name);
          const one = await s.api('GET', `${base}/${obj.metadata.name}`);
          expect(one.status, `GET ${base}/${obj.metadata.name}: ${describeResponse(one)}`).to.equal(200);
          expect(one.body).to.deep.equal(obj);
          if (projectScoped) {
            const cross = await s.api('GET', `/api/v1/${plural}`);
            expect(cross.status, `GET /api/v1/${plural}: ${describeResponse(cross)}`).to.equal(200);
            expect((cross.body as Obj[]).map((o) => o.metadata.name)).to.include(obj.metadata.name);
          }
        }
      });

      it('kind in the body is accepted case-insensitively and returned canonical', async () => {
        for (const kind of [d.kind.toLowerCase(), d.kind.toUpperCase()]) {
          const name = fresh();
          const r = await s.api('POST', collection, withName(name, kind));
          expect(r.status, `POST kind=${kind}: ${describeResponse(r)}`).to.equal(200);
          created.push(name);
          expect(r.body.kind).to.equal(d.kind);
          const g = await get(name);
          expect(g.body.kind).to.equal(d.kind);
          const body = structuredClone(g.body);
          body.kind = kind;
          const p = await s.api('PUT', item(name), body);
          expect(p.status, `PUT kind=${kind}: ${describeResponse(p)}`).to.equal(200);
          expect(p.body.kind).to.equal(d.kind);
          // Delete now: kinds with a single-default rule allow only one such object at a time.
          const del = await s.api('DELETE', item(name));
          expect(del.status, describeResponse(del)).to.equal(204);
          created = created.filter((n) => n !== name);
        }
      });
    });
  }
});
