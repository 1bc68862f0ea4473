import { expect } from 'chai';
import { join } from 'node:path';
import { AUTH_ENV, bearer, loginAdmin } from './helpers/auth.js';
import { dashctl, savedContext, show } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

/** dashctl and API tokens (issue 20): token create|list|revoke, and login --token-stdin. */
describe('dashctl token and login --token-stdin (end to end)', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let admin: string;
  let robot: string;

  before(async () => {
    srv = await startTestServer({ env: AUTH_ENV });
    tmp = tempDir('dashctl-tokens-');
    admin = join(tmp.path, 'admin.json');
    robot = join(tmp.path, 'robot.json');
    const a = bearer(await loginAdmin(srv));
    const post = async (path: string, body: unknown) => expect((await srv.api('POST', path, body, a)).status, path).to.equal(200);
    await post('/api/v1/projects', { kind: 'Project', metadata: { name: 'team' }, spec: {} });
    await post('/api/v1/projects/team/dashboards', {
      kind: 'Dashboard',
      metadata: { name: 'd' },
      spec: { display: { name: 'd' }, duration: '1h', panels: {}, layouts: [] },
    });
    await post('/api/v1/projects/team/serviceaccounts', { kind: 'ServiceAccount', metadata: { name: 'ci' }, spec: {} });
    await post('/api/v1/projects/team/rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'ci' },
      spec: { role: 'editor', subjects: [{ kind: 'ServiceAccount', name: 'ci' }] },
    });
    const r = await dashctl(admin, ['login', srv.url, '-u', 'admin', '--password-stdin', '-p', 'team'], { input: 'admin-password\n' });
    expect(r.code, show(r)).to.equal(0);
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('a personal token: created (printed alone, once), used to log in from stdin, listed, revoked', async () => {
    const created = await dashctl(admin, ['token', 'create', 'laptop', '--ttl', '1h']);
    expect(created.code, show(created)).to.equal(0);
    const token = created.stdout.trim();
    expect(token).to.match(/^dp_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).to.include('not shown again');
    const pat = join(tmp.path, 'pat.json');
    const login = await dashctl(pat, ['login', srv.url, '--token-stdin'], { input: `${token}\n` });
    expect(login.code, show(login)).to.equal(0);
    expect(login.stdout).to.include('as admin');
    expect(savedContext(pat).accessToken).to.equal(token);
    expect((await dashctl(pat, ['whoami'])).stdout).to.equal('admin\n');
    const list = await dashctl(admin, ['token', 'list']);
    expect(list.code, show(list)).to.equal(0);
    expect(list.stdout.split('\n')[0]).to.match(/^ID\s+NAME\s+OWNER\s+EXPIRES\s+LAST USED\s+PERMISSIONS\s+AGE$/);
    expect(list.stdout).to.include('laptop').and.not.include(token.slice(20));
    const id = token.slice(3, 19);
    const revoked = await dashctl(admin, ['token', 'revoke', id]);
    expect(revoked.code, show(revoked)).to.equal(0);
    const after = await dashctl(pat, ['whoami']);
    expect(after.code, show(after)).to.equal(1);
    expect(after.stderr).to.include('not valid');
  });

  it('a narrowed service account token, created with --owner and --permission; a bad token is not saved', async () => {
    const created = await dashctl(admin, [
      'token',
      'create',
      'pipeline',
      '--ttl',
      '1d',
      '--owner',
      'serviceaccount/ci',
      '--permission',
      'read:dash@team',
    ]);
    expect(created.code, show(created)).to.equal(0);
    const login = await dashctl(robot, ['login', srv.url, '--token-stdin', '-p', 'team'], { input: created.stdout });
    expect(login.code, show(login)).to.equal(0);
    expect(login.stdout).to.include('as ServiceAccount team/ci');
    expect((await dashctl(robot, ['get', 'dash'])).stdout).to.include('d');
    // --prune looks at every kind: those the token may not list are named, not an error
    const manifest = JSON.stringify({
      kind: 'Dashboard',
      metadata: { name: 'd', project: 'team' },
      spec: { display: { name: 'd' }, duration: '1h', panels: {}, layouts: [] },
    });
    const pruned = await dashctl(robot, ['diff', '-f', '-', '--prune', '--prune-tag', 'gitops'], { input: manifest });
    expect(pruned.code, show(pruned)).to.equal(0);
    expect(pruned.stderr, show(pruned))
      .to.include('warning: --prune was not permitted to list ')
      .and.include('folders in team')
      .and.include('globaldatasources');
    const narrowed = await dashctl(robot, ['diff', '-f', '-', '--prune', '--prune-tag', 'gitops', '--prune-kind', 'dash'], {
      input: manifest,
    });
    expect(narrowed.code, show(narrowed)).to.equal(0);
    expect(narrowed.stderr).to.not.include('not permitted');
    const write = await dashctl(robot, ['delete', 'dash', 'd']);
    expect(write.code, show(write)).to.not.equal(0);
    expect(write.stderr).to.include('narrowed');
    const list = await dashctl(admin, ['token', 'list', '--owner', 'serviceaccount/ci']);
    expect(list.stdout).to.include('pipeline').and.include('read:Dashboard@team').and.include('serviceaccount/team/ci');
    const bad = await dashctl(robot, ['login', srv.url, '--token-stdin'], {
      input: 'dp_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(bad.code, show(bad)).to.equal(1);
    expect(savedContext(robot).accessToken, 'the working token is kept').to.equal(created.stdout.trim());
    const noExpiry = await dashctl(admin, ['token', 'create', 'forever']);
    expect(noExpiry.code).to.equal(1);
    expect(noExpiry.stderr).to.include('--ttl');
  });
});
