import { expect } from 'chai';
import { isObj as isJsonObject } from '../src/lib/is-obj.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildKindRegistry } from '../src/kinds/index.js';
import { corpusDir, skipWithoutCorpus } from './helpers/corpus.js';
import { readResources } from './helpers/manifests.js';
import { startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/server.js';

/**
 * The server against the corpus of real Perses resources (corpus/, see its SOURCES.md):
 * every valid native resource is accepted, the ones real Perses rejects are rejected with a
 * useful error, and the Grafana-migration outputs that use made-up plugins are rejected until
 * those plugins are declared through plugin.schemas_dir.
 */

/** Skipped (with a note at the end of the run) when the corpus is not available. */
const CORPUS = corpusDir('corpus') ?? '';
const KINDS = buildKindRegistry();
/** Where project-scoped resources with an empty or missing metadata.project go. */
const DEFAULT_PROJECT = 'corpus';

interface Entry {
  file: string;
  index: number;
  wrapper: string;
  kind: string;
  name: string;
  project?: string | null;
  issues?: string[] | null;
}

const INDEX = (CORPUS ? JSON.parse(readFileSync(join(CORPUS, 'INDEX.json'), 'utf8')) : { resources: [] }) as { resources: Entry[] };

/** Resources real Perses rejects (SOURCES.md "Notes for test authors"), with the field that is wrong. */
const EXPECTED_INVALID: Record<string, { why: string; path: string }> = {
  'perses/internal/api/validate/testdata/datasource_direct_2_invalid.json': {
    why: 'directUrl "www.datasource.com" is not a URL',
    path: 'spec.plugin.spec.directUrl',
  },
  'perses/internal/api/plugin/migrate/testdata/non-reg/cue-marshal/dashboards/simple-perses.json': {
    why: 'metadata.name is empty',
    path: 'metadata.name',
  },
  'poc-perses-dac/output.yaml': { why: 'metadata.name contains spaces', path: 'metadata.name' },
};

/** Grafana-migration outputs whose plugins are mocks of the upstream migration tests. */
const MIGRATION_MOCKS_DIR = 'perses/internal/api/plugin/migrate/testdata/dashboards/';
/** The made-up plugin kinds of those outputs, with the plugin type they stand for. */
const TEST_ONLY_PLUGINS: Record<string, string> = { FooChart: 'Panel', ExoticQuery: 'TimeSeriesQuery', SomeVariable: 'Variable' };

const isObj: (v: unknown) => v is Record<string, any> = isJsonObject;
const entriesOf = (v: unknown): [string, any][] => (isObj(v) ? Object.entries(v) : []);
const itemsOf = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** The resource an INDEX entry points at (a wrapped-map file is a YAML map name -> resource). */
function load(e: Entry): any {
  const docs = readResources(join(CORPUS, e.file));
  if (e.wrapper === 'wrapped-map') return docs.flatMap((d) => Object.values(d as object))[e.index];
  return docs[e.index];
}

function descriptor(kind: string) {
  const d = KINDS.byName(kind);
  if (!d) throw new Error(`kind ${kind} is not registered`);
  return d;
}

const projectOf = (e: Entry): string => (e.project ? e.project : DEFAULT_PROJECT);

/** Collection and object URLs of an entry (global kinds at /api/v1/<plural>, project kinds under their project). */
function urls(e: Entry): { collection: string; item: string } {
  const d = descriptor(e.kind);
  const collection = d.scope === 'project' ? `/api/v1/projects/${encodeURIComponent(projectOf(e))}/${d.plural}` : `/api/v1/${d.plural}`;
  return { collection, item: `${collection}/${encodeURIComponent(e.name)}` };
}

/** A project that cannot exist ("My project") cannot be in a URL; such bodies go to the cross-project route. */
const VALID_NAME = /^[a-zA-Z0-9_.-]{1,75}$/;
function createUrl(e: Entry): string {
  const d = descriptor(e.kind);
  return d.scope === 'project' && !VALID_NAME.test(projectOf(e)) ? `/api/v1/${d.plural}` : urls(e).collection;
}

/** (project, name, version) of every stored object of a kind, to show that nothing was stored. */
async function snapshot(srv: TestServer, kind: string): Promise<string[]> {
  const res = await srv.api('GET', `/api/v1/${descriptor(kind).plural}`);
  expect(res.status, show(res)).to.equal(200);
  return (res.body as any[]).map((o) => `${o.metadata.project ?? ''}/${o.metadata.name}@${o.metadata.version}`);
}

const title = (e: Entry) => `${e.file}#${e.index} ${e.kind} "${e.name}"`;

/** `a["0_1"].b` and `a.0_1.b` are the same path; compare paths in the dotted form. */
const norm = (path: string) => path.replace(/\["((?:[^"\\]|\\.)*)"\]/g, '.$1');
/** `path` is `prefix` or lies inside it. */
const within = (path: string, prefix: string) =>
  norm(path) === prefix || norm(path).startsWith(`${prefix}.`) || norm(path).startsWith(`${prefix}[`);

