import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createSecretKey } from 'node:crypto';
import { basename, join } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadKeyRing } from '../src/auth/keys.js';
import { AUTH_ENV, bearer, loginAdmin } from './helpers/auth.js';
import { DASHCTL_BIN as BIN, dashctl, savedContext, show, type Run } from './helpers/dashctl.js';
import { corpusDir, skipWithoutCorpus } from './helpers/corpus.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * dashctl end to end: dashctl run in process (test/helpers/dashctl.ts; `get --watch`, which only a
 * signal ends, as a child process), with its own configuration file in a temporary directory,
 * against a real dashplane server.
 */

/** Suites that read it are skipped (with a note at the end of the run) when it is missing. */
const CORPUS = corpusDir('corpus') ?? '';

function copyCorpus(dir: string, files: string[]): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(join(CORPUS, f), join(dir, basename(f)));
}

function summary(r: Run): Record<string, number> {
  const m = /created (\d+), configured (\d+), unchanged (\d+), pruned (\d+), failed (\d+)/.exec(r.stdout);
  if (!m) throw new Error(`no summary line: ${show(r)}`);
  return { created: +m[1], configured: +m[2], unchanged: +m[3], pruned: +m[4], failed: +m[5] };
}

const counts = (created: number, configured: number, unchanged: number, pruned = 0, failed = 0) => ({
  created,
  configured,
  unchanged,
  pruned,
  failed,
});

/** Project resources with and without metadata.project, global kinds, Projects. */
const APPLY_SET = [
  'community-mixins/examples/perses/project.yaml', // Project perses-dev
  'community-mixins/examples/perses/datasource.yaml', // GlobalDatasource
  'community-mixins/examples/dashboards/perses/etcd/etcd-overview.yaml', // Dashboard perses-dev
  'community-mixins/examples/dashboards/perses/prometheus/prometheus-overview.yaml', // Dashboard perses-dev
  'perses/dev/data/6-project.json', // 3 Projects (a JSON array)
  'perses/dev/data/8-datasource.json', // 2 Datasources in perses
  'perses/docs-extracted/docs__api__variable__block5.yaml', // Variable in perses
  'perses/internal/cli/test/sample_resources/single_resource.json', // Folder without a project
];

