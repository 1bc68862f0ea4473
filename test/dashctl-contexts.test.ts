import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_ENV, bearer, login } from './helpers/auth.js';
import { dashctl, savedContext, show } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

/**
 * dashctl contexts (kubectl's config verbs, each context with its own tokens, --context on every
 * command, older single-server files read transparently) and the login flags (-p is the project,
 * --password-stdin), against a real server with authentication on.
 */
describe('dashctl contexts and login (end to end, authentication on)', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  let cfg: string;
  const run = (args: string[], o?: { env?: Record<string, string>; input?: string }) => dashctl(cfg, args, o);
  const file = () => JSON.parse(readFileSync(cfg, 'utf8'));

  before(async () => {
    srv = await startTestServer({ env: AUTH_ENV });
    tmp = tempDir('dashctl-contexts-');
    cfg = join(tmp.path, 'config.json');
    const admin = await login(srv, 'admin', 'admin-password');
    expect(
      (await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'team' }, spec: {} }, bearer(admin))).status,
    ).to.equal(200);
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  it('login --password-stdin; -p is the project (checked: a password given with -p is caught, nothing saved)', async () => {
    const noTty = await run(['login', srv.url, '-u', 'admin', '-p', 'admin-password']);
    expect(noTty.code, show(noTty)).to.equal(1);
    expect(noTty.stderr).to.include('--password-stdin').and.include('-p is --project');
    const mistaken = await run(['login', srv.url, '-u', 'admin', '--password-stdin', '-p', 'admin-password'], {
      input: 'admin-password\n',
    });
    expect(mistaken.code, show(mistaken)).to.equal(1);
    expect(mistaken.stderr).to.include('project "admin-password" does not exist').and.include('nothing was saved');
    expect(() => readFileSync(cfg)).to.throw();
    const r = await run(['login', srv.url, '-u', 'admin', '--password-stdin', '-p', 'team'], { input: 'admin-password\n' });
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout).to.include('as admin').and.include('(context default)');
    expect(savedContext(cfg)).to.include({ url: srv.url, project: 'team' });
    expect((await run(['whoami'])).stdout).to.equal('admin\n');
  });

  it('set-context, get-contexts, use-context, current-context, --context, delete-context; each context has its own tokens', async () => {
    const created = await run(['config', 'set-context', 'guest', '--server', srv.url, '--project', 'team']);
    expect(created.code, show(created)).to.equal(0);
    const list = await run(['config', 'get-contexts']);
    expect(list.stdout.split('\n')[0]).to.match(/^CURRENT\s+NAME\s+SERVER\s+PROJECT\s+USER$/);
    expect(list.stdout)
      .to.match(/^\*\s+default\s+\S+\s+team\s+admin$/m)
      .and.match(/^\s+guest\s+\S+\s+team$/m);
    // guest has no tokens: the same server refuses it, while the current context is still admin
    const guest = await run(['whoami', '--context', 'guest']);
    expect(guest.code, show(guest)).to.equal(1);
    expect((await run(['--context', 'default', 'whoami'])).stdout).to.equal('admin\n');
    const unknown = await run(['get', 'dash', '--context', 'nope']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('context "nope" does not exist');
    expect((await run(['config', 'use-context', 'guest'])).code).to.equal(0);
    expect((await run(['config', 'current-context'])).stdout).to.equal('guest\n');
    const own = await run(['login', '-u', 'admin', '--password-stdin'], { input: 'admin-password' });
    expect(own.stdout, show(own)).to.include('(context guest)');
    const saved = file();
    expect(saved.contexts.guest.accessToken).to.be.a('string').and.not.equal(saved.contexts.default.accessToken);
    const logout = await run(['logout', '--context', 'guest']);
    expect(logout.code, show(logout)).to.equal(0);
    expect(file().contexts.guest.accessToken).to.equal(undefined);
    expect(file().contexts.default.accessToken, 'the other context keeps its session').to.equal(saved.contexts.default.accessToken);
    expect((await run(['config', 'delete-context', 'guest'])).stderr).to.include('was the current context');
    const none = await run(['whoami']);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.include('no current context');
    expect((await run(['config', 'use-context', 'default'])).code).to.equal(0);
  });

  it('login to another server makes a context named after it; a single-server file of older dashctl is read as "default"', async () => {
    const other = await startTestServer();
    try {
      const r = await run(['login', other.url]);
      expect(r.code, show(r)).to.equal(0);
      const name = new URL(other.url).host;
      expect(r.stdout).to.include(`(context ${name})`);
      expect(r.stdout).to.include(`Switched to context "${name}" (it was "default"; dashctl config use-context default switches back).`);
      expect(file().currentContext).to.equal(name);
      expect(file().contexts.default.url).to.equal(srv.url);
      const again = await run(['login', other.url]);
      expect(again.stdout, 'the same context again: no switch to tell').to.not.include('Switched');
      const back = await run(['login', srv.url, '-u', 'admin', '--password-stdin'], { input: 'admin-password' });
      expect(back.stdout, show(back)).to.include('(context default)').and.include(`Switched to context "default" (it was "${name}";`);
    } finally {
      await other.stop();
    }
    const old = join(tmp.path, 'old.json');
    const token = (await login(srv, 'admin', 'admin-password')).access_token;
    writeFileSync(old, JSON.stringify({ url: srv.url, project: 'team', accessToken: token }), { mode: 0o600 });
    const who = await dashctl(old, ['whoami']);
    expect(who.stdout, show(who)).to.equal('admin\n');
    expect((await dashctl(old, ['config', 'current-context'])).stdout).to.equal('default\n');
    expect((await dashctl(old, ['project', 'team'])).code).to.equal(0);
    expect(JSON.parse(readFileSync(old, 'utf8'))).to.deep.equal({
      currentContext: 'default',
      contexts: { default: { url: srv.url, project: 'team', accessToken: token } },
    });
  });
});
