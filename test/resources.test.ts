import { expect } from 'chai';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const prom = (extra: Record<string, unknown> = {}) => ({
  kind: 'PrometheusDatasource',
  spec: { directUrl: 'http://localhost:9090', ...extra },
});
const ds = (name: string, isDefault: boolean, plugin: unknown = prom()) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: isDefault, plugin },
});
const panel = (plugin = 'Markdown', spec: unknown = { text: 'hi' }) => ({
  kind: 'Panel',
  spec: { display: { name: 'p' }, plugin: { kind: plugin, spec } },
});
const grid = (...refs: string[]) => [
  { kind: 'Grid', spec: { items: refs.map((r, i) => ({ x: 0, y: i, width: 12, height: 4, content: { $ref: r } })) } },
];
function dash(name: string, spec: Record<string, unknown> = {}) {
  return {
    kind: 'Dashboard',
    metadata: { name },
    spec: { duration: '1h', panels: { a: panel() }, layouts: grid('#/spec/panels/a'), ...spec },
  };
}

describe('resources: semantics of docs/api.md §3-§5, §8-§12', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    for (const p of ['demo', 'other'])
      expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} })).status).to.equal(200);
  });
  after(() => s.stop());

  describe('projects', () => {
    it('deleting a project deletes every object of every project-scoped kind in it, and nothing in project "ab"', async () => {
      for (const p of ['a', 'ab']) {
        await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} });
        expect((await s.api('POST', `/api/v1/projects/${p}/dashboards`, dash('d'))).status).to.equal(200);
        expect(
          (
            await s.api('POST', `/api/v1/projects/${p}/ephemeraldashboards`, {
              ...dash('e'),
              kind: 'EphemeralDashboard',
              spec: { ...dash('e').spec, ttl: '1h' },
            })
          ).status,
        ).to.equal(200);
        expect(
          (
            await s.api('POST', `/api/v1/projects/${p}/secrets`, {
              kind: 'Secret',
              metadata: { name: 's' },
              spec: { basicAuth: { username: 'u', password: 'p' } },
            })
          ).status,
        ).to.equal(200);
        expect(
          (await s.api('POST', `/api/v1/projects/${p}/folders`, { kind: 'Folder', metadata: { name: 'f' }, spec: { items: [] } })).status,
        ).to.equal(200);
      }
      expect((await s.api('DELETE', '/api/v1/projects/a')).status).to.equal(204);
      for (const plural of ['dashboards', 'ephemeraldashboards', 'secrets', 'folders']) {
        // the project is gone: its lists are a 400 (Perses' answer), and nothing of it is left across projects
        expect((await s.api('GET', `/api/v1/projects/a/${plural}`)).status).to.equal(400);
        expect((await s.api('GET', `/api/v1/${plural}?project=a`)).body).to.deep.equal([]);
        expect((await s.api('GET', `/api/v1/projects/ab/${plural}`)).body).to.have.length(1);
      }
      expect((await s.api('GET', '/api/v1/projects/a/dashboards/d')).status).to.equal(404);
      // a new project with the same name starts empty
      await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'a' }, spec: {} });
      expect((await s.api('GET', '/api/v1/projects/a/dashboards')).body).to.deep.equal([]);
    });

    it('creating into a missing project is a 400 ending in the text percli matches', async () => {
      const r = await s.api('POST', '/api/v1/projects/missing/dashboards', dash('x'));
      expect(r.status).to.equal(400);
      expect(r.body.message).to.match(/metadata\.project "missing" doesn't exist$/);
      const r2 = await s.api('POST', '/api/v1/dashboards', { ...dash('x'), metadata: { name: 'x', project: 'missing' } });
      expect(r2.status).to.equal(400);
      expect(r2.body.message).to.match(/metadata\.project "missing" doesn't exist$/);
    });

    it('the cross-project collection creates from metadata.project and requires it', async () => {
      const r = await s.api('POST', '/api/v1/dashboards', { ...dash('cross'), metadata: { name: 'cross', project: 'other' } });
      expect(r.status).to.equal(200);
      expect(r.body.metadata.project).to.equal('other');
      expect((await s.api('POST', '/api/v1/dashboards', dash('noproject'))).status).to.equal(400);
    });
  });

  describe('what the Perses UI sends', () => {
    it('a DELETE with Content-Type: application/json and no body (every delete of the Perses UI) is a 204; so is YAML', async () => {
      for (const [name, type] of [
        ['ui-json', 'application/json'],
        ['ui-yaml', 'application/yaml'],
      ]) {
        expect((await s.api('POST', '/api/v1/projects/demo/dashboards', dash(name))).status).to.equal(200);
        const r = await s.api('DELETE', `/api/v1/projects/demo/dashboards/${name}`, undefined, { 'content-type': type });
        expect(r.status, r.text).to.equal(204);
        expect((await s.api('GET', `/api/v1/projects/demo/dashboards/${name}`)).status).to.equal(404);
      }
    });

    it('a POST with Content-Type: application/json and no body is a 400 naming what the body must be', async () => {
      const r = await s.api('POST', '/api/v1/projects/demo/dashboards', undefined, { 'content-type': 'application/json' });
      expect(r.status).to.equal(400);
      expect(r.body.message).to.equal('the request body must be a Dashboard object with "kind", "metadata" and "spec"');
    });
  });

  describe('identity and every problem at once, as Perses checks them', () => {
    it('a body without kind is a 400 naming the field and the kind to add', async () => {
      for (const [path, body] of [
        ['/api/v1/projects/demo/folders', { metadata: { name: 'nokind' }, spec: {} }],
        ['/api/v1/projects', { metadata: { name: 'nokind' }, spec: {} }],
        ['/api/v1/projects/demo/dashboards', { ...dash('nokind'), kind: null }],
      ] as const) {
        const r = await s.api('POST', path, body);
        expect(r.status, path).to.equal(400);
        expect(r.body.details, path).to.deep.include({ path: 'kind', message: r.body.details[0].message });
        expect(r.body.message, path).to.match(/^kind is missing: add "kind": "(Folder|Project|Dashboard)" to the body$/);
      }
      expect((await s.api('GET', '/api/v1/projects/nokind')).status, 'nothing stored').to.equal(404);
    });

    it('a name or project with ".." anywhere is a 400, as in Perses (its list_test: per..ses, perses.., ..perses, ...)', async () => {
      for (const bad of ['per..ses', 'perses..', '..perses', '...']) {
        const list = await s.api('GET', `/api/v1/variables?project=${encodeURIComponent(bad)}`);
        expect(list.status, `?project=${bad}`).to.equal(400);
        const created = await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: bad }, spec: {} });
        expect(created.status, `Project ${bad}`).to.equal(400);
        expect(created.body.details[0].path).to.equal('metadata.name');
      }
      expect((await s.api('GET', '/api/v1/variables?project=demo')).status).to.equal(200);
    });

    it('a Project posted without spec is stored and answered with "spec": {}, as Perses writes it', async () => {
      const r = await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'nospec' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.spec).to.deep.equal({});
      expect((await s.api('GET', '/api/v1/projects/nospec')).body.spec).to.deep.equal({});
    });

    it('a folder may reference a dashboard once in its whole tree; a second reference is a 400 at its path naming the first', async () => {
      const body = {
        kind: 'Folder',
        metadata: { name: 'twice' },
        spec: {
          items: [
            { kind: 'Dashboard', name: 'a' },
            {
              kind: 'Folder',
              name: 'sub',
              items: [
                { kind: 'Dashboard', name: 'b' },
                { kind: 'Dashboard', name: 'a' },
              ],
            },
          ],
        },
      };
      const r = await s.api('POST', '/api/v1/projects/demo/folders', body);
      expect(r.status).to.equal(400);
      expect(r.body.details).to.deep.equal([
        {
          path: 'spec.items[1].items[1].name',
          message: 'dashboard "a" is referenced multiple times in the folder (first at spec.items[0]); keep one',
        },
      ]);
      const once = {
        ...body,
        spec: {
          items: [
            { kind: 'Dashboard', name: 'a' },
            { kind: 'Folder', name: 'sub', items: [{ kind: 'Dashboard', name: 'b' }] },
          ],
        },
      };
      expect((await s.api('POST', '/api/v1/projects/demo/folders', once)).status).to.equal(200);
      expect((await s.api('DELETE', '/api/v1/projects/demo/folders/twice')).status).to.equal(204);
    });

    it('a bad name comes back with every other problem of the body (reason Invalid), not alone', async () => {
      const r = await s.api('POST', '/api/v1/projects/demo/dashboards', {
        kind: 'Dashboard',
        metadata: { name: 'bad name', tags: [''] },
        spec: { duration: 'x', panels: {}, layouts: [] },
      });
      expect(r.status).to.equal(400);
      expect(r.body.reason).to.equal('Invalid');
      const paths = (r.body.details as { path: string }[]).map((x) => x.path);
      expect(paths[0]).to.equal('metadata.name');
      expect(paths).to.include.members(['metadata.tags[0]', 'spec.duration']);
      // a name that is not a string says so (a YAML name: 0123 is a number)
      const numeric = await s.api('POST', '/api/v1/projects/demo/dashboards', { ...dash('x'), metadata: { name: 5 } });
      expect(numeric.status).to.equal(400);
      expect(numeric.body.details[0]).to.deep.equal({
        path: 'metadata.name',
        message: 'the name is invalid: it must be a string, not a number (in YAML, quote a name such as "0123")',
      });
    });

    it('patterns are explained in words: a builtin variable prefix, a duration, a bad panel key named by its path', async () => {
      const text = (name: string) => ({ kind: 'TextVariable', spec: { name, value: '' } });
      const r = await s.api('POST', '/api/validate/dashboards', {
        ...dash('words', {
          duration: '1hour',
          variables: [text('__forbidden'), text('123')],
          panels: { a: panel(), 'a b': panel() },
          layouts: grid('#/spec/panels/a'),
        }),
        metadata: { name: 'words', project: 'demo' },
      });
      expect(r.status).to.equal(400);
      expect(r.body.details).to.deep.include.members([
        {
          path: 'spec.duration',
          message: 'must be a duration such as "30s", "5m", "1h30m" or "7d" (units y, w, d, h, m, s, ms, in that order)',
        },
        { path: 'spec.variables[0].spec.name', message: 'must not start with "__": that is the builtin variable prefix' },
        { path: 'spec.variables[1].spec.name', message: 'must be letters, digits and "_", not only digits (e.g. "instance", "job_2")' },
        {
          path: 'spec.panels["a b"]',
          message: 'is not a valid key here: it may only contain a-z, A-Z, 0-9, "_", "-" and "." (no spaces or other characters)',
        },
      ]);
      expect(
        r.body.details.filter((x: { path: string }) => x.path === 'spec.panels'),
        'no second, vaguer detail for the same key',
      ).to.deep.equal([]);
      // keys Perses clients refuse when they read the dashboard back (percli could not list the project)
      for (const key of ['.a', 'a.', 'a..b']) {
        const dotted = await s.api('POST', '/api/validate/dashboards', {
          ...dash('dots', { panels: { [key]: panel() }, layouts: [] }),
          metadata: { name: 'dots', project: 'demo' },
        });
        expect(dotted.status, key).to.equal(400);
        expect(
          dotted.body.details.map((x: { path: string }) => x.path),
          key,
        ).to.deep.equal([`spec.panels[${JSON.stringify(key)}]`]);
      }
    });

    it('POST /api/validate/datasources checks the one-default rule in the named project, as a create would', async () => {
      expect((await s.api('POST', '/api/v1/projects/demo/datasources', ds('v-first', true, prom()))).status).to.equal(200);
      const second = { ...ds('v-second', true, prom()), metadata: { name: 'v-second', project: 'demo' } };
      const r = await s.api('POST', '/api/validate/datasources', second);
      expect(r.status, r.text).to.equal(400);
      expect(r.body.details[0].path).to.equal('spec.default');
      expect(r.body.details[0].message).to.include('"v-first"');
      const elsewhere = { ...second, metadata: { name: 'v-second', project: 'other' } };
      expect((await s.api('POST', '/api/validate/datasources', elsewhere)).status, 'another project has its own default').to.equal(200);
      expect((await s.api('DELETE', '/api/v1/projects/demo/datasources/v-first')).status).to.equal(204);
    });
  });

  describe('datasources', () => {
    before(async () => {
      expect((await s.api('POST', '/api/v1/projects/demo/datasources', ds('prom', true))).status).to.equal(200);
      expect((await s.api('POST', '/api/v1/projects/demo/datasources', ds('prom2', false))).status).to.equal(200);
      expect(
        (
          await s.api(
            'POST',
            '/api/v1/projects/demo/datasources',
            ds('tempo', true, { kind: 'TempoDatasource', spec: { directUrl: 'http://t' } }),
          )
        ).status,
      ).to.equal(200);
    });

    it('filters by plugin kind and default', async () => {
      const names = async (q: string) =>
        ((await s.api('GET', `/api/v1/projects/demo/datasources?${q}`)).body as { metadata: { name: string } }[]).map(
          (d) => d.metadata.name,
        );
      expect(await names('kind=PrometheusDatasource')).to.deep.equal(['prom', 'prom2']);
      expect(await names('default=true')).to.deep.equal(['prom', 'tempo']);
      expect(await names('default=false')).to.deep.equal(['prom2']);
      expect(await names('kind=PrometheusDatasource&default=true')).to.deep.equal(['prom']);
      expect(await names('kind=Nothing')).to.deep.equal([]);
      expect((await s.api('GET', '/api/v1/projects/demo/datasources?default=maybe')).status).to.equal(400);
    });

    it('a second default of a plugin kind in a scope is a 400 naming the first; other scopes are separate', async () => {
      const r = await s.api('POST', '/api/v1/projects/demo/datasources', ds('prom3', true));
      expect(r.status).to.equal(400);
      expect(r.body.message).to.include('"prom"');
      expect(r.body.details[0].path).to.equal('spec.default');
      const flip = await s.api('PUT', '/api/v1/projects/demo/datasources/prom2', ds('prom2', true));
      expect(flip.status).to.equal(400);
      expect(
        (await s.api('PUT', '/api/v1/projects/demo/datasources/prom', ds('prom', true))).status,
        'updating the default itself',
      ).to.equal(200);
      expect((await s.api('POST', '/api/v1/projects/other/datasources', ds('prom', true))).status).to.equal(200);
      expect((await s.api('POST', '/api/v1/globaldatasources', { ...ds('gprom', true), kind: 'GlobalDatasource' })).status).to.equal(200);
      const g2 = await s.api('POST', '/api/v1/globaldatasources', { ...ds('gprom2', true), kind: 'GlobalDatasource' });
      expect(g2.status).to.equal(400);
      expect(g2.body.message).to.include('"gprom"');
    });

    it('concurrent creates of defaults of one plugin kind: exactly one wins, through either collection route', async () => {
      await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'race' }, spec: {} });
      const results = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) =>
          n % 2
            ? s.api('POST', '/api/v1/projects/race/datasources', ds(`d${n}`, true))
            : s.api('POST', '/api/v1/datasources', { ...ds(`d${n}`, true), metadata: { name: `d${n}`, project: 'race' } }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      expect((await s.api('GET', '/api/v1/projects/race/datasources?default=true')).body).to.have.length(1);
    });

    it('an unknown datasource plugin, or a plugin of another type, is a 400 with its path', async () => {
      const r = await s.api('POST', '/api/v1/projects/demo/datasources', ds('bad', false, { kind: 'NopeDatasource', spec: {} }));
      expect(r.status).to.equal(400);
      expect(r.body.details[0]).to.deep.include({ path: 'spec.plugin.kind' });
      expect(r.body.message).to.include('NopeDatasource');
      const r2 = await s.api('POST', '/api/v1/projects/demo/datasources', ds('bad', false, { kind: 'TimeSeriesChart', spec: {} }));
      expect(r2.status).to.equal(400);
      expect(r2.body.details[0].message).to.match(/Panel plugin/);
    });

    it('a Prometheus datasource with both directUrl and proxy is rejected at spec.plugin.spec', async () => {
      const r = await s.api(
        'POST',
        '/api/v1/projects/demo/datasources',
        ds('both', false, prom({ proxy: { kind: 'HTTPProxy', spec: { url: 'http://x' } } })),
      );
      expect(r.status).to.equal(400);
      expect(r.body.details.some((d: { path: string }) => d.path.startsWith('spec.plugin.spec'))).to.equal(true);
    });
  });

  describe('dashboards', () => {
    it('accepts a variable whose defaultValue is null (what the Perses UI saves for a variable without a value)', async () => {
      const variable = {
        kind: 'ListVariable',
        spec: {
          name: 'ds',
          defaultValue: null,
          plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'PrometheusDatasource' } },
        },
      };
      const r = await s.api('POST', '/api/v1/projects/demo/dashboards', dash('null-default', { variables: [variable] }));
      expect(r.status, r.text).to.equal(200);
      const bad = await s.api(
        'POST',
        '/api/v1/projects/demo/dashboards',
        dash('number-default', { variables: [{ ...variable, spec: { ...variable.spec, defaultValue: 3 } }] }),
      );
      expect(bad.status).to.equal(400);
      expect(bad.body.details.map((d: { path: string }) => d.path)).to.include('spec.variables[0].spec.defaultValue');
    });

    it('a name with a space is a 400; the display name may hold any title', async () => {
      expect((await s.api('POST', '/api/v1/projects/demo/dashboards', dash('my dashboard'))).status).to.equal(400);
      const ok = await s.api(
        'POST',
        '/api/v1/projects/demo/dashboards',
        dash('my-dashboard', { display: { name: 'My dashboard <b>&</b> ✓' } }),
      );
      expect(ok.status).to.equal(200);
    });

    it('every problem comes back at once with its JSON path', async () => {
      const r = await s.api(
        'POST',
        '/api/v1/projects/demo/dashboards',
        dash('bad', {
          panels: {
            a: panel('NoSuchChart'),
            b: {
              kind: 'Panel',
              spec: {
                plugin: { kind: 'Markdown', spec: { text: 'x' } },
                queries: [
                  { kind: 'NoQuery', spec: { plugin: { kind: 'X', spec: {} } } },
                  { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'TempoTraceQuery', spec: {} } } },
                ],
              },
            },
          },
          layouts: grid('#/spec/panels/a', '#/spec/panels/missing', 'panels/b'),
        }),
      );
      expect(r.status).to.equal(400);
      expect(r.body.reason).to.equal('Invalid');
      const paths = (r.body.details as { path: string }[]).map((d) => d.path);
      expect(paths).to.include.members([
        'spec.panels.a.spec.plugin.kind',
        'spec.panels.b.spec.queries[0].kind',
        'spec.panels.b.spec.queries[1].spec.plugin.kind',
        'spec.layouts[0].spec.items[1].content.$ref',
        'spec.layouts[0].spec.items[2].content.$ref',
      ]);
      expect(JSON.stringify(r.body)).to.include('NoSuchChart');
    });

    it('schema problems name the field: unknown field, wrong type, bad duration', async () => {
      const r = await s.api(
        'POST',
        '/api/v1/projects/demo/dashboards',
        dash('bad2', { duration: '1 hour', refreshInterval: 5, layout: [] }),
      );
      expect(r.status).to.equal(400);
      const paths = (r.body.details as { path: string }[]).map((d) => d.path);
      expect(paths).to.include.members(['spec.duration', 'spec.refreshInterval', 'spec.layout']);
    });

    it('variables: the older single-object form becomes a list; names are checked and unique', async () => {
      const text = { kind: 'TextVariable', spec: { name: 'env', value: 'prod' } };
      const r = await s.api('POST', '/api/v1/projects/demo/dashboards', dash('oldvars', { variables: text }));
      expect(r.status).to.equal(200);
      expect(r.body.spec.variables).to.deep.equal([text]);
      expect((await s.api('GET', '/api/v1/projects/demo/dashboards/oldvars')).body.spec.variables).to.deep.equal([text]);
      for (const bad of [
        [text, text],
        [{ ...text, spec: { name: '__x', value: '' } }],
        [{ ...text, spec: { name: '9', value: '' } }],
        [{ ...text, spec: { name: 'a-b', value: '' } }],
      ]) {
        const res = await s.api('POST', '/api/v1/projects/demo/dashboards', dash('badvars', { variables: bad }));
        expect(res.status, JSON.stringify(bad)).to.equal(400);
        expect(res.body.details[0].path).to.match(/^spec\.variables\[\d\]\.spec\.name$/);
      }
      const list = { kind: 'ListVariable', spec: { name: 'job', plugin: { kind: 'NoVariablePlugin', spec: {} } } };
      const res = await s.api('POST', '/api/v1/projects/demo/dashboards', dash('badvars', { variables: [list] }));
      expect(res.status).to.equal(400);
      expect(res.body.details[0].path).to.equal('spec.variables[0].spec.plugin.kind');
    });

    it('two default local datasources of one plugin kind are a 400', async () => {
      const local = { default: true, plugin: prom() };
      const r = await s.api('POST', '/api/v1/projects/demo/dashboards', dash('locals', { datasources: { one: local, two: local } }));
      expect(r.status).to.equal(400);
      expect(r.body.details[0].path).to.equal('spec.datasources.two.default');
    });

    it('a missing duration is filled with 1h as Perses does', async () => {
      const d = dash('noduration');
      delete (d.spec as Record<string, unknown>).duration;
      expect((await s.api('POST', '/api/v1/projects/demo/dashboards', d)).body.spec.duration).to.equal('1h');
    });
  });

  describe('ephemeral dashboards', () => {
    const eph = (name: string, ttl?: unknown) => ({
      ...dash(name),
      kind: 'EphemeralDashboard',
      spec: { ...dash(name).spec, ...(ttl !== undefined ? { ttl } : {}) },
    });
    it('ttl is required and must be a positive duration', async () => {
      expect((await s.api('POST', '/api/v1/projects/demo/ephemeraldashboards', eph('e1', '2h'))).status).to.equal(200);
      for (const ttl of [undefined, '', '0s', '-1h', '1 hour', 5, '999999999999999h']) {
        const r = await s.api('POST', '/api/v1/projects/demo/ephemeraldashboards', eph('e2', ttl));
        expect(r.status, `ttl ${JSON.stringify(ttl)}`).to.equal(400);
        expect(JSON.stringify(r.body.details)).to.include('spec.ttl');
      }
      const zero = await s.api('POST', '/api/v1/projects/demo/ephemeraldashboards', eph('e3', '0h0m'));
      expect(zero.body.details, 'a zero ttl is explained in words, not as a regular expression').to.deep.equal([
        { path: 'spec.ttl', message: 'must be a duration greater than zero, such as "30m", "24h" or "7d"' },
      ]);
    });
  });

  describe('ephemeral dashboard expiry', () => {
    it('is served until updatedAt + ttl, then 404 and absent from lists, even before anything deletes it', async () => {
      const e = { ...dash('short'), kind: 'EphemeralDashboard', spec: { ...dash('short').spec, ttl: '1s' } };
      const created = await s.api('POST', '/api/v1/projects/demo/ephemeraldashboards', e);
      expect(created.status).to.equal(200);
      const expiresAt = Date.parse(created.body.metadata.updatedAt) + 1000;
      const names = async () =>
        ((await s.api('GET', '/api/v1/projects/demo/ephemeraldashboards')).body as { metadata: { name: string } }[]).map(
          (o) => o.metadata.name,
        );
      if (Date.now() < expiresAt - 200) {
        expect((await s.api('GET', '/api/v1/projects/demo/ephemeraldashboards/short')).status).to.equal(200);
        expect(await names()).to.include('short');
      }
      await waitFor(
        'the ephemeral dashboard to expire',
        async () => (await s.api('GET', '/api/v1/projects/demo/ephemeraldashboards/short')).status === 404,
        5000,
      );
      expect(Date.now()).to.be.at.least(expiresAt);
      expect(await names()).to.not.include('short');
      expect((await s.api('PUT', '/api/v1/projects/demo/ephemeraldashboards/short', e)).status).to.equal(404);
    });
  });

  describe('users, roles and bindings', () => {
    it('the older User spec.password becomes spec.nativeProvider.password and is never returned', async () => {
      const r = await s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'alice' }, spec: { password: 'CANARY-pw-1' } });
      expect(r.status).to.equal(200);
      expect(r.body.spec).to.deep.equal({ nativeProvider: { password: '<secret>' } });
      expect(r.text).to.not.include('CANARY');
      const stored = await s.server.store.get({ kind: 'User', project: '', name: 'alice' });
      expect((stored!.spec as { nativeProvider: { password: string } }).nativeProvider.password).to.not.equal(undefined);
      // both forms with different values: which one was meant? a 400 naming the older one
      const both = await s.api('POST', '/api/v1/users', {
        kind: 'User',
        metadata: { name: 'both' },
        spec: { password: 'one-pw-1', nativeProvider: { password: 'two-pw-2' } },
      });
      expect(both.status).to.equal(400);
      expect(both.body.details[0].path).to.equal('spec.password');
    });

    it('a Role may not name a global kind; a GlobalRole may; unknown scopes are rejected', async () => {
      const role = (kind: string, scopes: string[]) => ({
        kind,
        metadata: { name: `r-${scopes.join('-').toLowerCase().replace(/\*/g, 'all')}` },
        spec: { permissions: [{ actions: ['read'], scopes }] },
      });
      const bad = await s.api('POST', '/api/v1/projects/demo/roles', role('Role', ['Dashboard', 'GlobalDatasource']));
      expect(bad.status).to.equal(400);
      expect(bad.body.details[0].path).to.equal('spec.permissions[0].scopes[1]');
      expect((await s.api('POST', '/api/v1/projects/demo/roles', role('Role', ['Dashboard', 'Project']))).status).to.equal(200);
      expect((await s.api('POST', '/api/v1/globalroles', role('GlobalRole', ['GlobalDatasource', 'User']))).status).to.equal(200);
      expect((await s.api('POST', '/api/v1/globalroles', role('GlobalRole', ['Dashbaord']))).status).to.equal(400);
      const upper = await s.api('POST', '/api/v1/globalroles', {
        kind: 'GlobalRole',
        metadata: { name: 'upper' },
        spec: { permissions: [{ actions: ['Read'], scopes: ['*'] }] },
      });
      expect(upper.status).to.equal(200);
      expect(upper.body.spec.permissions[0].actions).to.deep.equal(['read']);
      // scopes too, as Perses' GetScope: stored as the kind's own name
      const lower = await s.api('POST', '/api/v1/projects/demo/roles', {
        kind: 'Role',
        metadata: { name: 'lower' },
        spec: { permissions: [{ actions: ['READ'], scopes: ['dashboard', 'VARIABLE'] }] },
      });
      expect(lower.status, lower.text).to.equal(200);
      expect(lower.body.spec.permissions[0]).to.deep.equal({ actions: ['read'], scopes: ['Dashboard', 'Variable'] });
    });

    it("a binding's spec.role cannot change", async () => {
      const b = (roleName: string) => ({
        kind: 'RoleBinding',
        metadata: { name: 'b' },
        spec: { role: roleName, subjects: [{ kind: 'User', name: 'alice' }] },
      });
      expect((await s.api('POST', '/api/v1/projects/demo/rolebindings', b('viewer'))).status).to.equal(200);
      const r = await s.api('PUT', '/api/v1/projects/demo/rolebindings/b', b('owner'));
      expect(r.status).to.equal(400);
      expect(r.body.details[0].path).to.equal('spec.role');
      // the subjects may change (to a user that exists)
      expect(
        (
          await s.api('POST', '/api/v1/users', {
            kind: 'User',
            metadata: { name: 'bob' },
            spec: { nativeProvider: { password: 'bob-password' } },
          })
        ).status,
      ).to.equal(200);
      const subjects = { ...b('viewer'), spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'bob' }] } };
      expect((await s.api('PUT', '/api/v1/projects/demo/rolebindings/b', subjects)).status).to.equal(200);
    });
  });

  describe('lists', () => {
    before(async () => {
      for (const n of ['b', 'a', 'C', 'a.2', 'a-1', 'z'])
        await s.api('POST', '/api/v1/projects/other/folders', { kind: 'Folder', metadata: { name: n }, spec: { items: [] } });
      await s.api('POST', '/api/v1/projects/demo/folders', { kind: 'Folder', metadata: { name: 'a' }, spec: { items: [] } });
    });
    const names = (body: { metadata: { project: string; name: string } }[]) => body.map((o) => `${o.metadata.project}/${o.metadata.name}`);

    it('are sorted by project then name, byte-wise', async () => {
      expect(names((await s.api('GET', '/api/v1/folders')).body).filter((n) => /^(demo|other)\//.test(n))).to.deep.equal([
        'demo/a',
        'other/C',
        'other/a',
        'other/a-1',
        'other/a.2',
        'other/b',
        'other/z',
      ]);
    });

    it('page with limit and continue, announced by a Link header', async () => {
      const seen: string[] = [];
      await s.api('DELETE', '/api/v1/projects/ab');
      let url: string | undefined = '/api/v1/folders?limit=3';
      let pages = 0;
      while (url) {
        const r = await s.api('GET', url);
        expect(r.status).to.equal(200);
        seen.push(...names(r.body));
        const link = r.headers.get('link');
        url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
        pages++;
      }
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(['demo/a', 'other/C', 'other/a', 'other/a-1', 'other/a.2', 'other/b', 'other/z']);
      expect((await s.api('GET', '/api/v1/folders?limit=0')).status).to.equal(400);
      expect((await s.api('GET', '/api/v1/folders?limit=2&continue=garbage')).status).to.equal(400);
    });

    it('metadata_only returns {kind, metadata, spec: {}}', async () => {
      const r = await s.api('GET', '/api/v1/projects/other/folders?metadata_only=true&name=a');
      expect(r.body).to.have.length(3);
      expect(r.body[0]).to.have.keys('kind', 'metadata', 'spec');
      expect(r.body[0].spec).to.deep.equal({});
    });

    it('a long list (sent in chunks) is one JSON array of every item in order, with and without metadata_only', async () => {
      await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'long' }, spec: {} });
      const at = new Date().toISOString();
      const want = Array.from({ length: 2345 }, (_, i) => `f-${String(i).padStart(4, '0')}`);
      for (let i = 0; i < want.length; i += 500)
        await Promise.all(
          want.slice(i, i + 500).map((name) =>
            s.server.store.create(
              {
                kind: 'Folder',
                metadata: { name, project: 'long', createdAt: at, updatedAt: at, version: 0 },
                spec: { items: [{ kind: 'Dashboard', name: `é "${name}"` }] },
              },
              { parent: { kind: 'Project', project: '', name: 'long' } },
            ),
          ),
        );
      const full = await fetch(`${s.url}/api/v1/projects/long/folders`);
      const items = JSON.parse(await full.text()) as { metadata: { name: string }; spec: { items: { name: string }[] } }[];
      expect(items.map((o) => o.metadata.name)).to.deep.equal(want);
      expect(items.every((o) => o.spec.items[0].name === `é "${o.metadata.name}"`)).to.equal(true);
      const meta = JSON.parse(await (await fetch(`${s.url}/api/v1/projects/long/folders?metadata_only=true`)).text()) as {
        kind: string;
        metadata: { name: string };
        spec: unknown;
      }[];
      expect(meta.map((o) => o.metadata.name)).to.deep.equal(want);
      expect(meta.every((o) => o.kind === 'Folder' && JSON.stringify(o.spec) === '{}')).to.equal(true);
      expect((await s.api('GET', '/api/v1/projects/long/folders?name=f-12')).body).to.have.length(100);
      const page = await s.api('GET', '/api/v1/projects/long/folders?limit=1500&metadata_only=true');
      expect(page.body).to.have.length(1500);
      expect(page.headers.get('link')).to.match(/rel="next"$/);
    });

    it('project query: filters the cross-project route, must match on the project route', async () => {
      expect(names((await s.api('GET', '/api/v1/folders?project=demo')).body)).to.deep.equal(['demo/a']);
      expect((await s.api('GET', '/api/v1/projects/demo/folders?project=other')).status).to.equal(400);
      expect((await s.api('GET', '/api/v1/projects/demo/folders?project=demo')).status).to.equal(200);
      expect((await s.api('GET', '/api/v1/folders?project=..%2F..%2Fx')).status).to.equal(400);
      expect((await s.api('GET', '/api/v1/folders?project=a*')).status).to.equal(400);
      expect((await s.api('GET', '/api/v1/folders?project=a%00')).status).to.equal(400);
    });

    it('a list is an array, never null', async () => {
      expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'nothing-here' }, spec: {} })).status).to.equal(
        200,
      );
      const r = await s.api('GET', '/api/v1/projects/nothing-here/variables');
      expect(r.status).to.equal(200);
      expect(r.text).to.equal('[]');
    });

    it("a list or watch under a project that does not exist is a 400 in Perses' words (percli matches them); ?project= on the cross-project route is a filter ([]); GET of one object there stays a 404", async () => {
      for (const path of [
        '/api/v1/projects/no-such-project/variables',
        '/api/v1/projects/no-such-project/dashboards?metadata_only=true',
        '/api/v1/projects/no-such-project/variables?watch=true',
      ]) {
        const r = await s.api('GET', path);
        expect(r.status, path).to.equal(400);
        expect(r.body.message, path).to.equal('metadata.project "no-such-project" doesn\'t exist');
        expect(r.body.details, path).to.deep.equal([{ path: 'project', message: 'create project "no-such-project" first' }]);
      }
      const filtered = await s.api('GET', '/api/v1/variables?project=no-such-project');
      expect([filtered.status, filtered.text]).to.deep.equal([200, '[]']);
      expect((await s.api('GET', '/api/v1/projects/no-such-project/variables/v')).status).to.equal(404);
    });
  });

  describe('optimistic concurrency', () => {
    it('If-Match: stale PUT and DELETE are 412; a malformed If-Match is 400', async () => {
      await s.api('POST', '/api/v1/projects/demo/variables', {
        kind: 'Variable',
        metadata: { name: 'v' },
        spec: { kind: 'TextVariable', spec: { value: 'a' } },
      });
      const v = (value: string) => ({ kind: 'Variable', metadata: { name: 'v' }, spec: { kind: 'TextVariable', spec: { value } } });
      expect((await s.api('PUT', '/api/v1/projects/demo/variables/v', v('b'), { 'if-match': '"0"' })).status).to.equal(200);
      const stale = await s.api('PUT', '/api/v1/projects/demo/variables/v', v('c'), { 'if-match': '"0"' });
      expect(stale.status).to.equal(412);
      expect(stale.body.reason).to.equal('PreconditionFailed');
      expect((await s.api('DELETE', '/api/v1/projects/demo/variables/v', undefined, { 'if-match': '"0"' })).status).to.equal(412);
      expect((await s.api('PUT', '/api/v1/projects/demo/variables/v', v('c'), { 'if-match': 'yesterday' })).status).to.equal(400);
      expect((await s.api('GET', '/api/v1/projects/demo/variables/v')).body.spec.spec.value).to.equal('b');
      expect((await s.api('DELETE', '/api/v1/projects/demo/variables/v', undefined, { 'if-match': '"1"' })).status).to.equal(204);
    });

    it('REL-02: 16 clients x 5 read-modify-writes with If-Match: final version = number of successes', async () => {
      await s.api('POST', '/api/v1/projects/demo/variables', {
        kind: 'Variable',
        metadata: { name: 'counter' },
        spec: { kind: 'TextVariable', spec: { value: '0' } },
      });
      let ok = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = 0; i < 5; i++) {
            const cur = await s.api('GET', '/api/v1/projects/demo/variables/counter');
            const next = { ...cur.body, spec: { kind: 'TextVariable', spec: { value: String(Number(cur.body.spec.spec.value) + 1) } } };
            const r = await s.api('PUT', '/api/v1/projects/demo/variables/counter', next, { 'if-match': cur.headers.get('etag')! });
            expect([200, 412]).to.include(r.status);
            if (r.status === 200) ok++;
          }
        }),
      );
      const final = (await s.api('GET', '/api/v1/projects/demo/variables/counter')).body;
      expect(final.metadata.version).to.equal(ok);
      expect(Number(final.spec.spec.value)).to.equal(ok);
    });

    it('REL-03: 32 concurrent PUTs without If-Match all succeed with distinct versions', async () => {
      // created with a value none of the PUTs sends: each of them is a change
      await s.api('POST', '/api/v1/projects/demo/variables', {
        kind: 'Variable',
        metadata: { name: 'race' },
        spec: { kind: 'TextVariable', spec: { value: 'initial' } },
      });
      const results = await Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          s.api('PUT', '/api/v1/projects/demo/variables/race', {
            kind: 'Variable',
            metadata: { name: 'race' },
            spec: { kind: 'TextVariable', spec: { value: String(i) } },
          }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(32).fill(200));
      const versions = results.map((r) => r.body.metadata.version as number).sort((a, b) => a - b);
      expect(versions).to.deep.equal(Array.from({ length: 32 }, (_, i) => i + 1));
    });
  });

  describe('system routes', () => {
    it('health reports version, commit, build time and the database', async () => {
      const r = await s.api('GET', '/api/v1/health');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.keys('version', 'commit', 'buildTime', 'database');
      expect(r.body.database).to.equal(true);
    });

    it('plugins lists Perses PluginModules with every plugin kind and type', async () => {
      const r = await s.api('GET', '/api/v1/plugins');
      const all = (r.body as { metadata: { name: string }; spec: { plugins: { kind: string; spec: { name: string } }[] } }[]).flatMap((m) =>
        m.spec.plugins.map((p) => ({ module: m.metadata.name, type: p.kind, name: p.spec.name })),
      );
      expect(all).to.deep.include({ module: 'prometheus', type: 'Datasource', name: 'PrometheusDatasource' });
      expect(all).to.deep.include({ module: 'timeserieschart', type: 'Panel', name: 'TimeSeriesChart' });
      expect(all.find((p) => p.name === 'TempoTraceQuery')!.type).to.equal('TraceQuery');
    });

    it('config shows auth settings and never a secret', async () => {
      const r = await s.api('GET', '/api/config');
      expect(r.body.security.enable_auth).to.equal(false);
      expect(r.body.security.authentication.providers).to.be.an('object');
      // what the Perses web UI reads as it starts (ui/app/src/context/Config.tsx): it throws without frontend
      expect(r.body.frontend).to.deep.include({ explorer: { enable: false }, time_range: { disable_custom: false } });
      for (const section of ['datasource', 'variable']) {
        expect(r.body[section], section).to.deep.equal({ global: { disable: false }, project: { disable: false }, disable_local: false });
      }
      expect(r.body.ephemeral_dashboard.enable).to.be.a('boolean');
    });

    it('POST /api/v1/view (the Perses UI reports each dashboard it rendered) is a 204 for a readable dashboard, 404 for a missing one', async () => {
      expect((await s.api('POST', '/api/v1/projects/demo/dashboards', dash('viewed'))).status).to.equal(200);
      const seen = await s.api('POST', '/api/v1/view', { project: 'demo', dashboard: 'viewed', render_time: 0.4, render_errors: 0 });
      expect(seen.status, seen.text).to.equal(204);
      expect(
        (await s.api('POST', '/api/v1/view', { project: 'demo', dashboard: 'nothing-here', render_time: 0.1, render_errors: 0 })).status,
      ).to.equal(404);
      const bad = await s.api('POST', '/api/v1/view', { project: 'demo' });
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.include('dashboard');
      expect((await s.api('DELETE', '/api/v1/projects/demo/dashboards/viewed')).status).to.equal(204);
    });

    it("nothing is a web UI page under /plugins: the Perses UI's plugin modules are a JSON 404, not the page", async () => {
      const r = await s.api('GET', '/plugins/Prometheus/mf-manifest.json');
      expect(r.status).to.equal(404);
      expect(r.body.reason).to.equal('NotFound');
    });

    it('validate answers 200 with an empty body, or 400 with details; stores nothing', async () => {
      const ok = await s.api('POST', '/api/validate/dashboards', {
        ...dash('only-validated'),
        metadata: { name: 'only-validated', project: 'demo' },
      });
      expect(ok.status).to.equal(200);
      expect(ok.text).to.equal('');
      expect((await s.api('GET', '/api/v1/projects/demo/dashboards/only-validated')).status).to.equal(404);
      const bad = await s.api('POST', '/api/validate/dashboards', dash('x', { layouts: grid('#/spec/panels/zz') }));
      expect(bad.status).to.equal(400);
      expect(bad.body.details[0].path).to.equal('spec.layouts[0].spec.items[0].content.$ref');
      expect((await s.api('POST', '/api/validate/globaldatasources', { ...ds('g', false), kind: 'GlobalDatasource' })).status).to.equal(
        200,
      );
      expect((await s.api('POST', '/api/validate/nothings', {})).status).to.equal(404);
    });

    it('health answers 503 with database:false when the store is down', async () => {
      const t = await startTestServer();
      try {
        await t.server.store.close();
        const r = await t.api('GET', '/api/v1/health');
        expect(r.status).to.equal(503);
        expect(r.body.database).to.equal(false);
      } finally {
        await t.stop();
      }
    });

    it('whoami is 401 with auth off; unknown routes are a JSON 404', async () => {
      expect((await s.api('GET', '/api/v1/user/whoami')).status).to.equal(401);
      const r = await s.api('GET', '/api/v1/nothings');
      expect(r.status).to.equal(404);
      expect(r.body.message).to.be.a('string');
      expect((await s.api('PUT', '/nothing/at/all')).status, 'not a UI page either').to.equal(404);
    });

    it('a served path with another method is a 405 whose Allow header names the methods (as Perses and Kubernetes answer)', async () => {
      for (const [method, path, allow] of [
        ['PATCH', '/api/v1/projects/demo', 'DELETE, GET, HEAD, PUT'],
        ['PUT', '/api/v1/projects/demo/dashboards', 'GET, HEAD, POST'],
        ['DELETE', '/API/V1/Projects/', 'GET, HEAD, POST'],
      ]) {
        const r = await s.api(method, path);
        expect(r.status, `${method} ${path}`).to.equal(405);
        expect(r.headers.get('allow'), `${method} ${path}`).to.equal(allow);
        expect(r.body).to.deep.equal({ message: `${method} is not allowed on ${path}; use ${allow}`, reason: 'MethodNotAllowed' });
      }
    });
  });
});
