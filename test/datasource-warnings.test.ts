/**
 * A datasource a dashboard asks for that does not exist is a warning, not a refusal (issue 35):
 * in /api/validate answers (a `warnings` list, and `Warning` headers on writes), and in dashctl's
 * apply, diff and lint, which still succeed. Perses' resolution rules decide what exists
 * (src/lib/datasource-refs.ts): the dashboard's own datasources, the project's, the global ones.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { warningTexts } from '../src/api/warning-header.js';
import { bearer, loginAdmin, signUp, login, startAuthServer, type Tokens } from './helpers/auth.js';
import { dashctl, show, summary } from './helpers/dashctl.js';
import { tempDir, type TestServer } from './helpers/server.js';

const query = (datasource?: unknown) => ({
  kind: 'TimeSeriesQuery',
  spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up', ...(datasource === undefined ? {} : { datasource }) } } },
});
const dashboard = (project: string, queries: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: 'Dashboard',
  metadata: { name: 'board', project },
  spec: {
    duration: '1h',
    panels: { cpu: { kind: 'Panel', spec: { display: { name: 'CPU' }, plugin: { kind: 'TimeSeriesChart', spec: {} }, queries } } },
    layouts: [],
    ...extra,
  },
});
const datasource = (kind: 'Datasource' | 'GlobalDatasource', name: string, isDefault: boolean, project?: string) => ({
  kind,
  metadata: { name, ...(project ? { project } : {}) },
  spec: { default: isDefault, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: `http://${name}:9090` } } },
});
const PATH0 = 'spec.panels.cpu.spec.queries[0].spec.plugin.spec.datasource';

describe('missing datasources are warnings: /api/validate, write headers, dashctl apply, diff and lint', function () {
  this.timeout(120_000);
  let s: TestServer;
  let admin: Tokens;
  let tmp: ReturnType<typeof tempDir>;
  const as = (t: Tokens) => bearer(t);
  const validate = async (body: unknown, t: Tokens | null = admin) => s.api('POST', '/api/validate/dashboards', body, t ? as(t) : {});

  before(async () => {
    s = await startAuthServer();
    admin = await loginAdmin(s);
    tmp = tempDir('datasource-warnings-');
    for (const p of ['apps', 'empty'])
      expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} }, as(admin))).status).to.equal(
        200,
      );
    expect(
      (await s.api('POST', '/api/v1/projects/apps/datasources', datasource('Datasource', 'Prometheus-Main', false, 'apps'), as(admin)))
        .status,
    ).to.equal(200);
    expect((await s.api('POST', '/api/v1/globaldatasources', datasource('GlobalDatasource', 'shared', false), as(admin))).status).to.equal(
      200,
    );
  });
  after(async () => {
    await s?.stop();
    tmp?.remove();
  });

  describe('/api/validate and writes', () => {
    it('answers each datasource that no scope has as a warning with its path (200, and a Warning header each)', async () => {
      const r = await validate(
        dashboard('apps', [
          query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' }),
          query(),
          query({ kind: 'PrometheusDatasource' }),
        ]),
      );
      expect(r.status, r.text).to.equal(200);
      expect(r.body.warnings).to.deep.equal([
        {
          path: PATH0,
          message:
            'asks for datasource "prometheus-typo" of kind PrometheusDatasource, which is not in project "apps" or the global datasources: create it, or name another',
        },
        {
          path: 'spec.panels.cpu.spec.queries[1].spec.plugin',
          message:
            'names no datasource, so it asks for the default datasource of kind PrometheusDatasource, which is not in project "apps" or the global datasources: make a datasource of that kind the default, or name one',
        },
        {
          path: 'spec.panels.cpu.spec.queries[2].spec.plugin.spec.datasource',
          message:
            'asks for the default datasource of kind PrometheusDatasource, which is not in project "apps" or the global datasources: make a datasource of that kind the default, or name one',
        },
      ]);
      expect(warningTexts(r.headers.get('warning'))).to.deep.equal(
        r.body.warnings.map((w: { path: string; message: string }) => `${w.path}: ${w.message}`),
      );
    });

    it("follows Perses' resolution: the dashboard's own datasources by key and kind, the project's (any case), the global ones; a variable's name is not known until it runs", async () => {
      const own = {
        datasources: { mine: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://mine:9090' } } } },
      };
      const ok = await validate(
        dashboard(
          'apps',
          [
            query({ kind: 'PrometheusDatasource', name: 'mine' }),
            query(), // the dashboard's own default
            query({ kind: 'PrometheusDatasource', name: 'prometheus-main' }),
            query({ kind: 'PrometheusDatasource', name: 'shared' }),
            query({ kind: 'PrometheusDatasource', name: '$datasource' }),
          ],
          own,
        ),
      );
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.text, 'no warnings: an empty body, as Perses answers').to.equal('');
      expect(ok.headers.get('warning')).to.equal(null);
      // a local datasource of another kind under that name does not answer a PrometheusDatasource selector
      const otherKind = {
        datasources: { mine: { default: false, plugin: { kind: 'TempoDatasource', spec: { directUrl: 'http://tempo:3200' } } } },
      };
      const r = await validate(dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'mine' })], otherKind));
      expect(r.body.warnings.map((w: { path: string }) => w.path)).to.deep.equal([PATH0]);
    });

    it('keeps the Warning headers bounded: one per message naming its places, at most 4 KB, the rest counted (a corpus dashboard of 84 references failed clients)', async () => {
      // 300 queries asking for one missing datasource, and 60 more asking for 60 different ones
      const queries = [
        ...Array.from({ length: 300 }, () => query({ kind: 'PrometheusDatasource', name: 'prometheus-datasource' })),
        ...Array.from({ length: 60 }, (_, i) => query({ kind: 'PrometheusDatasource', name: `missing-${i}` })),
      ];
      const body = dashboard('apps', queries);
      const v = await validate(body);
      expect(v.body.warnings, 'the validate answer lists every one').to.have.length(360);
      const created = await s.api('POST', '/api/v1/projects/apps/dashboards', body, as(admin));
      expect(created.status, created.text).to.equal(200);
      const header = created.headers.get('warning') ?? '';
      expect(header.length).to.be.within(1000, 4096);
      const texts = warningTexts(header);
      expect(texts[0]).to.match(
        /^spec\.panels\.cpu\.spec\.queries\[0\]\.spec\.plugin\.spec\.datasource and 299 more place\(s\) \(spec\.panels\.cpu\.spec\.queries\[1\]\S*, \S*queries\[2\]\S*, \.\.\.\): asks for datasource "prometheus-datasource"/,
      );
      expect(texts.at(-1)).to.match(/^\d+ more warning\(s\) left out of these headers: POST the object to \/api\/validate/);
      const left = Number(/^(\d+)/.exec(texts.at(-1)!)![1]);
      expect(texts.length - 1 + left, 'every distinct message is shown or counted').to.equal(61);
      expect((await s.api('DELETE', '/api/v1/projects/apps/dashboards/board', undefined, as(admin))).status).to.equal(204);
    });

    it('warns on a dry run and on a real write (Warning headers), which succeed', async () => {
      const body = dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' })]);
      const dry = await s.api('POST', '/api/v1/projects/apps/dashboards?dryRun=true', body, as(admin));
      expect(dry.status).to.equal(200);
      expect(warningTexts(dry.headers.get('warning'))[0]).to.match(
        /^spec\.panels\.cpu\.spec\.queries\[0\]\.spec\.plugin\.spec\.datasource: asks for datasource "prometheus-typo"/,
      );
      const created = await s.api('POST', '/api/v1/projects/apps/dashboards', body, as(admin));
      expect(created.status).to.equal(200);
      expect(warningTexts(created.headers.get('warning'))).to.have.length(1);
      const fixed = await s.api(
        'PUT',
        '/api/v1/projects/apps/dashboards/board',
        dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'shared' })]),
        as(admin),
      );
      expect(fixed.status).to.equal(200);
      expect(fixed.headers.get('warning')).to.equal(null);
      expect((await s.api('DELETE', '/api/v1/projects/apps/dashboards/board', undefined, as(admin))).status).to.equal(204);
    });

    it('tells a caller only about what they may read: not anonymous callers, and without global read the global datasources are said to be unchecked', async () => {
      const typo = dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' })]);
      const anonymous = await validate(typo, null);
      expect(anonymous.status).to.equal(200);
      expect(anonymous.text).to.equal('');
      await signUp(s, 'dev');
      const dev = await login(s, 'dev');
      const bind = {
        kind: 'RoleBinding',
        metadata: { name: 'dev-editor', project: 'apps' },
        spec: { role: 'editor', subjects: [{ kind: 'User', name: 'dev' }] },
      };
      expect((await s.api('POST', '/api/v1/projects/apps/rolebindings', bind, as(admin))).status).to.equal(200);
      const r = await validate(typo, dev);
      expect(r.body.warnings[0].message).to.equal(
        'asks for datasource "prometheus-typo" of kind PrometheusDatasource, which is not in project "apps" (the global datasources could not be checked): create it, or name another',
      );
      // for them a global datasource is as good as missing (their panels could not use it), and the sentence says why
      const global = await validate(dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'shared' })]), dev);
      expect(global.body.warnings).to.have.length(1);
      // in a project where they may read nothing, nothing is said
      const elsewhere = await validate(dashboard('empty', [query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' })]), dev);
      expect(elsewhere.text).to.equal('');
    });

    it('checks project variables too', async () => {
      const variable = {
        kind: 'Variable',
        metadata: { name: 'job', project: 'apps' },
        spec: {
          kind: 'ListVariable',
          spec: {
            name: 'job',
            plugin: {
              kind: 'PrometheusLabelValuesVariable',
              spec: { labelName: 'job', datasource: { kind: 'PrometheusDatasource', name: 'gone' } },
            },
          },
        },
      };
      const r = await s.api('POST', '/api/validate/variables', variable, as(admin));
      expect(r.body.warnings).to.deep.equal([
        {
          path: 'spec.spec.plugin.spec.datasource',
          message:
            'asks for datasource "gone" of kind PrometheusDatasource, which is not in project "apps" or the global datasources: create it, or name another',
        },
      ]);
    });
  });

  describe('dashctl', () => {
    const config = () => join(tmp.path, 'dashctl.json');
    const env = () => ({ env: { DASHCTL_URL: s.url, DASHCTL_TOKEN: admin.access_token } });
    const file = (name: string, ...docs: unknown[]) => {
      const path = join(tmp.path, name);
      writeFileSync(path, docs.map((d) => stringify(d)).join('---\n'));
      return path;
    };
    const typo = () => file('typo.yaml', dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' })]));

    it('apply prints the warning with its file and line, applies, and exits 0', async () => {
      const path = typo();
      const r = await dashctl(config(), ['apply', '-f', path], env());
      expect(r.code, show(r)).to.equal(0);
      expect(summary(r)).to.include({ created: 1, failed: 0 });
      expect(r.stderr).to.match(
        new RegExp(
          `^warning: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+ Dashboard apps/board: ${PATH0.replace(/[.[\]]/g, '\\$&')}: asks for datasource "prometheus-typo"`,
          'm',
        ),
      );
    });

    it('diff prints it too; a datasource the same input creates (or a default it makes) is no warning', async () => {
      const changed = dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' }), query()]);
      let r = await dashctl(config(), ['diff', '-f', file('diff.yaml', changed)], env());
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr.match(/^warning: /gm)).to.have.length(2);
      r = await dashctl(
        config(),
        ['diff', '-f', file('both.yaml', changed, datasource('Datasource', 'prometheus-typo', true, 'apps'))],
        env(),
      );
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.not.contain('warning:');
    });

    it('lint --online warns and exits 0; offline it warns only where the input holds the datasources, and says the global ones were not checked', async () => {
      let r = await dashctl(config(), ['lint', '--online', '-f', typo()], env());
      expect(r.code, show(r)).to.equal(0);
      expect(r.stdout).to.contain('1 resource(s) checked by the server, 0 invalid, 1 warning(s)');
      expect(r.stderr).to.contain('asks for datasource "prometheus-typo"');
      r = await dashctl(config(), ['lint', '-f', typo()]);
      expect(r.code, show(r)).to.equal(0);
      expect(r.stderr, 'offline, the input alone cannot tell').to.not.contain('warning:');
      r = await dashctl(config(), [
        'lint',
        '-o',
        'json',
        '-f',
        file(
          'with-ds.yaml',
          datasource('Datasource', 'prometheus', true, 'apps'),
          dashboard('apps', [query({ kind: 'PrometheusDatasource', name: 'prometheus-typo' }), query()]),
        ),
      ]);
      expect(r.code, show(r)).to.equal(0);
      const report = JSON.parse(r.stdout);
      expect(report[1].valid).to.equal(true);
      expect(report[1].warnings).to.deep.equal([
        {
          path: PATH0,
          message:
            'asks for datasource "prometheus-typo" of kind PrometheusDatasource, which is not in project "apps" (the global datasources could not be checked): create it, or name another',
        },
      ]);
    });
  });
});