interface Detail {
  path: string;
  message: string;
}
const detailsOf = (res: ApiResponse): Detail[] => (Array.isArray(res.body?.details) ? res.body.details : []);
const show = (res: ApiResponse) => `${res.status} ${res.text.slice(0, 2000)}`;

/** A 400 whose details (or, failing that, message) name `path`. */
function expectRejectedNaming(res: ApiResponse, path: string): void {
  expect(res.status, show(res)).to.equal(400);
  expect(res.body?.message, show(res)).to.be.a('string').and.not.equal('');
  const paths = detailsOf(res).map((d) => norm(d.path));
  const named = paths.includes(norm(path)) || String(res.body.message).includes(path);
  expect(named, `expected the error to name ${path}: ${show(res)}`).to.equal(true);
}

/** The made-up plugins a migration output uses, and its mock BarChart specs (`{"nested":{"iwas":"stat"}}`). */
function migrationMocks(dash: any): { unknown: { path: string; kind: string }[]; barMocks: string[] } {
  const unknown: { path: string; kind: string }[] = [];
  const barMocks: string[] = [];
  const spec = dash?.spec;
  for (const [key, panel] of entriesOf(spec?.panels)) {
    const base = `spec.panels.${key}.spec`;
    const plugin = panel?.spec?.plugin;
    if (plugin?.kind in TEST_ONLY_PLUGINS) unknown.push({ path: `${base}.plugin.kind`, kind: plugin.kind });
    if (plugin?.kind === 'BarChart' && JSON.stringify(plugin.spec ?? {}).includes('"iwas"')) barMocks.push(`${base}.plugin.spec`);
    for (const [i, q] of itemsOf(panel?.spec?.queries).entries()) {
      const qk = q?.spec?.plugin?.kind;
      if (qk in TEST_ONLY_PLUGINS) unknown.push({ path: `${base}.queries[${i}].spec.plugin.kind`, kind: qk });
    }
  }
  for (const [i, v] of itemsOf(spec?.variables).entries()) {
    const vk = v?.spec?.plugin?.kind;
    if (vk in TEST_ONLY_PLUGINS) unknown.push({ path: `spec.variables[${i}].spec.plugin.kind`, kind: vk });
  }
  return { unknown, barMocks };
}

const all = INDEX.resources;
const native = all.filter((e) => e.wrapper === 'native');
const k8s = all.filter((e) => e.wrapper.startsWith('k8s-cr'));
const invalid = all.filter((e) => EXPECTED_INVALID[e.file] !== undefined);
const mocked = native
  .filter((e) => e.file.startsWith(MIGRATION_MOCKS_DIR) && !EXPECTED_INVALID[e.file])
  .map((e) => ({ e, obj: load(e) }))
  .map(({ e, obj }) => ({ e, obj, ...migrationMocks(obj) }))
  .filter((m) => m.unknown.length + m.barMocks.length > 0);
const mockedKeys = new Set(mocked.map((m) => `${m.e.file}#${m.e.index}`));
/** Project resources first (their projects already exist, so they exercise the PUT path), then INDEX order. */
const valid = native
  .filter((e) => !EXPECTED_INVALID[e.file] && !mockedKeys.has(`${e.file}#${e.index}`))
  .sort((a, b) => Number(descriptor(b.kind).isProjectScope ?? false) - Number(descriptor(a.kind).isProjectScope ?? false));

/**
 * The corpus merges repositories that were never meant to share one server: two of them each
 * declare a default Prometheus GlobalDatasource. The second is rightly refused (docs/api.md §8: at most
 * one default per plugin kind in a scope, 400 naming the first); the rest of it is then checked
 * with POST /api/validate/<plural>, without the default it claims (validate checks that rule too).
 */
function onlyDefaultCollision(res: ApiResponse): boolean {
  const details = detailsOf(res);
  return res.status === 400 && details.length > 0 && details.every((d) => d.path === 'spec.default');
}

