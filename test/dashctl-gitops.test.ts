/**
 * dashctl as a GitOps tool you can trust, against a real server: a re-apply and a diff right
 * after an apply find nothing to do for every kind (secret values compared by the server), and
 * apply refuses to overwrite what another field manager changed since its last apply.
 */
import { expect } from 'chai';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctl, show, summary, type Run } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

const EXAMPLES = join(PACKAGE_ROOT, 'examples', 'manifests');
const DASHBOARD = '/api/v1/projects/demo/dashboards/node-overview';
const SECRET = '/api/v1/projects/demo/secrets/prometheus-basic-auth';

describe('dashctl GitOps: no-op re-applies, field managers, conflicts', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let dir: string;
  const run = (args: string[]): Promise<Run> => dashctl(join(tmp.path, 'config.json'), args);
  /** The version of every object of the examples, by API path. */
  const versions = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const plural of [
      'projects',
      'dashboards',
      'ephemeraldashboards',
      'folders',
      'playlists',
      'variables',
      'datasources',
      'secrets',
      'roles',
      'rolebindings',
      'globalvariables',
      'globaldatasources',
      'globalsecrets',
      'globalroles',
      'globalrolebindings',
      'users',
    ]) {
      for (const o of (await srv.api('GET', `/api/v1/${plural}`)).body)
        out[`${plural}/${o.metadata.project ?? ''}/${o.metadata.name}`] = o.metadata.version;
    }
    return out;
  };

  before(async () => {
    srv = await startTestServer();
    tmp = tempDir('dashctl-gitops-');
    dir = join(tmp.path, 'manifests');
    cpSync(EXAMPLES, dir, { recursive: true });
    const r = await run(['login', srv.url]);
    expect(r.code, show(r)).to.equal(0);
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('apply, then diff exits 0 and a second apply reports every object unchanged (Secrets, GlobalSecrets and Users included), bumping no version', async () => {
    const first = await run(['apply', '-f', dir]);
    expect(first.code, show(first)).to.equal(0);
    expect(summary(first)).to.deep.include({ created: 19, failed: 0 });
    const before = await versions();
    const diff = await run(['diff', '-f', dir]);
    expect(diff.code, show(diff)).to.equal(0);
    expect(diff.stdout).to.equal('');
    const again = await run(['apply', '-f', dir]);
    expect(again.code, show(again)).to.equal(0);
    expect(summary(again), show(again)).to.deep.equal({ created: 0, configured: 0, unchanged: 19, pruned: 0, failed: 0 });
    expect(again.stdout)
      .to.include('Secret demo/prometheus-basic-auth unchanged')
      .and.include('User alice unchanged')
      .and.include('GlobalSecret prometheus-global-auth unchanged');
    expect(await versions()).to.deep.equal(before);
    // what dashctl wrote is recorded as dashctl's
    expect((await srv.api('GET', `${SECRET}/managers`)).body[0]).to.deep.include({
      version: 0,
      manager: 'dashctl',
      updatedBy: 'anonymous',
    });
  });

  it('a changed secret value is a change: diff says so without showing it, apply writes it', async () => {
    const file = join(dir, 'secret.yaml');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('s3cr3t-Pr0m-passw0rd', 'n3w-passw0rd'));
    try {
      const diff = await run(['diff', '-f', file]);
      expect(diff.code, show(diff)).to.equal(1);
      expect(diff.stdout).to.include('secret values differ from the live ones').and.not.include('passw0rd');
      const apply = await run(['apply', '-f', file]);
      expect(summary(apply), show(apply)).to.deep.include({ configured: 1 });
    } finally {
      writeFileSync(file, original);
    }
    const back = await run(['apply', '-f', file]);
    expect(summary(back), show(back)).to.deep.include({ configured: 1 });
    expect((await srv.api('GET', SECRET)).body.metadata.version).to.equal(2);
  });

  it('an edit by another manager since the last apply: diff marks it, apply refuses it (exit 1, naming who and when) and, all or nothing, writes nothing else; --force-conflicts overwrites it', async () => {
    const live = (await srv.api('GET', DASHBOARD)).body;
    const edited = await srv.api(
      'PUT',
      DASHBOARD,
      { ...live, spec: { ...live.spec, display: { name: 'Edited in the UI' } } },
      { 'x-dashplane-manager': 'web-ui' },
    );
    expect(edited.status, edited.text).to.equal(200);
    const at = edited.body.metadata.updatedAt;
    const who = `changed by anonymous through web-ui at ${at} (version 1) since dashctl applied version 0`;

    const diff = await run(['diff', '-f', dir]);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include(`# CONFLICT: Dashboard/demo/node-overview ${who}`).and.include('-    name: Edited in the UI');

    const refused = await run(['apply', '-f', dir]);
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stdout, show(refused)).to.include('plan: create 0, configure 0, unchanged 18, prune 0, refused 1');
    expect(summary(refused), show(refused)).to.deep.equal({ created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 1 });
    expect(refused.stderr).to.include(`Dashboard demo/node-overview: ${who}`).and.include('--force-conflicts');
    expect(refused.stderr.split('Dashboard demo/node-overview').length, 'the label once').to.equal(2);
    expect((await srv.api('GET', DASHBOARD)).body.spec.display.name, 'not overwritten').to.equal('Edited in the UI');

    const forced = await run(['apply', '-f', dir, '--force-conflicts']);
    expect(forced.code, show(forced)).to.equal(0);
    expect(summary(forced), show(forced)).to.deep.include({ configured: 1, unchanged: 18, failed: 0 });
    const now = (await srv.api('GET', DASHBOARD)).body;
    expect(now.spec.display.name).to.equal('Node overview');
    expect(
      (await srv.api('GET', `${DASHBOARD}/versions`)).body.map((v: { version: number; manager: string }) => [v.version, v.manager]),
    ).to.deep.equal([
      [1, 'web-ui'],
      [0, 'dashctl'],
    ]);
    // dashctl owns it again: later applies and diffs are quiet
    const quiet = await run(['diff', '-f', dir]);
    expect(quiet.code, show(quiet)).to.equal(0);
  });

  it('an object dashctl never applied is taken over without a conflict', async () => {
    const folder = '/api/v1/projects/demo/folders';
    const made = await srv.api(
      'POST',
      folder,
      { kind: 'Folder', metadata: { name: 'made-in-ui' }, spec: { display: { name: 'UI' }, items: [] } },
      { 'x-dashplane-manager': 'web-ui' },
    );
    expect(made.status, made.text).to.equal(200);
    const manifest = JSON.stringify({
      kind: 'Folder',
      metadata: { name: 'made-in-ui', project: 'demo' },
      spec: { display: { name: 'From Git' }, items: [] },
    });
    const r = await dashctl(join(tmp.path, 'config.json'), ['apply', '-f', '-'], { input: manifest });
    expect(r.code, show(r)).to.equal(0);
    expect(summary(r)).to.deep.include({ configured: 1 });
    expect((await srv.api('GET', `${folder}/made-in-ui/managers`)).body.map((m: { manager: string }) => m.manager)).to.deep.equal([
      'dashctl',
      'web-ui',
    ]);
  });

  it('GRANT-01: one apply creates the users and service accounts before the bindings and groups naming them (listed first); a grant naming a principal found nowhere stops the plan', async () => {
    const config = join(tmp.path, 'config.json');
    const grants = [
      'kind: RoleBinding\nmetadata: {name: deployers, project: demo}\nspec:\n  role: dashboard-editor\n  subjects: [{kind: ServiceAccount, name: deployer}, {kind: User, name: zoe}]',
      'kind: Group\nmetadata: {name: zoe-team}\nspec: {members: [zoe]}',
      'kind: GlobalRoleBinding\nmetadata: {name: zoe-everywhere}\nspec: {role: viewer-everywhere, subjects: [{kind: User, name: zoe}]}',
    ];
    const principals = [
      'kind: User\nmetadata: {name: zoe}\nspec: {nativeProvider: {password: zoe-password}}',
      'kind: ServiceAccount\nmetadata: {name: deployer, project: demo}\nspec: {}',
    ];
    const diff = await dashctl(config, ['diff', '-f', '-'], { input: [...grants, ...principals].join('\n---\n') });
    expect(diff.code, `diff plans them all: ${show(diff)}`).to.equal(1);
    const r = await dashctl(config, ['apply', '-f', '-'], { input: [...grants, ...principals].join('\n---\n') });
    expect(r.code, show(r)).to.equal(0);
    expect(summary(r)).to.deep.include({ created: 5, failed: 0 });
    expect((await srv.api('GET', '/api/v1/groups/zoe-team')).body.spec.members).to.deep.equal(['zoe']);

    const stray =
      'kind: RoleBinding\nmetadata: {name: strays, project: demo}\nspec:\n  role: dashboard-editor\n  subjects: [{kind: User, name: zoe}, {kind: User, name: nobody-here}]';
    const refused = await dashctl(config, ['apply', '-f', '-'], { input: stray });
    expect(refused.code, show(refused)).to.equal(1);
    expect(refused.stderr).to.include('spec.subjects[1].name: User "nobody-here" does not exist');
    expect((await srv.api('GET', '/api/v1/projects/demo/rolebindings/strays')).status, 'nothing written').to.equal(404);
  });
});