describe('dashctl (end to end, against a real server)', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let cfg: string;
  const run = (args: string[], o?: { env?: Record<string, string>; input?: string }) => dashctl(cfg, args, o);

  before(async () => {
    srv = await startTestServer();
    tmp = tempDir('dashctl-test-');
    cfg = join(tmp.path, 'home', 'config.json');
    const r = await run(['login', srv.url]);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout).to.include('authentication is disabled');
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('keeps its configuration in $DASHCTL_CONFIG with mode 0600', async () => {
    expect(statSync(cfg).mode & 0o777).to.equal(0o600);
    expect(savedContext(cfg).url).to.equal(srv.url);
    const r = await run(['config']);
    expect(r.stdout).to.include(srv.url).and.include(cfg);
  });

  describe('apply, diff, prune, delete', () => {
    let dir: string;
    before(function () {
      skipWithoutCorpus(this, 'corpus');
      dir = join(tmp.path, 'repo');
      copyCorpus(dir, APPLY_SET.slice(0, 4));
      copyCorpus(join(dir, 'perses', 'nested'), APPLY_SET.slice(4));
    });

    it('applies a directory (recursively): Projects first, project kinds with and without metadata.project', async () => {
      const r = await run(['apply', '-f', dir, '--create-project'], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(r.code, show(r)).to.equal(0);
      // 4 projects + 1 GlobalDatasource + 2 dashboards + 2 datasources + 1 variable + 1 folder, + project demo
      expect(summary(r), show(r)).to.deep.equal(counts(12, 0, 0));
      expect(r.stdout).to.include('Folder demo/ff15 created').and.include('Project demo created');
      expect((await srv.api('GET', '/api/v1/projects/demo/folders/ff15')).status).to.equal(200);
      expect((await srv.api('GET', '/api/v1/projects/perses-dev/dashboards/etcd-overview')).status).to.equal(200);
    });

    it('applying again changes nothing: every object unchanged, no version bumped', async () => {
      const before = (await srv.api('GET', '/api/v1/dashboards')).body.map((o: any) => o.metadata.version);
      const r = await run(['apply', '-f', dir], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(r.code, show(r)).to.equal(0);
      expect(summary(r), show(r)).to.deep.equal(counts(0, 0, 11));
      const after = (await srv.api('GET', '/api/v1/dashboards')).body.map((o: any) => o.metadata.version);
      expect(after).to.deep.equal(before);
    });

    it('diff exits 0 without changes', async () => {
      const r = await run(['diff', '-f', dir], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(r.code, show(r)).to.equal(0);
      expect(r.stdout).to.equal('');
    });

    it('after one file changes: diff shows it (exit 1), apply reports one configured', async () => {
      const file = join(dir, 'etcd-overview.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('name: etcd / Overview', 'name: etcd at a glance'));
      const d = await run(['diff', '-f', dir], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(d.code, show(d)).to.equal(1);
      expect(d.stdout).to.include('--- live/Dashboard/perses-dev/etcd-overview');
      expect(d.stdout)
        .to.match(/^-\s+name: etcd \/ Overview$/m)
        .and.match(/^\+\s+name: etcd at a glance$/m);
      expect(d.stdout).not.to.include('updatedAt');
      const r = await run(['apply', '-f', dir], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(summary(r), show(r)).to.deep.equal(counts(0, 1, 10));
      expect(r.stdout).to.include('Dashboard perses-dev/etcd-overview configured');
      const got = await srv.api('GET', '/api/v1/projects/perses-dev/dashboards/etcd-overview');
      expect(got.body.spec.display.name).to.equal('etcd at a glance');
      expect(got.body.metadata.version).to.equal(1);
    });

    it('diff exits 2 on an error (server unreachable)', async () => {
      const r = await run(['diff', '-f', dir], { env: { DASHCTL_URL: 'http://127.0.0.1:9', DASHCTL_PROJECT: 'demo' } });
      expect(r.code, show(r)).to.equal(2);
      expect(r.stderr).to.include('cannot reach');
    });

    it('--dry-run stores nothing (new objects, a changed object, a project it would create)', async () => {
      const extra = join(tmp.path, 'dry');
      mkdirSync(extra, { recursive: true });
      writeFileSync(
        join(extra, 'a.yaml'),
        'kind: Folder\nmetadata: {name: dry-folder, project: brand-new}\nspec: {}\n---\nkind: Folder\nmetadata: {name: dry-folder-2}\nspec: {}\n',
      );
      const r = await run(['apply', '-f', extra, '-f', dir, '--dry-run', '--create-project'], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(r.code, show(r)).to.equal(0);
      expect(summary(r), show(r)).to.deep.equal(counts(3, 0, 11));
      expect(r.stdout).to.include('(dry run)');
      expect((await srv.api('GET', '/api/v1/projects/brand-new')).status).to.equal(404);
      expect((await srv.api('GET', '/api/v1/projects/demo/folders/dry-folder-2')).status).to.equal(404);
    });

    it('reads JSON arrays and multi-document YAML from stdin (-f -)', async () => {
      const json = await run(['apply', '-f', '-'], {
        input: JSON.stringify([{ kind: 'Folder', metadata: { name: 'stdin-json', project: 'demo' }, spec: {} }]),
      });
      expect(summary(json), show(json)).to.deep.equal(counts(1, 0, 0));
      const yaml = await run(['apply', '-f', '-', '-p', 'demo'], {
        input:
          'kind: Folder\nmetadata: {name: stdin-yaml}\nspec: {}\n---\nkind: Folder\nmetadata: {name: stdin-json, project: demo}\nspec: {}\n',
      });
      expect(summary(yaml), show(yaml)).to.deep.equal(counts(1, 0, 1));
      const del = await run(['delete', 'folders', 'stdin-json', 'stdin-yaml', '-p', 'demo']);
      expect(del.code, show(del)).to.equal(0);
    });

    it('parses many files in worker threads with the same results and error positions', async () => {
      const many = join(tmp.path, 'many-files');
      mkdirSync(many, { recursive: true });
      for (let i = 0; i < 120; i++)
        writeFileSync(
          join(many, `f${String(i).padStart(3, '0')}.yaml`),
          `kind: Folder\nmetadata:\n  name: wf-${i}\n  project: demo\nspec: {}\n`,
        );
      writeFileSync(join(many, 'f050.yaml'), 'kind: Folder\nmetadata:\n  name: "bad name"\n  project: demo\nspec: {}\n');
      const r = await run(['apply', '-f', many, '--dry-run']);
      // plan, then all or nothing: the bad one stops the run, the plan shows the rest
      expect(r.stdout, show(r)).to.include('plan: create 119, configure 0, unchanged 0, prune 0, refused 1');
      expect(summary(r), show(r)).to.deep.equal(counts(0, 0, 0, 0, 1));
      expect(r.stderr).to.include(`${join(many, 'f050.yaml')}:3`);
      writeFileSync(join(many, 'f070.yaml'), 'kind: Folder\nmetadata: {name: [unclosed\n');
      const broken = await run(['apply', '-f', many, '--dry-run']);
      expect(broken.code, show(broken)).to.equal(1);
      expect(broken.stderr).to.match(/f070\.yaml:\d+:\d+: not valid YAML/);
    });

    it('names the file, the object and the JSON path (with its line) of a rejected object; exit 1', async () => {
      const bad = join(tmp.path, 'bad.yaml');
      writeFileSync(
        bad,
        [
          'kind: Dashboard',
          'metadata:',
          '  name: broken',
          '  project: demo',
          'spec:',
          '  duration: 1h',
          '  panels:',
          '    p:',
          '      kind: Panel',
          '      spec:',
          '        display: {name: p}',
          '        plugin: {kind: TimeSeriesChar, spec: {}}',
          '  layouts: []',
          '',
        ].join('\n'),
      );
      const r = await run(['apply', '-f', bad]);
      expect(r.code, show(r)).to.equal(1);
      expect(summary(r)).to.deep.equal(counts(0, 0, 0, 0, 1));
      expect(r.stderr)
        .to.include(bad)
        .and.include('Dashboard demo/broken')
        .and.include('spec.panels.p.spec.plugin.kind')
        .and.include(`${bad}:12`);
    });

    it('--prune deletes only tagged objects absent from the input, in the projects it touches, after listing them; --prune-kind narrows the kinds', async () => {
      const gitops = join(tmp.path, 'gitops');
      mkdirSync(gitops, { recursive: true });
      const folder = (name: string, tags = '[gitops]') =>
        `kind: Folder\nmetadata: {name: ${name}, project: demo, tags: ${tags}}\nspec: {}\n`;
      writeFileSync(join(gitops, 'one.yaml'), folder('keep-me'));
      writeFileSync(join(gitops, 'two.yaml'), folder('drop-me'));
      expect(summary(await run(['apply', '-f', gitops]))).to.deep.equal(counts(2, 0, 0));
      // Not from this repository: untagged, tagged in another project, tagged of another kind.
      await srv.api('POST', '/api/v1/projects/demo/folders', { kind: 'Folder', metadata: { name: 'hand-made' }, spec: {} });
      await srv.api('POST', '/api/v1/projects/perses/folders', {
        kind: 'Folder',
        metadata: { name: 'elsewhere', tags: ['gitops'] },
        spec: {},
      });
      await srv.api('POST', '/api/v1/projects/demo/variables', {
        kind: 'Variable',
        metadata: { name: 'othervar', tags: ['gitops'] },
        spec: { kind: 'TextVariable', spec: { value: 'x' } },
      });
      rmSync(join(gitops, 'two.yaml'));

      const noTag = await run(['apply', '-f', gitops, '--prune']);
      expect(noTag.code, show(noTag)).to.equal(1);
      expect(noTag.stderr).to.include('--prune-tag');

      const folders = ['--prune', '--prune-tag', 'gitops', '--prune-kind', 'folder'];
      const refused = await run(['apply', '-f', gitops, ...folders]);
      expect(refused.code, show(refused)).to.equal(1);
      expect(refused.stdout, show(refused))
        .to.include('Folder demo/drop-me (prune)')
        .and.include('run again with --yes')
        .and.include('nothing applied');
      expect((await srv.api('GET', '/api/v1/projects/demo/folders/drop-me')).status).to.equal(200);

      const dry = await run(['apply', '-f', gitops, ...folders, '--dry-run']);
      expect(summary(dry), show(dry)).to.deep.equal(counts(0, 0, 1, 1));
      expect((await srv.api('GET', '/api/v1/projects/demo/folders/drop-me')).status).to.equal(200);

      const r = await run(['apply', '-f', gitops, ...folders, '--yes']);
      expect(r.code, show(r)).to.equal(0);
      expect(summary(r), show(r)).to.deep.equal(counts(0, 0, 1, 1));
      expect(r.stdout).to.include('Folder demo/drop-me pruned');
      expect((await srv.api('GET', '/api/v1/projects/demo/folders/drop-me')).status).to.equal(404);
      for (const kept of [
        '/api/v1/projects/demo/folders/keep-me',
        '/api/v1/projects/demo/folders/hand-made',
        '/api/v1/projects/perses/folders/elsewhere',
        '/api/v1/projects/demo/variables/othervar',
      ]) {
        expect((await srv.api('GET', kept)).status, kept).to.equal(200);
      }
      // not narrowed: every kind carrying the tag in the touched projects, the Variable too
      const all = await run(['apply', '-f', gitops, '--prune', '--prune-tag', 'gitops', '--yes']);
      expect(summary(all), show(all)).to.deep.equal(counts(0, 0, 1, 1));
      expect(all.stdout).to.include('Variable demo/othervar pruned');
      expect((await srv.api('GET', '/api/v1/projects/perses/folders/elsewhere')).status, 'another project').to.equal(200);
    });

    it('delete -f deletes the objects of the files; delete KIND NAME...; missing objects fail unless --ignore-not-found', async () => {
      const f = join(tmp.path, 'del.yaml');
      writeFileSync(f, 'kind: Folder\nmetadata: {name: del-a}\nspec: {}\n---\nkind: Folder\nmetadata: {name: del-b}\nspec: {}\n');
      expect(summary(await run(['apply', '-f', f, '-p', 'demo']))).to.deep.equal(counts(2, 0, 0));
      const r = await run(['delete', '-f', f, '-p', 'demo']);
      expect(r.code, show(r)).to.equal(0);
      expect(r.stdout).to.include('Folder demo/del-a deleted').and.include('Folder demo/del-b deleted');
      expect((await srv.api('GET', '/api/v1/projects/demo/folders/del-a')).status).to.equal(404);
      const again = await run(['delete', '-f', f, '-p', 'demo']);
      expect(again.code, show(again)).to.equal(1);
      expect((await run(['delete', '-f', f, '-p', 'demo', '--ignore-not-found'])).code).to.equal(0);
      const byName = await run(['delete', 'folder', 'keep-me', 'hand-made', '-p', 'demo']);
      expect(byName.code, show(byName)).to.equal(0);
      expect((await srv.api('GET', '/api/v1/projects/demo/folders')).body.map((o: any) => o.metadata.name)).to.deep.equal(['ff15']);
    });
  });

  describe('get, describe, history', () => {
    // A server and configuration of their own, holding what these tests read: they used to read
    // what the corpus suite above had applied, and failed where it was skipped (no corpus).
    let srv: TestServer;
    let cfg: string;
    const run = (args: string[], o?: { env?: Record<string, string>; input?: string }) => dashctl(cfg, args, o);
    before(async () => {
      srv = await startTestServer();
      cfg = join(tmp.path, 'get-describe-history.json');
      expect((await run(['login', srv.url])).code).to.equal(0);
      const post = async (path: string, body: unknown) => {
        const r = await srv.api('POST', path, body);
        expect(r.status, `${path}: ${r.text}`).to.equal(200);
      };
      for (const name of ['demo', 'perses', 'perses-dev', 'IncredibleProject'])
        await post('/api/v1/projects', { kind: 'Project', metadata: { name }, spec: {} });
      const prometheus = (name: string, spec: Record<string, unknown>) => ({
        kind: 'Datasource',
        metadata: { name, project: 'perses' },
        spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec } },
      });
      await post(
        '/api/v1/projects/perses/datasources',
        prometheus('PrometheusDemo', { proxy: { kind: 'HTTPProxy', spec: { url: 'http://localhost:9090' } } }),
      );
      await post('/api/v1/projects/perses/datasources', prometheus('PrometheusDemoBrowser', { directUrl: 'http://localhost:9090' }));
      const etcd = (title: string) => ({
        kind: 'Dashboard',
        metadata: { name: 'etcd-overview', project: 'perses-dev' },
        spec: { display: { name: title }, duration: '1h', panels: {}, layouts: [] },
      });
      await post('/api/v1/projects/perses-dev/dashboards', etcd('etcd / Overview'));
      expect((await srv.api('PUT', '/api/v1/projects/perses-dev/dashboards/etcd-overview', etcd('etcd at a glance'))).status).to.equal(200);
      await post('/api/v1/projects/demo/folders', { kind: 'Folder', metadata: { name: 'ff15' }, spec: {} });
    });
    after(() => srv?.stop());

    it('get in every output format, with aliases, prefixes and -A', async () => {
      const table = await run(['get', 'ds', '-p', 'perses']);
      expect(table.code, show(table)).to.equal(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines[0]).to.match(/^NAME\s+PLUGIN\s+DEFAULT\s+VERSION\s+AGE$/);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).to.deep.equal(['PrometheusDemo', 'PrometheusDemoBrowser']);
      // aligned: every row starts its VERSION column where the header does
      const col = lines[0].indexOf('VERSION');
      for (const l of lines.slice(1)) expect(l.slice(col, col + 1)).to.match(/\d/);
      expect(lines[1], 'the AGE column ends the row (seconds, or minutes on a slow machine)').to.match(/\s\d+[sm]$/);

      const json = await run(['get', 'datasources', '-p', 'perses', '-o', 'json']);
      expect(JSON.parse(json.stdout).map((o: any) => o.metadata.name)).to.deep.equal(['PrometheusDemo', 'PrometheusDemoBrowser']);
      const yaml = await run(['get', 'Datasource', '--prefix', 'PrometheusDemoB', '-p', 'perses', '-o', 'yaml']);
      expect(yaml.stdout).to.match(/^kind: Datasource\nmetadata:\n {2}name: PrometheusDemoBrowser\n/);
      expect(yaml.stdout).not.to.include('---');
      const names = await run(['get', 'projects', '-o', 'name']);
      expect(names.stdout.split('\n').filter(Boolean)).to.include.members([
        'project/demo',
        'project/perses',
        'project/perses-dev',
        'project/IncredibleProject',
      ]);
      const all = await run(['get', 'dash', '-A']);
      expect(all.stdout.split('\n')[0]).to.match(/^PROJECT\s+NAME\s+DISPLAY\s+VERSION\s+AGE$/);
      expect(all.stdout).to.include('perses-dev').and.include('etcd-overview');
      for (const alias of ['gds', 'gvar', 'var', 'globalDatasources', 'DASHBOARDS']) {
        const r = await run(['get', alias, '-A']);
        expect(r.code, `${alias}: ${show(r)}`).to.equal(0);
      }
      const unknown = await run(['get', 'gizmos']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.include('unknown kind "gizmos"');
    });

    it('project sets the default project; describe and history (with --restore) use it', async () => {
      const missing = await run(['project', 'nope']);
      expect(missing.code, show(missing)).to.equal(1);
      expect((await run(['project', 'perses-dev'])).code).to.equal(0);
      expect((await run(['project'])).stdout.trim()).to.equal('perses-dev');
      const desc = await run(['describe', 'dash', 'etcd-overview']);
      expect(desc.code, show(desc)).to.equal(0);
      expect(desc.stdout)
        .to.match(/Project:\s+perses-dev/)
        .and.match(/Version:\s+1/)
        .and.include('1 earlier version(s)')
        .and.include('etcd at a glance');
      const hist = await run(['history', 'dash', 'etcd-overview']);
      expect(hist.stdout.split('\n')[0]).to.match(/^VERSION\s+UPDATED\s+BY\s+THROUGH\s+AGE$/);
      expect(hist.stdout).to.match(/^0\s+\S+\s+anonymous/m);
      const restore = await run(['history', 'dash', 'etcd-overview', '--restore', '0']);
      expect(restore.code, show(restore)).to.equal(0);
      expect(restore.stdout).to.include('version 0 restored as version 2');
      const got = await srv.api('GET', '/api/v1/projects/perses-dev/dashboards/etcd-overview');
      expect(got.body.spec.display.name).to.equal('etcd / Overview');
      await run(['config', 'unset', 'project']);
    });

    it('get --watch streams changes', async () => {
      const child: ChildProcess = spawn(process.execPath, [BIN, 'get', 'folders', '-p', 'demo', '--watch'], {
        env: { ...process.env, DASHCTL_CONFIG: cfg, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      try {
        await waitFor('the initial ADDED event', () => /ADDED\s+ff15/.test(out), 20_000);
        await srv.api('POST', '/api/v1/projects/demo/folders', { kind: 'Folder', metadata: { name: 'watched' }, spec: {} });
        await waitFor('the new folder', () => /ADDED\s+watched/.test(out), 20_000);
        await srv.api('DELETE', '/api/v1/projects/demo/folders/watched');
        await waitFor('its deletion', () => /DELETED\s+watched/.test(out), 20_000);
      } finally {
        child.kill();
      }
    });
  });

  describe('Perses* custom resources (perses-operator)', () => {
    before(function () {
      skipWithoutCorpus(this, 'corpus');
    });
    it('converts PersesDashboard v1alpha1/v1alpha2 and PersesGlobalDatasource: namespace -> project, tags annotation -> tags', async () => {
      const dir = join(tmp.path, 'operator');
      copyCorpus(dir, [
        'perses-operator/config/samples/v1alpha1/persesdashboard.yaml',
        'community-mixins/jsonnet/dashboards/operator/etcd/etcd-overview.json',
      ]);
      copyCorpus(join(dir, 'tags'), ['perses-operator/test/e2e/dashboard-tags/02-install.yaml']);
      // what it reads: project demo, and etcd-overview in perses-dev as the native manifest has it
      const native = join(tmp.path, 'operator-native');
      copyCorpus(native, [
        'community-mixins/examples/perses/project.yaml',
        'community-mixins/examples/dashboards/perses/etcd/etcd-overview.yaml',
      ]);
      const setup = await run(['apply', '-f', native]);
      expect(setup.code, show(setup)).to.equal(0);
      expect((await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'demo' }, spec: {} })).status).to.be.oneOf([
        200, 409,
      ]);
      const r = await run(['apply', '-f', dir], { env: { DASHCTL_PROJECT: 'demo' } });
      expect(r.code, show(r)).to.equal(0);
      expect(summary(r), show(r)).to.deep.equal(counts(2, 0, 1));
      expect(r.stdout)
        .to.include('Dashboard perses-dev/etcd-overview unchanged')
        .and.include('Dashboard perses-dev/perses-dashboard-sample created');
      const tagged = await srv.api('GET', '/api/v1/projects/demo/dashboards/tagged-dashboard');
      expect(tagged.status).to.equal(200);
      expect(tagged.body.metadata.tags).to.deep.equal(['HIGH_SEVERITY', 'OnCall']);
    });
  });

  describe('lint: the same answers as the server', () => {
    before(function () {
      skipWithoutCorpus(this, 'corpus');
    });
    const EXPECTED_INVALID: Record<string, string> = {
      'perses/internal/api/validate/testdata/datasource_direct_2_invalid.json': 'spec.plugin.spec.directUrl',
      'perses/internal/api/plugin/migrate/testdata/non-reg/cue-marshal/dashboards/simple-perses.json': 'metadata.name',
      'poc-perses-dac/output.yaml': 'metadata.name',
    };
    const lintJson = async (args: string[]) => {
      const r = await run(['lint', '-o', 'json', ...args]);
      return { r, report: JSON.parse(r.stdout) as { valid: boolean; message?: string; details?: { path: string; message: string }[] }[] };
    };

    for (const [file, path] of Object.entries(EXPECTED_INVALID)) {
      it(`${file}: rejected offline and online, naming ${path}, with the server's details`, async () => {
        const full = join(CORPUS, file);
        const offline = await lintJson(['-f', full]);
        expect(offline.r.code, show(offline.r)).to.equal(1);
        expect(offline.report.every((x) => !x.valid)).to.equal(true);
        for (const x of offline.report) expect(x.details!.map((d) => d.path)).to.include(path);
        const online = await lintJson(['-f', full, '--online']);
        expect(online.r.code, show(online.r)).to.equal(1);
        expect(online.report, 'offline = online').to.deep.equal(offline.report);
        const text = await run(['lint', '-f', full]);
        expect(text.stderr).to.include(path).and.include(full);
      });
    }

    it('hand-made broken resources: offline lint reports exactly what POST /api/validate answers', async () => {
      const f = join(tmp.path, 'broken.yaml');
      const docs = [
        'kind: Dashboard\nmetadata: {name: d1}\nspec:\n  duration: 5x\n  panels:\n    a: {kind: Panel, spec: {display: {name: a}, plugin: {kind: NopeChart, spec: {}}}}\n  layouts:\n    - kind: Grid\n      spec: {items: [{x: 0, y: 0, width: 1, height: 1, content: {$ref: "#/spec/panels/missing"}}]}\n',
        'kind: Datasource\nmetadata: {name: ds1}\nspec: {default: false, plugin: {kind: PrometheusDatasource, spec: {directUrl: 42}}}\n',
        'kind: Variable\nmetadata: {name: "bad name"}\nspec: {kind: TextVariable, spec: {value: x}}\n',
        'kind: Role\nmetadata: {name: r1}\nspec: {permissions: [{actions: [read], scopes: [GlobalSecret]}]}\n',
        'kind: Folder\nmetadata: {name: fine}\nspec: {}\n',
      ];
      writeFileSync(f, docs.join('---\n'));
      const offline = await lintJson(['-f', f]);
      expect(offline.r.code, show(offline.r)).to.equal(1);
      expect(offline.report.map((x) => x.valid)).to.deep.equal([false, false, false, false, true]);
      const online = await lintJson(['-f', f, '--online']);
      expect(online.report).to.deep.equal(offline.report);
      expect(offline.report[0].details!.map((d) => d.path)).to.include.members(['spec.panels.a.spec.plugin.kind', 'spec.duration']);
    });

    it('an unknown kind is reported, and a valid directory passes (exit 0)', async () => {
      const game = await run(['lint', '-f', join(CORPUS, 'perses/internal/cli/test/sample_resources/unknown_resource.json')]);
      expect(game.code).to.equal(1);
      expect(game.stderr).to.include('kind "game" is not a dashplane kind');
      const ok = await run(['lint', '-f', join(CORPUS, 'community-mixins/examples/dashboards/perses/kubernetes')]);
      expect(ok.code, show(ok)).to.equal(0);
      expect(ok.stdout).to.match(/^\d+ resource\(s\) checked, 0 invalid$/m);
    });
  });
});

describe('dashctl with authentication on', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let cfg: string;
  const run = (args: string[], o?: { env?: Record<string, string>; input?: string }) => dashctl(cfg, args, o);

  before(async () => {
    srv = await startTestServer({ env: { ...AUTH_ENV, DASHPLANE_SECURITY_AUTHENTICATION_ACCESS_TOKEN_TTL: '2s' } });
    tmp = tempDir('dashctl-auth-');
    cfg = join(tmp.path, 'config.json');
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('login with a password (read from /api/config first), whoami, config shows tokens, without a terminal asks for -u/-p', async () => {
    const noTty = await run(['login', srv.url]);
    expect(noTty.code, show(noTty)).to.equal(1);
    expect(noTty.stderr).to.include('-u NAME and --password-stdin');
    const wrong = await run(['login', srv.url, '-u', 'admin', '--password', 'nope']);
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.include('wrong login or password');
    expect(wrong.stderr, 'in words, not as an HTTP status').to.equal(
      `error: wrong login or password for "admin" at ${srv.url}; nothing was saved\n`,
    );
    const r = await run(['login', srv.url, '-u', 'admin', '--password', 'admin-password']);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout).to.include('as admin');
    expect(statSync(cfg).mode & 0o777).to.equal(0o600);
    const saved = savedContext(cfg);
    expect(saved.accessToken).to.be.a('string');
    expect(saved.refreshToken).to.be.a('string');
    const who = await run(['whoami']);
    expect(who.stdout.trim(), show(who)).to.equal('admin');
  });

  it('refreshes the expired access token during an apply (16 requests in flight) and saves the new pair', async () => {
    // Tokens are accepted up to 30 s past their expiry (clock skew): rather than wait for that,
    // the saved access token is replaced by the same claims signed with the server's key, expired
    // a minute ago (the key is the one the server generated in its data directory).
    const saved = savedContext(cfg);
    const nowS = Math.floor(Date.now() / 1000);
    const claims = JSON.parse(Buffer.from(saved.accessToken!.split('.')[1], 'base64url').toString('utf8'));
    const key = createSecretKey(loadKeyRing({ dataDir: srv.dataDir }).accessTokenKey);
    const expired = jwt.sign({ ...claims, iat: nowS - 120, nbf: nowS - 120, exp: nowS - 60 }, key, {
      algorithm: 'HS512',
      noTimestamp: true,
    });
    const file = JSON.parse(readFileSync(cfg, 'utf8'));
    file.contexts[file.currentContext].accessToken = expired;
    writeFileSync(cfg, JSON.stringify(file), { mode: 0o600 });
    expect((await srv.api('GET', '/api/v1/user/whoami', undefined, { authorization: `Bearer ${expired}` })).status).to.equal(401);
    const before = savedContext(cfg);
    const dir = join(tmp.path, 'many');
    mkdirSync(dir, { recursive: true });
    const folders = Array.from({ length: 50 }, (_, i) => `kind: Folder\nmetadata: {name: f${i}}\nspec: {}\n`);
    writeFileSync(join(dir, 'folders.yaml'), folders.join('---\n'));
    const r = await run(['apply', '-f', dir, '-p', 'team', '--create-project']);
    expect(r.code, show(r)).to.equal(0);
    expect(summary(r)).to.deep.equal(counts(51, 0, 0));
    const after = savedContext(cfg);
    expect(after.refreshToken).to.not.equal(before.refreshToken);
    expect(after.accessToken).to.not.equal(before.accessToken);
    expect(statSync(cfg).mode & 0o777).to.equal(0o600);
  });

  it('get --watch outlives its access token: the stream the server ends at the expiry is opened again from its revision, with a refreshed token', async () => {
    await srv.api(
      'POST',
      '/api/v1/projects/team/folders',
      { kind: 'Folder', metadata: { name: 'before-expiry' }, spec: {} },
      bearer(await loginAdmin(srv)),
    );
    const child: ChildProcess = spawn(process.execPath, [BIN, 'get', 'folders', '-p', 'team', '--prefix', 'before-expiry', '--watch'], {
      env: { ...process.env, DASHCTL_CONFIG: cfg, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    try {
      await waitFor('the initial ADDED event', () => /ADDED\s+before-expiry/.test(out), 20_000);
      // the access tokens of this server live 2 s: the one the watch opened with has expired by then
      const exp = JSON.parse(Buffer.from(savedContext(cfg).accessToken!.split('.')[1], 'base64url').toString('utf8')).exp * 1000;
      await waitFor('the access token to expire', () => Date.now() > exp + 500, 10_000);
      await srv.api(
        'PUT',
        '/api/v1/projects/team/folders/before-expiry',
        { kind: 'Folder', metadata: { name: 'before-expiry' }, spec: { display: { name: 'after' } } },
        bearer(await loginAdmin(srv)),
      );
      await waitFor(`the change made after the expiry (${out})`, () => /MODIFIED\s+before-expiry/.test(out), 20_000);
      expect(child.exitCode, out).to.equal(null);
      expect(out).to.not.match(/ERROR|starts over/);
    } finally {
      child.kill();
    }
  });

  it('a rejected access token is refreshed with the rotated refresh token (the session was not revoked by a replay)', async () => {
    const saved = savedContext(cfg);
    const [h, p] = saved.accessToken!.split('.');
    // written as a dashctl of before contexts did: read as the context "default"
    writeFileSync(cfg, JSON.stringify({ ...saved, accessToken: `${h}.${p}.forged-signature` }), { mode: 0o600 });
    const again = await run(['apply', '-f', join(tmp.path, 'many'), '-p', 'team']);
    expect(summary(again), show(again)).to.deep.equal(counts(0, 0, 50));
    const after = savedContext(cfg);
    expect(after.refreshToken).to.not.equal(saved.refreshToken);
    // A refresh token used twice would have revoked the session: the new pair still works.
    expect((await srv.api('GET', '/api/v1/projects/team', undefined, { authorization: `Bearer ${after.accessToken}` })).status).to.equal(
      200,
    );
  });

  it("login -p: a project the user cannot read is refused (nothing saved) unless the project list holds it; a viewer's diff reports what apply would refuse (exit 2)", async () => {
    const a = bearer(await loginAdmin(srv));
    const post = async (path: string, body: unknown) => {
      const res = await srv.api('POST', path, body, a);
      expect(res.status, `${path}: ${res.text}`).to.equal(200);
    };
    for (const p of ['carol-team', 'hidden']) await post('/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} });
    await post('/api/v1/users', { kind: 'User', metadata: { name: 'carol' }, spec: { nativeProvider: { password: 'carol-password' } } });
    await post('/api/v1/projects/carol-team/rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'carol' },
      spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'carol' }] },
    });
    const carol = join(tmp.path, 'carol.json');
    for (const project of ['nope', 'hidden']) {
      const r = await dashctl(carol, ['login', srv.url, '-u', 'carol', '--password-stdin', '-p', project], { input: 'carol-password\n' });
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r))
        .to.include(`project "${project}" does not exist or you cannot read it; nothing was saved`)
        .and.not.include('give a password');
      expect(existsSync(carol), 'nothing saved').to.equal(false);
    }
    const ok = await dashctl(carol, ['login', srv.url, '-u', 'carol', '--password-stdin', '-p', 'carol-team'], {
      input: 'carol-password\n',
    });
    expect(ok.code, show(ok)).to.equal(0);
    expect(savedContext(carol).project).to.equal('carol-team');

    const manifest = JSON.stringify({ kind: 'Folder', metadata: { name: 'mine' }, spec: {} });
    const diff = await dashctl(carol, ['diff', '-f', '-'], { input: manifest });
    expect(diff.code, show(diff)).to.equal(2);
    expect(diff.stderr, show(diff))
      .to.include('Folder carol-team/mine: user "carol" may not create Folder in project "carol-team"')
      .and.include('apply would refuse 1 object(s)');

    // an admin who gave a password is not told to give one
    const admin = join(tmp.path, 'admin-nope.json');
    const nope = await dashctl(admin, ['login', srv.url, '-u', 'admin', '--password-stdin', '-p', 'nope'], { input: 'admin-password\n' });
    expect(nope.code, show(nope)).to.equal(1);
    expect(nope.stderr, show(nope))
      .to.include(`project "nope" does not exist on ${srv.url}; nothing was saved`)
      .and.not.include('give a password');
    expect(existsSync(admin)).to.equal(false);
  });

  it('--token logs in with a given token; logout revokes the session and forgets the tokens', async () => {
    const r = await run(['logout']);
    expect(r.code, show(r)).to.equal(0);
    expect(savedContext(cfg).accessToken).to.equal(undefined);
    const who = await run(['whoami']);
    expect(who.code).to.equal(1);
    expect(who.stderr).to.include('dashctl login');
    const login = await srv.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' });
    const t = await run(['login', srv.url, '--token', login.body.access_token]);
    expect(t.code, show(t)).to.equal(0);
    expect(t.stdout).to.include('as admin');
    // (the token lives 2 s on this server, so it is only checked as saved)
    expect(savedContext(cfg).accessToken).to.equal(login.body.access_token);
  });
});

/**
 * The external-provider logins, against a stand-in for the server's provider routes (the
 * provider itself is dashplane's concern, tested with the server): what dashctl sends, how it
 * polls the device-code token endpoint (authorization_pending, slow_down) and what it saves.
 */
describe('dashctl login through an identity provider (device code, client credentials)', function () {
  this.timeout(60_000);
  let stub: import('node:http').Server;
  let url: string;
  let tmp: ReturnType<typeof tempDir>;
  const seen: { path: string; auth?: string | undefined; body: string; at: number }[] = [];
  let pending = 2;

  before(async () => {
    const http = await import('node:http');
    stub = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ path: req.url!, auth: req.headers.authorization, body, at: Date.now() });
        const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
        const tokens = (sub: string) => ({
          access_token: `e30.${Buffer.from(JSON.stringify({ sub })).toString('base64url')}.sig`,
          token_type: 'Bearer',
          refresh_token: `r-${sub}`,
          expiry: '2099-01-01T00:00:00Z',
          expires_in: 900,
        });
        if (req.url === '/api/config')
          return json(200, {
            security: {
              enable_auth: true,
              authentication: {
                providers: {
                  enable_native: false,
                  oidc: [{ slug_id: 'corp', name: 'Corp' }],
                  oauth: [{ slug_id: 'forge', name: 'Forge' }],
                },
              },
            },
          });
        if (req.url === '/api/auth/providers/oidc/corp/device/code')
          return json(200, {
            device_code: 'dev-123',
            user_code: 'WXYZ-1234',
            verification_uri: 'https://sso.example/device',
            expires_in: 60,
            interval: 1,
          });
        if (req.url === '/api/auth/providers/oidc/corp/token') {
          const form = new URLSearchParams(body);
          if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:device_code' || form.get('device_code') !== 'dev-123')
            return json(400, { error: 'invalid_request' });
          if (pending-- > 0) return json(400, { error: 'authorization_pending', error_description: 'not yet' });
          return json(200, tokens('alice'));
        }
        if (req.url === '/api/auth/providers/oauth/forge/token') {
          if (
            new URLSearchParams(body).get('grant_type') !== 'client_credentials' ||
            req.headers.authorization !== `Basic ${Buffer.from('ci-job:s3cret').toString('base64')}`
          )
            return json(400, { error: 'invalid_client' });
          return json(200, tokens('ci-job'));
        }
        json(404, { message: 'not found' });
      });
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(stub.address() as import('node:net').AddressInfo).port}`;
    tmp = tempDir('dashctl-oidc-');
  });
  after(async () => {
    await new Promise((r) => stub?.close(r));
    tmp?.remove();
  });

  it('device code: prints the verification URL and user code, polls at the interval until approved, saves the tokens', async () => {
    const cfg = join(tmp.path, 'device.json');
    const r = await dashctl(cfg, ['login', url, '--provider', 'corp']);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stderr).to.include('https://sso.example/device').and.include('WXYZ-1234');
    expect(r.stdout).to.include('as alice');
    const polls = seen.filter((s) => s.path.endsWith('/corp/token'));
    expect(polls).to.have.length(3);
    for (let i = 1; i < polls.length; i++) expect(polls[i].at - polls[i - 1].at).to.be.at.least(900);
    expect(savedContext(cfg)).to.include({ url, refreshToken: 'r-alice' });
    expect(statSync(cfg).mode & 0o777).to.equal(0o600);
  });

  it('client credentials: HTTP Basic with the client id and secret, form grant_type=client_credentials', async () => {
    const cfg = join(tmp.path, 'cc.json');
    const r = await dashctl(cfg, ['login', url, '--provider', 'forge', '--client-id', 'ci-job', '--client-secret', 's3cret']);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout).to.include('as ci-job');
    const unknown = await dashctl(cfg, ['login', url, '--provider', 'nope']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('no identity provider "nope"').and.include('corp, forge');
    const native = await dashctl(cfg, ['login', url, '-u', 'a', '--password', 'b']);
    expect(native.stderr).to.include('native login is disabled');
  });
});
