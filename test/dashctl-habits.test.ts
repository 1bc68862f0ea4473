import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctl, show } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

/**
 * dashctl's kubectl habits, end to end (dashctl run in process against a real server):
 * exact get, -o name, export with describe, versions, whoami without auth, kind suggestions,
 * history with the current version and diffs, edit in $EDITOR, deleting a project.
 */

const VERSION = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version as string;

const dashboard = (name: string, project: string, display = name) => ({
  kind: 'Dashboard',
  metadata: { name, project },
  spec: { display: { name: display }, duration: '1h', panels: {}, layouts: [] },
});

describe('dashctl kubectl habits (end to end)', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let cfg: string;
  const run = (args: string[], o?: { env?: Record<string, string>; input?: string }) => dashctl(cfg, args, o);
  const live = async (path: string) => (await srv.api('GET', path)).body;

  before(async () => {
    srv = await startTestServer();
    tmp = tempDir('dashctl-habits-');
    cfg = join(tmp.path, 'config.json');
    expect((await run(['login', srv.url])).code).to.equal(0);
    for (const p of ['team-a', 'team-x']) await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} });
    for (const d of [
      dashboard('cpu', 'team-a', 'CPU'),
      dashboard('cpu2', 'team-a'),
      dashboard('one', 'team-x'),
      dashboard('two', 'team-x'),
    ]) {
      expect((await srv.api('POST', `/api/v1/projects/${d.metadata.project}/dashboards`, d)).status).to.equal(200);
    }
    await srv.api('POST', '/api/v1/projects/team-x/folders', { kind: 'Folder', metadata: { name: 'f' }, spec: {} });
    await srv.api('PUT', '/api/v1/projects/team-x/dashboards/one', dashboard('one', 'team-x', 'One, second version'));
    await srv.api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'prom' },
      spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://127.0.0.1:9090' } } },
    });
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('get KIND NAME is exact: one object is itself in JSON/YAML, a miss is NotFound (exit 1); --prefix lists', async () => {
    const one = await run(['get', 'dash', 'cpu', '-p', 'team-a', '-o', 'json']);
    expect(one.code, show(one)).to.equal(0);
    expect(JSON.parse(one.stdout)).to.include({ kind: 'Dashboard' }).and.have.nested.property('metadata.name', 'cpu');
    const yaml = await run(['get', 'dash', 'cpu', '-p', 'team-a', '-o', 'yaml']);
    expect(yaml.stdout).to.match(/^kind: Dashboard\n/);
    const miss = await run(['get', 'dash', 'cp', '-p', 'team-a']);
    expect(miss.code, show(miss)).to.equal(1);
    expect(miss.stdout).to.equal('');
    expect(miss.stderr).to.include('Dashboard "cp" not found in project "team-a"').and.include('dashctl get dashboards -p team-a');
    const prefixed = await run(['get', 'dash', '--prefix', 'cp', '-p', 'team-a', '-o', 'json']);
    expect(JSON.parse(prefixed.stdout).map((o: any) => o.metadata.name)).to.deep.equal(['cpu', 'cpu2']);
    const two = await run(['get', 'dash', 'cpu', 'cpu2', '-p', 'team-a', '-o', 'json']);
    expect(
      JSON.parse(two.stdout).map((o: any) => o.metadata.name),
      'two names: a list',
    ).to.deep.equal(['cpu', 'cpu2']);
    const across = await run(['get', 'dash', 'cpu', '-A']);
    expect(across.code).to.equal(1);
    expect(across.stderr).to.include('pass -p PROJECT instead of -A');
  });

  it('-o name prints kind/project/name (kind/name for global kinds), also with -A', async () => {
    expect((await run(['get', 'dash', 'cpu', '-p', 'team-a', '-o', 'name'])).stdout).to.equal('dashboard/team-a/cpu\n');
    const all = await run(['get', 'dashboards', '-A', '-o', 'name']);
    expect(all.stdout.split('\n').filter(Boolean)).to.deep.equal([
      'dashboard/team-a/cpu',
      'dashboard/team-a/cpu2',
      'dashboard/team-x/one',
      'dashboard/team-x/two',
    ]);
    expect((await run(['get', 'gds', '-o', 'name'])).stdout).to.equal('globaldatasource/prom\n');
  });

  it('an unknown kind suggests the nearest one', async () => {
    const r = await run(['get', 'dashbords']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include('unknown kind "dashbords"; did you mean dashboards?');
    const file = join(tmp.path, 'typo.yaml');
    writeFileSync(file, 'kind: Dashbaord\nmetadata: {name: x, project: team-a}\nspec: {}\n');
    const lint = await run(['lint', '-f', file]);
    expect(lint.code).to.equal(1);
    expect(lint.stderr).to.include('kind "Dashbaord" is not a dashplane kind; did you mean Dashboard?');
  });

  it('describe -o yaml|json is the object without server-owned metadata, and applies again as is', async () => {
    const json = JSON.parse((await run(['describe', 'dash', 'cpu2', '-p', 'team-a', '-o', 'json'])).stdout);
    expect(json.metadata).to.deep.equal({ name: 'cpu2', project: 'team-a' });
    const yaml = await run(['describe', 'dash', 'cpu2', '-p', 'team-a', '-o', 'yaml']);
    expect(yaml.stdout).not.to.match(/createdAt|updatedAt|version/);
    const before = await live('/api/v1/projects/team-a/dashboards/cpu2');
    const file = join(tmp.path, 'export.yaml');
    writeFileSync(file, yaml.stdout);
    expect((await run(['delete', 'dash', 'cpu2', '-p', 'team-a'])).code).to.equal(0);
    const applied = await run(['apply', '-f', file]);
    expect(applied.stdout, show(applied)).to.include('Dashboard team-a/cpu2 created');
    expect((await live('/api/v1/projects/team-a/dashboards/cpu2')).spec).to.deep.equal(before.spec);
  });

  it('--version, version (client and server from /api/v1/health), dashplane --version', async () => {
    expect((await run(['--version'])).stdout.trim()).to.equal(VERSION);
    const v = await run(['version']);
    expect(v.code, show(v)).to.equal(0);
    expect(v.stdout)
      .to.match(new RegExp(`^Client Version: ${VERSION}`, 'm'))
      .and.include(`Server Version: ${VERSION}`)
      .and.include(`at ${srv.url}`);
    const json = JSON.parse((await run(['version', '-o', 'json'])).stdout);
    expect(json.serverVersion.version).to.equal((await live('/api/v1/health')).version);
    const down = await run(['version'], { env: { DASHCTL_URL: 'http://127.0.0.1:9' } });
    expect(down.code).to.equal(1);
    expect(down.stdout).to.include(`Client Version: ${VERSION}`);
    expect(down.stderr).to.include('cannot reach http://127.0.0.1:9');
    const server = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'dist', 'src', 'bin', 'dashplane.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(server.status, server.stderr).to.equal(0);
    expect(server.stdout.trim()).to.equal(VERSION);
  });

  it("kubectl's and percli's options that dashctl spells differently get a hint naming the dashctl option", async () => {
    const cases: [string[], string][] = [
      [['get', 'dash', '-a'], "unknown option '-a'; did you mean -A / --all-projects (every project)?"],
      [['get', 'dash', '--all'], "unknown option '--all'; did you mean -A / --all-projects (every project)?"],
      [['get', 'dash', '--all-namespaces'], "unknown option '--all-namespaces'; did you mean -A / --all-projects (every project)?"],
      [['get', 'dash', '-n', 'team-a'], "unknown option '-n'; did you mean -p / --project <name>"],
      [['apply', '-d', 'dir'], "unknown option '-d'; did you mean -f / --filename <path> (a directory is read recursively)?"],
      [
        ['apply', '--force', '-f', 'dir'],
        "unknown option '--force'; did you mean --force-conflicts (overwrite objects another field manager changed since dashctl applied them) or --force-project",
      ],
      [
        ['apply', '-f', 'dir', '--prune', '--prune-allowlist=core/v1/ConfigMap'],
        "unknown option '--prune-allowlist=core/v1/ConfigMap'; did you mean --prune-kind <kind> (prune only objects of this kind; repeatable)?",
      ],
      [
        ['apply', '-f', 'dir', '--prune', '-l', 'gitops'],
        "unknown option '-l'; did you mean --prune-tag <tag> (objects are selected for pruning by one tag)?",
      ],
    ];
    for (const [args, hint] of cases) {
      const r = await run(args);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.include(hint);
    }
    // no hint where the command has no such option
    const none = await run(['delete', 'dash', 'x', '--force']);
    expect(none.stderr, show(none)).to.equal("error: unknown option '--force'\n");
  });

  it('whoami with authentication off: anonymous, exit 0', async () => {
    const r = await run(['whoami']);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout).to.equal('anonymous (authentication is disabled)\n');
  });

  it('history lists the current version first; --diff A B prints the unified diff (numbers or current)', async () => {
    const h = await run(['history', 'dash', 'one', '-p', 'team-x']);
    expect(h.code, show(h)).to.equal(0);
    const rows = h.stdout.trimEnd().split('\n').slice(1);
    expect(rows.map((r) => r.split(/\s{2,}/)[0])).to.deep.equal(['1 (current)', '0']);
    // every row, the current one included, says who wrote it and through what
    expect(h.stdout.split('\n')[0]).to.match(/^VERSION\s+UPDATED\s+BY\s+THROUGH\s+AGE$/);
    for (const row of rows) expect(row.split(/\s{2,}/)[2], row).to.equal('anonymous');
    for (const row of rows) expect(row.split(/\s{2,}/)[3], row).to.be.oneOf(['api', 'dashctl']);
    const d = await run(['history', 'dash', 'one', '-p', 'team-x', '--diff', '0', 'current']);
    expect(d.code, show(d)).to.equal(0);
    expect(d.stdout).to.include('--- dashboard/team-x/one version 0').and.include('+++ dashboard/team-x/one version 1 (current)');
    expect(d.stdout)
      .to.match(/^-\s+name: one$/m)
      .and.match(/^\+\s+name: One, second version$/m);
    expect(d.stdout).not.to.include('updatedAt');
    const same = await run(['history', 'dash', 'one', '-p', 'team-x', '--diff', '1', 'current']);
    expect(same.stdout).to.include('have the same content');
    const bad = await run(['history', 'dash', 'one', '-p', 'team-x', '--diff', '0']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('--diff takes two versions');
  });

  describe('edit', () => {
    /** An editor: a node script that changes the file as `change` says (its source), logging each call. */
    const editor = (name: string, change: string) => {
      const file = join(tmp.path, `${name}.mjs`);
      const log = join(tmp.path, `${name}.log`);
      writeFileSync(
        file,
        `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';\nconst f = process.argv[2];\nlet text = readFileSync(f, 'utf8');\nappendFileSync(${JSON.stringify(log)}, text + '\\n=====\\n');\n${change}\nwriteFileSync(f, text);\n`,
      );
      return `${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`;
    };
    const version = async () => (await live('/api/v1/projects/team-a/dashboards/cpu')).metadata.version as number;

    it('applies the edited YAML ($EDITOR, else $VISUAL) and says so', async () => {
      const before = await version();
      const r = await run(['edit', 'dash', 'cpu', '-p', 'team-a'], {
        env: { EDITOR: '', VISUAL: editor('rename', "text = text.replace('name: CPU', 'name: CPU usage');") },
      });
      expect(r.code, show(r)).to.equal(0);
      expect(r.stdout).to.equal('Dashboard team-a/cpu edited\n');
      const after = await live('/api/v1/projects/team-a/dashboards/cpu');
      expect(after.spec.display.name).to.equal('CPU usage');
      expect(after.metadata.version).to.equal(before + 1);
    });

    it('an unchanged or emptied file cancels: "Edit cancelled, no changes made", exit 0', async () => {
      const before = await version();
      for (const change of ['', "text = '';", "text = text.split('\\n').filter((l) => l.startsWith('#')).join('\\n');"]) {
        const r = await run(['edit', 'dash', 'cpu', '-p', 'team-a'], { env: { EDITOR: editor('noop', change) } });
        expect(r.code, show(r)).to.equal(0);
        expect(r.stdout).to.equal('Edit cancelled, no changes made.\n');
      }
      expect(await version()).to.equal(before);
    });

    it("a rejected edit reopens with the server's errors as # comments at the top; the fixed edit is saved", async () => {
      const cmd = editor(
        'fix',
        "if (text.startsWith('# The edit could not be saved')) text = text.replace('duration: 5x', 'duration: 2h'); else text = text.replace('duration: 1h', 'duration: 5x');",
      );
      const r = await run(['edit', 'dash', 'cpu', '-p', 'team-a'], { env: { EDITOR: cmd } });
      expect(r.code, show(r)).to.equal(0);
      expect(r.stdout).to.include('edited');
      expect((await live('/api/v1/projects/team-a/dashboards/cpu')).spec.duration).to.equal('2h');
      const log = readFileSync(join(tmp.path, 'fix.log'), 'utf8').split('\n=====\n').filter(Boolean);
      expect(log, 'the editor ran twice').to.have.length(2);
      expect(log[1])
        .to.match(/^# The edit could not be saved/)
        .and.match(/^# +spec\.duration: must be a duration such as/m);
      expect(log[1])
        .to.match(/^ {2}duration: 5x$/m)
        .and.match(/^kind: Dashboard$/m);
    });

    it('saves with If-Match: a change made meanwhile is not overwritten (exit 1, the edit kept)', async () => {
      const sneak = `await fetch(${JSON.stringify(`${srv.url}/api/v1/projects/team-a/dashboards/cpu`)}, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(${JSON.stringify(dashboard('cpu', 'team-a', 'theirs'))}) });\ntext = text.replace(/name: CPU usage/, 'name: mine');`;
      const r = await run(['edit', 'dash', 'cpu', '-p', 'team-a'], { env: { EDITOR: editor('race', sneak) } });
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr).to.include('was changed by someone else').and.include('your edit is kept in');
      expect((await live('/api/v1/projects/team-a/dashboards/cpu')).spec.display.name).to.equal('theirs');
      const kept = /kept in (\S+)/.exec(r.stderr)![1];
      expect(readFileSync(kept, 'utf8')).to.include('name: mine');
      rmSync(dirname(kept), { recursive: true, force: true });
    });
  });

  it('delete project lists what goes with it and needs --yes without a terminal', async () => {
    const refused = await run(['delete', 'project', 'team-x']);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stderr).to.include('Deleting project team-x also deletes').and.include('--yes');
    expect(refused.stderr)
      .to.match(/^ {2}dashboards\s+2$/m)
      .and.match(/^ {2}folders\s+1$/m)
      .and.match(/^ {2}earlier versions\s+1$/m);
    expect((await srv.api('GET', '/api/v1/projects/team-x')).status).to.equal(200);
    expect((await srv.api('GET', '/api/v1/projects/team-x/dashboards/one')).status).to.equal(200);
    const r = await run(['delete', 'project', 'team-x', '--yes']);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout).to.include('Project team-x deleted');
    expect((await srv.api('GET', '/api/v1/projects/team-x')).status).to.equal(404);
    expect((await srv.api('GET', '/api/v1/projects/team-x/dashboards/one')).status).to.equal(404);
    // a project that does not exist: nothing to confirm, the delete says so
    const missing = await run(['delete', 'project', 'team-x']);
    expect(missing.code, show(missing)).to.equal(1);
    expect(missing.stderr).to.include('Project team-x').and.include('not found').and.not.include('--yes');
    const ignored = await run(['delete', 'project', 'team-x', '--ignore-not-found']);
    expect(ignored.code, show(ignored)).to.equal(0);
  });

  it('get -o wide, -o jsonpath=, -o custom-columns= and -l TAG, as kubectl users write them', async () => {
    await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'team-l' }, spec: {} });
    for (const [name, tags] of [
      ['net', ['gitops', 'team=net']],
      ['disk', ['gitops']],
      ['old', ['legacy']],
    ] as const) {
      const d = dashboard(name, 'team-l', name.toUpperCase());
      expect((await srv.api('POST', '/api/v1/projects/team-l/dashboards', { ...d, metadata: { ...d.metadata, tags } })).status).to.equal(
        200,
      );
    }
    const wide = await run(['get', 'dash', '-p', 'team-l', '-o', 'wide']);
    expect(wide.code, show(wide)).to.equal(0);
    expect(wide.stdout.split('\n')[0]).to.match(/^NAME\s+DISPLAY\s+VERSION\s+AGE\s+TAGS\s+UPDATED$/);
    expect(wide.stdout).to.match(/^net\s+NET\s+0\s+\d+[sm]\s+gitops,team=net\s+\d+[sm]$/m);
    const names = await run(['get', 'dash', '-p', 'team-l', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}']);
    expect(names.stdout, show(names)).to.equal('disk\nnet\nold\n');
    const one = await run(['get', 'dash', 'net', '-p', 'team-l', '-o=jsonpath={.metadata.tags[1]}']);
    expect(one.stdout, 'one object named: the object itself').to.equal('team=net');
    const columns = await run([
      'get',
      'dash',
      '-A',
      '-l',
      'gitops',
      '-o',
      'custom-columns=PROJECT:.metadata.project,NAME:.metadata.name,TAGS:.metadata.tags,NOPE:.spec.nope',
    ]);
    expect(columns.stdout, show(columns)).to.match(
      /^PROJECT\s+NAME\s+TAGS\s+NOPE\nteam-l\s+disk\s+gitops\s+<none>\nteam-l\s+net\s+gitops,team=net\s+<none>\n$/,
    );
    const selected = await run(['get', 'dash', '-p', 'team-l', '--selector', 'gitops,!team=net', '-o', 'name']);
    expect(selected.stdout, show(selected)).to.equal('dashboard/team-l/disk\n');
    const none = await run(['get', 'dash', '-p', 'team-l', '-l', 'nothing-has-it']);
    expect(none.code).to.equal(0);
    expect(none.stderr).to.equal('No dashboards found in project team-l.\n');
    for (const [args, message] of [
      [['-o', 'wider'], '-o wider: unknown output format; use table, wide, json, yaml, name, jsonpath=TEMPLATE'],
      [['-o', 'jsonpath={.items[}'], '-o jsonpath={.items[}: unclosed ['],
      [['-l', 'env in (a,b)'], 'is not a tag requirement'],
      [['net', '-l', 'gitops'], 'give either NAME... or -l SELECTOR, not both'],
    ] as const) {
      const r = await run(['get', 'dash', '-p', 'team-l', ...args]);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.include(message);
    }
    const deleted = await run(['delete', 'dash', '-p', 'team-l', '-l', 'legacy']);
    expect(deleted.stdout, show(deleted)).to.equal('Dashboard team-l/old deleted\n');
    expect((await srv.api('GET', '/api/v1/projects/team-l/dashboards/old')).status).to.equal(404);
    expect((await srv.api('GET', '/api/v1/projects/team-l/dashboards/net')).status).to.equal(200);
  });
});