/** POST, and on 409 (a name shared by several corpus files) PUT to the object: either must answer 200. */
async function createOrUpdate(srv: TestServer, e: Entry, obj: unknown): Promise<ApiResponse> {
  const { collection, item } = urls(e);
  const created = await srv.api('POST', collection, obj);
  if (onlyDefaultCollision(created)) {
    const plural = descriptor(e.kind).plural;
    const o = obj as { spec: Record<string, unknown> };
    const validated = await srv.api('POST', `/api/validate/${plural}`, { ...o, spec: { ...o.spec, default: false } });
    expect(
      validated.status,
      `POST ${collection} answered ${show(created)}; then POST /api/validate/${plural}: ${show(validated)}`,
    ).to.equal(200);
    return created;
  }
  if (created.status !== 409) {
    expect(created.status, `POST ${collection}: ${show(created)}`).to.equal(200);
    return created;
  }
  const updated = await srv.api('PUT', item, obj);
  expect(updated.status, `POST ${collection} answered 409, then PUT ${item}: ${show(updated)}`).to.equal(200);
  return updated;
}

/**
 * Creates every project the entries live in: from the corpus's own Project resource of that name
 * when there is one, else a bare project. (Created up front, so `--grep` on one resource works.)
 */
async function createProjects(srv: TestServer, entries: Entry[]): Promise<void> {
  const pk = KINDS.projectKind;
  const fromCorpus = new Map<string, Entry>();
  for (const e of entries) if (descriptor(e.kind).isProjectScope && !fromCorpus.has(e.name)) fromCorpus.set(e.name, e);
  const needed = new Set(entries.filter((e) => descriptor(e.kind).scope === 'project').map(projectOf));
  for (const name of [...needed].sort()) {
    const e = fromCorpus.get(name);
    const body = e ? load(e) : { kind: pk.kind, metadata: { name }, spec: {} };
    const res = await srv.api('POST', `/api/v1/${pk.plural}`, body);
    expect(res.status, `creating project ${name}${e ? ` from ${title(e)}` : ''}: ${show(res)}`).to.equal(200);
  }
}

/**
 * Creates the users that the corpus's bindings and groups name and that the corpus does not hold
 * (its docs' examples bind `jane`): a grant names someone who exists (docs/auth.md, GRANT-01), so,
 * as when onboarding, the user comes first.
 */
async function createNamedUsers(srv: TestServer, entries: Entry[]): Promise<void> {
  const userKind = KINDS.all().find((d) => d.isPrincipal && d.scope === 'global')!;
  const held = new Set(entries.filter((e) => e.kind === userKind.kind).map((e) => e.name));
  const named = new Set<string>();
  for (const e of entries) {
    const spec = (load(e) as { spec?: { subjects?: unknown; members?: unknown } }).spec;
    for (const s of [spec?.subjects, spec?.members].flatMap((l) => (Array.isArray(l) ? l : []))) {
      if (isObj(s) && s.kind === userKind.kind && typeof s.name === 'string' && !held.has(s.name)) named.add(s.name);
    }
  }
  for (const name of [...named].sort()) {
    const res = await srv.api('POST', `/api/v1/${userKind.plural}`, {
      kind: userKind.kind,
      metadata: { name },
      spec: { nativeProvider: { password: `${name}-corpus-password` } },
    });
    expect(res.status, `creating user ${name}, named by a grant of the corpus: ${show(res)}`).to.equal(200);
  }
}

/** The parts of a dashboard spec that must survive a round trip (variables: a single object counts as one). */
function dashboardShape(spec: any) {
  const variables = spec?.variables;
  return {
    panels: Object.keys(spec?.panels ?? {}).sort(),
    layouts: itemsOf(spec?.layouts).map((l) => itemsOf(l?.spec?.items).length),
    variables: Array.isArray(variables) ? variables.length : isObj(variables) ? 1 : 0,
    datasources: Object.keys(spec?.datasources ?? {}).sort(),
  };
}

