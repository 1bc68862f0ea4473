/**
 * The GitOps loop end to end, as a pipeline runs it: a real Git repository of manifests (the
 * examples, a Secret and a User among them), `dashctl diff` exit codes at each commit (add, change,
 * a secret value, remove), `apply --prune` with and without --yes and without a terminal (plan,
 * then all or nothing), pruned projects and what they hold, an edit by another field manager
 * between two applies, --force-conflicts, and the one project rule.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctl, show, summary, type Run } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

const folder = (name: string, title = name) =>
  `kind: Folder\nmetadata:\n  name: ${name}\n  project: demo\n  tags: [gitops]\nspec:\n  display:\n    name: ${title}\n  items: []\n`;

describe('the GitOps loop: a real Git repository, diff at every commit, plan then all or nothing', function () {
  this.timeout(180_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let repo: string;
  const run = (args: string[]): Promise<Run> => dashctl(join(tmp.path, 'config.json'), args);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', '-C', repo, ...args], { encoding: 'utf8' });
  const commit = (message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
  };
  const edit = (file: string, from: string, to: string) => {
    const path = join(repo, file);
    const text = readFileSync(path, 'utf8');
    expect(text, `${file} holds ${from}`).to.include(from);
    writeFileSync(path, text.replace(from, to));
  };
  const status = async (path: string) => (await srv.api('GET', path)).status;

  before(async () => {
    srv = await startTestServer();
    tmp = tempDir('gitops-loop-');
    repo = join(tmp.path, 'repo');
    mkdirSync(join(repo, 'team'), { recursive: true });
    cpSync(join(PACKAGE_ROOT, 'examples', 'manifests'), join(repo, 'base'), { recursive: true });
    writeFileSync(join(repo, 'team', 'a.yaml'), folder('team-a'));
    writeFileSync(join(repo, 'team', 'b.yaml'), folder('team-b'));
    git('init', '-q');
    commit('first manifests');
    expect((await run(['login', srv.url])).code).to.equal(0);
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('commit 1: diff shows everything new (exit 1); apply creates it; diff is then clean (exit 0), Secret and User included', async () => {
    const before = await run(['diff', '-f', repo]);
    expect(before.code, show(before)).to.equal(1);
    expect(before.stdout).to.include('--- /dev/null');
    const applied = await run(['apply', '-f', repo]);
    expect(applied.code, show(applied)).to.equal(0);
    expect(applied.stdout).to.include('plan: create 21, configure 0, unchanged 0, prune 0');
    expect(summary(applied)).to.deep.equal({ created: 21, configured: 0, unchanged: 0, pruned: 0, failed: 0 });
    const after = await run(['diff', '-f', repo]);
    expect(after.code, show(after)).to.equal(0);
    expect(after.stdout).to.equal('');
  });

  it('commit 2: a changed title is a diff (exit 1) and one configured object', async () => {
    edit('base/dashboard.yaml', 'name: Node overview', 'name: Node overview (v2)');
    commit('retitle');
    const diff = await run(['diff', '-f', repo]);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include('+    name: Node overview (v2)').and.include('-    name: Node overview\n');
    const applied = await run(['apply', '-f', repo]);
    expect(summary(applied), show(applied)).to.deep.equal({ created: 0, configured: 1, unchanged: 20, pruned: 0, failed: 0 });
    expect((await run(['diff', '-f', repo])).code).to.equal(0);
  });

  it('commit 3: a new secret value is seen by diff (never shown) and written by apply; then clean again', async () => {
    edit('base/secret.yaml', 's3cr3t-Pr0m-passw0rd', 'rotated-Pr0m-passw0rd');
    commit('rotate the password');
    const diff = await run(['diff', '-f', repo]);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include('secret values differ').and.not.include('rotated-Pr0m-passw0rd');
    const applied = await run(['apply', '-f', repo]);
    expect(summary(applied), show(applied)).to.deep.include({ configured: 1, failed: 0 });
    expect((await run(['diff', '-f', repo])).code).to.equal(0);
  });

  it('commit 4: a file added and a tagged one removed; diff --prune shows both; apply --prune without --yes and without a terminal writes nothing; with --yes it does all', async () => {
    writeFileSync(join(repo, 'team', 'c.yaml'), folder('team-c'));
    rmSync(join(repo, 'team', 'b.yaml'));
    commit('add c, remove b');
    const plain = await run(['diff', '-f', repo]);
    expect(plain.code, show(plain)).to.equal(1);
    expect(plain.stdout).to.include('team-c').and.not.include('# PRUNE');
    const diff = await run(['diff', '-f', repo, '--prune', '--prune-tag', 'gitops']);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include('# PRUNE: Folder/demo/team-b').and.include('+++ /dev/null').and.include('-    name: team-b');

    const refused = await run(['apply', '-f', repo, '--prune', '--prune-tag', 'gitops']);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stdout).to.include('plan: create 1, configure 0, unchanged 20, prune 1').and.include('- Folder demo/team-b (prune)');
    expect(refused.stdout).to.include(
      'created 0, configured 0, unchanged 0, pruned 0, failed 0 (nothing applied: the plan deletes 1 object(s); run again with --yes to carry it out)',
    );
    expect(await status('/api/v1/projects/demo/folders/team-c'), 'the create was not carried out either').to.equal(404);
    expect(await status('/api/v1/projects/demo/folders/team-b')).to.equal(200);

    const done = await run(['apply', '-f', repo, '--prune', '--prune-tag', 'gitops', '--yes']);
    expect(done.code, show(done)).to.equal(0);
    expect(summary(done)).to.deep.equal({ created: 1, configured: 0, unchanged: 20, pruned: 1, failed: 0 });
    expect(await status('/api/v1/projects/demo/folders/team-c')).to.equal(200);
    expect(await status('/api/v1/projects/demo/folders/team-b')).to.equal(404);
    expect((await run(['diff', '-f', repo, '--prune', '--prune-tag', 'gitops'])).code).to.equal(0);
    // the examples do not carry the tag (a warning says so); the team folders all do
    expect(done.stderr).to.include('do not carry tag "gitops"');
    for (const r of [refused, done, diff])
      expect(r.stderr.split('do not carry tag').length - 1, `the warning once: ${show(r)}`).to.equal(1);
    const tagged = await run(['diff', '-f', join(repo, 'team'), '--prune', '--prune-tag', 'gitops']);
    expect(tagged.code, show(tagged)).to.equal(0);
    expect(tagged.stderr).to.not.include('do not carry tag');
  });

  it('commit 5: the last Variable manifest leaves the input: apply --prune deletes the tagged Variable (every kind carrying the tag is pruned); --prune-kind folder leaves it', async () => {
    const team = join(repo, 'team');
    writeFileSync(
      join(team, 'var.yaml'),
      'kind: Variable\nmetadata:\n  name: team-var\n  project: demo\n  tags: [gitops]\nspec:\n  kind: TextVariable\n  spec: {value: x}\n',
    );
    commit('a variable');
    const added = await run(['apply', '-f', team, '--prune', '--prune-tag', 'gitops', '--yes']);
    expect(summary(added), show(added)).to.deep.equal({ created: 1, configured: 0, unchanged: 2, pruned: 0, failed: 0 });
    rmSync(join(team, 'var.yaml'));
    commit('the variable goes: no Variable is left in the input');

    const narrowed = await run(['diff', '-f', team, '--prune', '--prune-tag', 'gitops', '--prune-kind', 'folder']);
    expect(narrowed.code, show(narrowed)).to.equal(0);
    const diff = await run(['diff', '-f', team, '--prune', '--prune-tag', 'gitops']);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include('# PRUNE: Variable/demo/team-var carries tag "gitops" and is not in the input');
    const refused = await run(['apply', '-f', team, '--prune', '--prune-tag', 'gitops']);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stdout).to.include('plan: create 0, configure 0, unchanged 2, prune 1').and.include('- Variable demo/team-var (prune)');
    const done = await run(['apply', '-f', team, '--prune', '--prune-tag', 'gitops', '--yes']);
    expect(summary(done), show(done)).to.deep.equal({ created: 0, configured: 0, unchanged: 2, pruned: 1, failed: 0 });
    expect(await status('/api/v1/projects/demo/variables/team-var')).to.equal(404);
    expect(await status('/api/v1/projects/demo/variables/job'), 'the untagged Variable of the examples stays').to.equal(200);
    const misuse = await run(['apply', '-f', team, '--prune-kind', 'variable']);
    expect(misuse.code, show(misuse)).to.equal(1);
    expect(misuse.stderr).to.include('--prune-kind narrows what --prune deletes: add --prune --prune-tag TAG');
  });

  it('an edit in the web UI between two applies: the next apply refuses and writes nothing, naming who; --force-conflicts takes it back', async () => {
    const path = '/api/v1/projects/demo/folders/team-a';
    const live = (await srv.api('GET', path)).body;
    const ui = await srv.api(
      'PUT',
      path,
      { ...live, spec: { ...live.spec, display: { name: 'renamed in the UI' } } },
      { 'x-dashplane-manager': 'web-ui' },
    );
    expect(ui.status, ui.text).to.equal(200);
    edit('team/a.yaml', 'name: team-a\n  items', 'name: Team A\n  items');
    writeFileSync(join(repo, 'team', 'd.yaml'), folder('team-d'));
    commit('retitle a, add d');

    const diff = await run(['diff', '-f', repo]);
    expect(diff.code).to.equal(1);
    expect(diff.stdout).to.include('# CONFLICT: Folder/demo/team-a changed by anonymous through web-ui');
    const refused = await run(['apply', '-f', repo]);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stderr).to.include('Folder demo/team-a: changed by anonymous through web-ui').and.include('--force-conflicts');
    expect(summary(refused)).to.deep.equal({ created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 1 });
    expect(await status('/api/v1/projects/demo/folders/team-d'), 'all or nothing: the new folder waits too').to.equal(404);
    expect((await srv.api('GET', path)).body.spec.display.name).to.equal('renamed in the UI');

    const forced = await run(['apply', '-f', repo, '--force-conflicts']);
    expect(forced.code, show(forced)).to.equal(0);
    expect(summary(forced)).to.deep.include({ created: 1, configured: 1, failed: 0 });
    expect((await srv.api('GET', path)).body.spec.display.name).to.equal('Team A');
    expect((await run(['diff', '-f', repo])).code).to.equal(0);
  });

  it('one project rule: -p contradicting metadata.project is an error before anything is written; --force-project moves; objects without a project take -p', async () => {
    const wrong = await run(['apply', '-f', join(repo, 'team'), '-p', 'elsewhere', '--create-project']);
    expect(wrong.code, show(wrong)).to.equal(1);
    expect(wrong.stderr)
      .to.include(`${join(repo, 'team', 'a.yaml')}: Folder demo/team-a says metadata.project "demo" but -p says "elsewhere"`)
      .and.include('--force-project');
    expect(wrong.stdout).to.include('nothing applied');
    expect(await status('/api/v1/projects/elsewhere'), 'no project created that nobody named').to.equal(404);

    const moved = await run(['apply', '-f', join(repo, 'team', 'a.yaml'), '-p', 'elsewhere', '--force-project', '--create-project']);
    expect(moved.code, show(moved)).to.equal(0);
    expect(await status('/api/v1/projects/elsewhere/folders/team-a')).to.equal(200);

    const loose = join(tmp.path, 'loose.yaml');
    writeFileSync(loose, 'kind: Folder\nmetadata:\n  name: no-project\nspec: {}\n');
    const filled = await run(['apply', '-f', loose, '-p', 'elsewhere']);
    expect(filled.code, show(filled)).to.equal(0);
    expect(await status('/api/v1/projects/elsewhere/folders/no-project')).to.equal(200);
  });

  it('pruning tagged projects: the plan counts what each holds; a project that objects of the input are in is never pruned', async () => {
    const dir = join(tmp.path, 'projects');
    mkdirSync(dir);
    const tagged = (name: string) => ({ kind: 'Project', metadata: { name, tags: ['teams'] }, spec: {} });
    const plainFolder = (project: string, name: string) => ({
      kind: 'Folder',
      metadata: { name, project },
      spec: { display: { name }, items: [] },
    });
    for (const p of ['old-team', 'used']) expect((await srv.api('POST', '/api/v1/projects', tagged(p))).status).to.equal(200);
    for (const f of ['one', 'two'])
      expect((await srv.api('POST', '/api/v1/projects/old-team/folders', plainFolder('old-team', f))).status).to.equal(200);
    // the input: one tagged project, and a folder in "used", a tagged project the input does not list
    writeFileSync(join(dir, 'kept.yaml'), 'kind: Project\nmetadata:\n  name: kept\n  tags: [teams]\nspec: {}\n');
    writeFileSync(
      join(dir, 'folder.yaml'),
      'kind: Folder\nmetadata:\n  name: from-git\n  project: used\nspec:\n  display:\n    name: from-git\n  items: []\n',
    );

    const diff = await run(['diff', '-f', dir, '--prune', '--prune-tag', 'teams']);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout)
      .to.include(
        '# PRUNE: Project/old-team carries tag "teams" and is not in the input; apply --prune would delete it, with the 2 object(s) in it: folders 2',
      )
      .and.not.include('Project/used');
    const refused = await run(['apply', '-f', dir, '--prune', '--prune-tag', 'teams']);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stdout)
      .to.include('plan: create 2, configure 0, unchanged 0, prune 1')
      .and.include('- Project old-team (prune, with the 2 object(s) in it: folders 2)');
    expect(refused.stdout).to.include(
      '(nothing applied: the plan deletes 1 object(s) and the 2 object(s) inside the pruned project(s); run again with --yes to carry it out)',
    );
    // the folder lacks the tag: it is applied, but would never be pruned
    expect(refused.stderr).to.include(
      'warning: 1 object(s) of the input do not carry tag "teams" (Folder used/from-git): --prune never deletes them',
    );

    const done = await run(['apply', '-f', dir, '--prune', '--prune-tag', 'teams', '--yes']);
    expect(done.code, show(done)).to.equal(0);
    expect(summary(done)).to.deep.equal({ created: 2, configured: 0, unchanged: 0, pruned: 1, failed: 0 });
    expect(await status('/api/v1/projects/used/folders/from-git'), 'the folder just applied is still there').to.equal(200);
    expect(await status('/api/v1/projects/old-team')).to.equal(404);
    expect((await run(['diff', '-f', dir, '--prune', '--prune-tag', 'teams'])).code).to.equal(0);
  });

  it("a User's password in the older spec.password form: clean after apply, a rotation is seen by diff and written by apply", async () => {
    const file = join(tmp.path, 'old-user.yaml');
    const user = (password: string) => `kind: User\nmetadata:\n  name: old-form\nspec:\n  firstName: Old\n  password: ${password}\n`;
    writeFileSync(file, user('first-Passw0rd'));
    expect(summary(await run(['apply', '-f', file]))).to.deep.include({ created: 1, failed: 0 });
    const clean = await run(['diff', '-f', file]);
    expect(clean.code, show(clean)).to.equal(0);
    expect(summary(await run(['apply', '-f', file]))).to.deep.include({ unchanged: 1 });
    expect((await srv.api('GET', '/api/v1/users/old-form')).body.metadata.version).to.equal(0);

    writeFileSync(file, user('rotated-Passw0rd'));
    const diff = await run(['diff', '-f', file]);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include('secret values differ').and.not.include('rotated-Passw0rd');
    expect(summary(await run(['apply', '-f', file]))).to.deep.include({ configured: 1, failed: 0 });
    expect((await srv.api('GET', '/api/v1/users/old-form')).body.metadata.version).to.equal(1);
    expect((await run(['diff', '-f', file])).code).to.equal(0);
  });
});