describe('corpus of real Perses resources (corpus/)', function () {
  this.timeout(60_000);
  let srv: TestServer;

  before(async function () {
    skipWithoutCorpus(this, 'corpus');
    srv = await startTestServer();
    await createProjects(srv, valid);
    await createNamedUsers(srv, valid);
  });
  after(async () => {
    await srv?.stop();
  });

  it('the INDEX points at the resources it describes', () => {
    for (const e of [...native, ...invalid]) {
      const obj = load(e);
      expect(obj?.kind, title(e)).to.equal(e.kind);
      expect(obj?.metadata?.name ?? '', title(e)).to.equal(e.name);
    }
    expect(valid.length, 'valid native resources').to.be.greaterThan(100);
    expect(mocked.map((m) => m.e.file.slice(MIGRATION_MOCKS_DIR.length)).sort()).to.deep.equal([
      'basic_perses_dashboard.json',
      'panel_repeat_only_perses_dashboard.json',
      'panel_repeat_perses_dashboard.json',
      'panel_with_links_perses_dashboard.json',
      'row_repeat_perses_dashboard.json',
    ]);
  });

  describe('the server accepts every valid real Perses resource', () => {
    for (const e of valid) {
      it(title(e), async () => {
        const obj = load(e);
        const d = descriptor(e.kind);
        const res = await createOrUpdate(srv, e, obj);
        if (onlyDefaultCollision(res)) {
          // Valid on its own (checked in createOrUpdate); the default it claims is taken by another
          // corpus resource, which the error must name (docs/api.md §8).
          const pluginKind = obj.spec?.plugin?.kind;
          const rivals = valid
            .filter((x) => x.kind === e.kind && x.name !== e.name && (x.project ?? '') === (e.project ?? ''))
            .filter((x) => load(x).spec?.default === true && load(x).spec?.plugin?.kind === pluginKind)
            .map((x) => x.name);
          expect(rivals, `another default ${pluginKind} in the corpus: ${show(res)}`).to.not.be.empty;
          expect(
            rivals.some((n) => String(res.body.message).includes(`"${n}"`)),
            `the error names the first default: ${show(res)}`,
          ).to.equal(true);
          return;
        }
        expect(res.body?.kind).to.equal(d.kind);
        expect(res.body?.metadata?.name).to.equal(e.name);
        if (d.scope === 'project') expect(res.body?.metadata?.project).to.equal(projectOf(e));
        else expect(res.body?.metadata).not.to.have.property('project');
        const { item } = urls(e);
        const got = await srv.api('GET', item);
        expect(got.status, `GET ${item}: ${show(got)}`).to.equal(200);
        expect(got.body.metadata.version).to.equal(res.body.metadata.version);
        if (isObj(obj.spec) && 'panels' in obj.spec)
          expect(dashboardShape(got.body.spec), 'dashboard content kept').to.deep.equal(dashboardShape(obj.spec));
      });
    }
  });

  describe('the server rejects what real Perses rejects (400 naming the field, nothing stored)', () => {
    for (const e of invalid) {
      const { why, path } = EXPECTED_INVALID[e.file];
      it(`${title(e)}: ${why}`, async () => {
        const obj = load(e);
        const { item } = urls(e);
        const before = await srv.api('GET', item);
        const stored = await snapshot(srv, e.kind);
        const res = await srv.api('POST', createUrl(e), obj);
        expectRejectedNaming(res, path);
        expect(await snapshot(srv, e.kind), 'nothing stored').to.deep.equal(stored);
        const after = await srv.api('GET', item);
        expect(after.status, 'nothing stored').to.equal(before.status);
        if (after.status === 200) expect(after.body, 'nothing changed').to.deep.equal(before.body);
      });
    }

    const gameFile = 'perses/internal/cli/test/sample_resources/unknown_resource.json';
    it(`${gameFile}#0: kind "game" is not a dashplane kind`, async () => {
      const [game] = readResources(join(CORPUS, gameFile));
      expect(game.kind).to.equal('game');
      expect(KINDS.byName(game.kind), 'game is not a registered kind').to.equal(undefined);
      // There is no endpoint for it...
      const noRoute = await srv.api('POST', '/api/v1/games', game);
      expect(noRoute.status, show(noRoute)).to.equal(404);
      // ...and an endpoint of another kind refuses it, naming `kind`.
      const folders = `/api/v1/projects/${DEFAULT_PROJECT}/folders`;
      const res = await srv.api('POST', folders, game);
      expectRejectedNaming(res, 'kind');
      const after = await srv.api('GET', `${folders}/${game.metadata.name}`);
      expect(after.status, 'nothing stored').to.equal(404);
    });
  });

  describe(`Grafana-migration outputs with test-only plugins (${Object.keys(TEST_ONLY_PLUGINS).join(', ')}, mock BarChart specs)`, () => {
    describe('default server: 400 naming each unknown plugin kind and its JSON path', () => {
      for (const m of mocked) {
        const kinds = [...new Set(m.unknown.map((u) => u.kind))];
        const what = [
          ...(kinds.length ? [`unknown ${kinds.join(', ')}`] : []),
          ...(m.barMocks.length ? [`${m.barMocks.length} mock BarChart spec(s)`] : []),
        ];
        it(`${title(m.e)}: ${what.join('; ')}`, async () => {
          const e = { ...m.e, project: DEFAULT_PROJECT };
          const { collection, item } = urls(e);
          const res = await srv.api('POST', collection, m.obj);
          expect(res.status, show(res)).to.equal(400);
          const details = detailsOf(res);
          for (const u of m.unknown) {
            const hit = details.find((d) => norm(d.path) === norm(u.path));
            expect(hit, `no detail at ${u.path}: ${show(res)}`).to.not.equal(undefined);
            expect(hit!.message).to.include(`"${u.kind}"`);
          }
          for (const p of m.barMocks) {
            expect(
              details.some((d) => within(d.path, p)),
              `no detail under ${p}: ${show(res)}`,
            ).to.equal(true);
          }
          const validated = await srv.api('POST', `/api/validate/${descriptor(e.kind).plural}`, m.obj);
          expect(validated.status, `POST /api/validate: ${show(validated)}`).to.equal(400);
          const after = await srv.api('GET', item);
          expect(after.status, 'nothing stored').to.equal(404);
        });
      }
    });

    describe('server with plugin.schemas_dir declaring them (open schemas): accepted, except the mock BarChart specs', () => {
      let srv2: TestServer;
      let dir: ReturnType<typeof tempDir>;

      before(async () => {
        dir = tempDir('dashplane-plugins-');
        const open = { type: 'object', additionalProperties: true };
        const entries = Object.entries(TEST_ONLY_PLUGINS).map(([kind, type]) => ({ kind, type, module: 'migration-test', schema: open }));
        writeFileSync(join(dir.path, 'test-only-plugins.json'), JSON.stringify(entries, null, 2));
        srv2 = await startTestServer({ env: { DASHPLANE_PLUGIN_SCHEMAS_DIR: dir.path } });
        await createProjects(
          srv2,
          mocked.map((m) => ({ ...m.e, project: DEFAULT_PROJECT })),
        );
      });
      after(async () => {
        await srv2?.stop();
        dir?.remove();
      });

      it('GET /api/v1/plugins lists the declared plugins with their types', async () => {
        const res = await srv2.api('GET', '/api/v1/plugins');
        expect(res.status, show(res)).to.equal(200);
        const listed = new Map<string, string>();
        for (const mod of res.body) for (const p of mod.spec.plugins) listed.set(p.spec.name, p.kind);
        for (const [kind, type] of Object.entries(TEST_ONLY_PLUGINS)) expect(listed.get(kind), kind).to.equal(type);
      });

      for (const m of mocked) {
        if (m.barMocks.length === 0) {
          it(`${title(m.e)}: accepted`, async () => {
            const e = { ...m.e, project: DEFAULT_PROJECT };
            const res = await createOrUpdate(srv2, e, m.obj);
            expect(res.body.metadata.name).to.equal(e.name);
            const got = await srv2.api('GET', urls(e).item);
            expect(got.status, show(got)).to.equal(200);
          });
        } else {
          it(`${title(m.e)}: still 400, only for the mock BarChart spec(s) ${m.barMocks.join(', ')}`, async () => {
            const e = { ...m.e, project: DEFAULT_PROJECT };
            const res = await srv2.api('POST', urls(e).collection, m.obj);
            expect(res.status, show(res)).to.equal(400);
            const details = detailsOf(res);
            expect(details, show(res)).to.not.be.empty;
            for (const d of details) {
              expect(
                m.barMocks.some((p) => within(d.path, p)),
                `detail outside the BarChart specs: ${JSON.stringify(d)}`,
              ).to.equal(true);
            }
            for (const p of m.barMocks)
              expect(
                details.some((d) => within(d.path, p)),
                `no detail under ${p}`,
              ).to.equal(true);
            const got = await srv2.api('GET', urls(e).item);
            expect(got.status, 'nothing stored').to.equal(404);
          });
        }
      }
    });
  });

  describe('Kubernetes-wrapped Perses* custom resources (PersesDashboard, PersesDatasource, PersesGlobalDatasource) are skipped in this issue', () => {
    const files = new Set(k8s.map((e) => e.file));
    it(
      `${k8s.length} custom resources in ${files.size} files, incl. the NonExistentPlugin dashboard of perses-operator/test/e2e/validation/02-install.yaml`,
    );
  });
});
