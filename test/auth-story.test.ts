/**
 * Issue 3, the story a new user lives: sign up, log in, create a project and a dashboard; a
 * second user sees nothing of it until the owner grants a role, and loses it again on the very
 * next request when the binding goes. Plus the surrounding contract of docs/api.md §2, §3 and §12:
 * default project roles, whoami, permissions, anonymous routes, sign-up switch, global kinds,
 * self-service on one's own User, INPUT-17 and the bootstrap administrator.
 */
import { expect } from 'chai';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/server.js';

const panel = () => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text: 'hi' } } } });
const grid = () => [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }];
const dash = (name: string, title = name) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name: title }, duration: '1h', panels: { a: panel() }, layouts: grid() },
});
const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const binding = (name: string, role: string, user: string) => ({
  kind: 'RoleBinding',
  metadata: { name },
  spec: { role, subjects: [{ kind: 'User', name: user }] },
});
const globalDatasource = (name: string) => ({
  kind: 'GlobalDatasource',
  metadata: { name },
  spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://localhost:9090' } } },
});

/** The default project roles of docs/api.md §12. */
const EXPECTED_ROLES: Record<string, { actions: string[]; scopes: string[] }[]> = {
  owner: [{ actions: ['*'], scopes: ['*'] }],
  editor: [
    { actions: ['*'], scopes: ['Dashboard', 'Datasource', 'Folder', 'Secret', 'Variable', 'EphemeralDashboard'] },
    { actions: ['read'], scopes: ['Project', 'Role', 'RoleBinding'] },
  ],
  viewer: [{ actions: ['read'], scopes: ['*'] }],
};

/** Permissions with actions, scopes and the list itself in a fixed order (the contract fixes the sets, not the order). */
function normalized(perms: { actions: string[]; scopes: string[] }[]): string[] {
  return perms.map((p) => JSON.stringify({ actions: [...p.actions].sort(), scopes: [...p.scopes].sort() })).sort();
}

const names = (r: ApiResponse): string[] => (r.body as { metadata: { name: string } }[]).map((o) => o.metadata.name);

async function newUser(s: TestServer, name: string): Promise<Tokens> {
  await signUp(s, name);
  return login(s, name);
}

describe('auth story: a new user, a project, a second user (issue 3)', function () {
  this.timeout(20_000);
  let s: TestServer;
  let admin: Tokens;
  before(async () => {
    s = await startAuthServer();
    admin = await loginAdmin(s);
  });
  after(() => s?.stop());

  it('sign up, log in, create a project and a dashboard; a second user is shut out until the owner binds them to editor, and again right after the binding is deleted', async () => {
    // 1. alice signs up, logs in, creates her project and a dashboard in it.
    const alice = await newUser(s, 'alice');
    let r = await s.api('POST', '/api/v1/projects', project('alpha'), bearer(alice));
    expect(r.status, r.text).to.equal(200);
    expect(r.body.metadata.name).to.equal('alpha');
    r = await s.api('POST', '/api/v1/projects/alpha/dashboards', dash('overview', 'ALPHA-CANARY'), bearer(alice));
    expect(r.status, r.text).to.equal(200);
    expect((await s.api('GET', '/api/v1/projects/alpha/dashboards/overview', undefined, bearer(alice))).status).to.equal(200);
    expect(names(await s.api('GET', '/api/v1/projects', undefined, bearer(alice)))).to.include('alpha');

    // 2. bob signs up: he may not write there, and no list shows a trace of alpha.
    const bob = await newUser(s, 'bob');
    r = await s.api('POST', '/api/v1/projects/alpha/dashboards', dash('bobs'), bearer(bob));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('POST', '/api/v1/dashboards', { ...dash('bobs'), metadata: { name: 'bobs', project: 'alpha' } }, bearer(bob));
    expect(r.status, r.text).to.equal(403);
    expect((await s.api('PUT', '/api/v1/projects/alpha/dashboards/overview', dash('overview', 'defaced'), bearer(bob))).status).to.equal(
      403,
    );
    expect((await s.api('DELETE', '/api/v1/projects/alpha/dashboards/overview', undefined, bearer(bob))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/projects/alpha/dashboards/overview', undefined, bearer(bob))).status).to.equal(403);
    expect(await s.server.store.get({ kind: 'Dashboard', project: 'alpha', name: 'bobs' })).to.equal(undefined);
    const stored = await s.server.store.get({ kind: 'Dashboard', project: 'alpha', name: 'overview' });
    expect((stored!.spec as { display: { name: string } }).display.name).to.equal('ALPHA-CANARY');
    for (const path of ['/api/v1/projects', '/api/v1/dashboards', '/api/v1/roles', '/api/v1/rolebindings']) {
      r = await s.api('GET', path, undefined, bearer(bob));
      expect(r.status, `${path}: ${r.text}`).to.equal(200);
      expect(r.body, path).to.be.an('array');
      expect(r.text, path).to.not.include('alpha');
      expect(r.text, path).to.not.include('ALPHA-CANARY');
    }

    // 3. alice binds bob to editor: he can now write dashboards, but not roles or bindings.
    r = await s.api('POST', '/api/v1/projects/alpha/rolebindings', binding('bob-editor', 'editor', 'bob'), bearer(alice));
    expect(r.status, r.text).to.equal(200);
    r = await s.api('POST', '/api/v1/projects/alpha/dashboards', dash('bobs'), bearer(bob));
    expect(r.status, r.text).to.equal(200);
    r = await s.api('PUT', '/api/v1/projects/alpha/dashboards/overview', dash('overview', 'edited by bob'), bearer(bob));
    expect(r.status, r.text).to.equal(200);
    expect(names(await s.api('GET', '/api/v1/projects', undefined, bearer(bob)))).to.deep.equal(['alpha']);
    expect(names(await s.api('GET', '/api/v1/dashboards', undefined, bearer(bob)))).to.deep.equal(['bobs', 'overview']);
    r = await s.api(
      'POST',
      '/api/v1/projects/alpha/roles',
      { kind: 'Role', metadata: { name: 'sneaky' }, spec: { permissions: [{ actions: ['*'], scopes: ['*'] }] } },
      bearer(bob),
    );
    expect(r.status, r.text).to.equal(403);
    r = await s.api('POST', '/api/v1/projects/alpha/rolebindings', binding('bob-owner', 'owner', 'bob'), bearer(bob));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('PUT', '/api/v1/projects/alpha/rolebindings/owner', binding('owner', 'owner', 'bob'), bearer(bob));
    expect(r.status, r.text).to.equal(403);
    expect((await s.api('DELETE', '/api/v1/projects/alpha', undefined, bearer(bob))).status).to.equal(403);
    expect(await s.server.store.get({ kind: 'Role', project: 'alpha', name: 'sneaky' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'RoleBinding', project: 'alpha', name: 'bob-owner' })).to.equal(undefined);

    // 4. the binding goes: the very next request is 403 again.
    r = await s.api('DELETE', '/api/v1/projects/alpha/rolebindings/bob-editor', undefined, bearer(alice));
    expect(r.status, r.text).to.equal(204);
    r = await s.api('POST', '/api/v1/projects/alpha/dashboards', dash('after'), bearer(bob));
    expect(r.status, r.text).to.equal(403);
    expect((await s.api('GET', '/api/v1/projects/alpha/dashboards/bobs', undefined, bearer(bob))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/projects', undefined, bearer(bob))).text).to.not.include('alpha');
    expect((await s.api('GET', '/api/v1/dashboards', undefined, bearer(bob))).body).to.deep.equal([]);
  });

  it('a new project has the owner, editor and viewer Roles with exactly the permissions of §12 and an owner RoleBinding for its creator', async () => {
    const carol = await newUser(s, 'carol');
    expect((await s.api('POST', '/api/v1/projects', project('gamma'), bearer(carol))).status).to.equal(200);
    const roles = await s.api('GET', '/api/v1/projects/gamma/roles', undefined, bearer(carol));
    expect(roles.status, roles.text).to.equal(200);
    expect(names(roles)).to.deep.equal(['editor', 'owner', 'viewer']);
    for (const role of roles.body as {
      kind: string;
      metadata: { name: string; project: string };
      spec: { permissions: { actions: string[]; scopes: string[] }[] };
    }[]) {
      expect(role.kind).to.equal('Role');
      expect(role.metadata.project).to.equal('gamma');
      expect(normalized(role.spec.permissions), role.metadata.name).to.deep.equal(normalized(EXPECTED_ROLES[role.metadata.name]));
    }
    const bindings = await s.api('GET', '/api/v1/projects/gamma/rolebindings', undefined, bearer(carol));
    expect(bindings.status, bindings.text).to.equal(200);
    expect(bindings.body).to.have.length(1);
    expect(bindings.body[0].metadata.name).to.equal('owner');
    expect(bindings.body[0].spec).to.deep.equal({ role: 'owner', subjects: [{ kind: 'User', name: 'carol' }] });
    // The same objects are in the store (not synthesised on read).
    expect(await s.server.store.get({ kind: 'Role', project: 'gamma', name: 'viewer' })).to.not.equal(undefined);
    expect(await s.server.store.get({ kind: 'RoleBinding', project: 'gamma', name: 'owner' })).to.not.equal(undefined);
  });

  it("GET /api/v1/user/whoami answers the caller's own User with the password masked; 401 without a token", async () => {
    const dave = await newUser(s, 'dave');
    const r = await s.api('GET', '/api/v1/user/whoami', undefined, bearer(dave));
    expect(r.status, r.text).to.equal(200);
    expect(r.body.kind).to.equal('User');
    expect(r.body.metadata.name).to.equal('dave');
    expect(r.body.spec.nativeProvider.password).to.equal('<secret>');
    expect(r.text).to.not.include('dave-password');
    const stored = await s.server.store.get({ kind: 'User', project: '', name: 'dave' });
    const hash = (stored!.spec as { nativeProvider: { password: string } }).nativeProvider.password;
    expect(r.text).to.not.include(hash);
    expect((await s.api('GET', '/api/v1/user/whoami', undefined, bearer(admin))).body.metadata.name).to.equal('admin');
    expect((await s.api('GET', '/api/v1/user/whoami')).status).to.equal(401);
  });

  it('GET /api/v1/users/{name}/permissions works for oneself and is 403 for another user', async () => {
    const erin = await newUser(s, 'erin');
    await signUp(s, 'frank');
    expect((await s.api('POST', '/api/v1/projects', project('erin-p'), bearer(erin))).status).to.equal(200);
    const r = await s.api('GET', '/api/v1/users/erin/permissions', undefined, bearer(erin));
    expect(r.status, r.text).to.equal(200);
    expect(r.body['*']).to.deep.include({ actions: ['create'], scopes: ['Project'] });
    expect(normalized(r.body['erin-p'])).to.deep.equal(normalized(EXPECTED_ROLES.owner));
    expect(Object.keys(r.body).sort()).to.deep.equal(['*', 'erin-p']);
    const other = await s.api('GET', '/api/v1/users/frank/permissions', undefined, bearer(erin));
    expect(other.status, other.text).to.equal(403);
    expect(other.text).to.not.include('Project');
    expect((await s.api('GET', '/api/v1/users/erin/permissions')).status).to.equal(401);
  });

  it('an unauthenticated call to a protected route is 401 and the same answer for an existing and a missing project', async () => {
    const owner = await newUser(s, 'gwen');
    expect((await s.api('POST', '/api/v1/projects', project('exists'), bearer(owner))).status).to.equal(200);
    expect((await s.api('POST', '/api/v1/projects/exists/dashboards', dash('d'), bearer(owner))).status).to.equal(200);
    const pairs: [string, string, unknown?][] = [
      ['GET', '/api/v1/projects/{p}'],
      ['GET', '/api/v1/projects/{p}/dashboards'],
      ['GET', '/api/v1/projects/{p}/dashboards/d'],
      ['PUT', '/api/v1/projects/{p}/dashboards/d', dash('d')],
      ['DELETE', '/api/v1/projects/{p}/dashboards/d'],
      ['POST', '/api/v1/projects/{p}/dashboards', dash('new')],
      ['DELETE', '/api/v1/projects/{p}'],
      ['GET', '/api/v1/dashboards?project={p}'],
    ];
    const headerSets: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-token' }, { authorization: 'Bearer a.b.c' }];
    for (const headers of headerSets) {
      for (const [method, path, body] of pairs) {
        const existing = await s.api(method, path.replace('{p}', 'exists'), body, headers);
        const missing = await s.api(method, path.replace('{p}', 'missing'), body, headers);
        const what = `${method} ${path} ${JSON.stringify(headers)}`;
        expect(existing.status, `${what}: ${existing.text}`).to.equal(401);
        expect(missing.status, `${what}: ${missing.text}`).to.equal(401);
        expect(existing.text, what).to.equal(missing.text);
        expect(existing.text, what).to.not.include('exists');
        expect(existing.body.message, what).to.be.a('string');
      }
    }
    expect(await s.server.store.get({ kind: 'Dashboard', project: 'exists', name: 'd' })).to.not.equal(undefined);
    expect(await s.server.store.get({ kind: 'Dashboard', project: 'exists', name: 'new' })).to.equal(undefined);
  });

  it('anonymous routes work without a token: /api/config, health, plugins, validate, sign-up', async () => {
    let r = await s.api('GET', '/api/config');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.security.enable_auth).to.equal(true);
    expect(r.text).to.not.include('admin-password');
    // nor the administrator's login: an anonymous caller learns nothing of whom to attack
    if (r.body.security.bootstrap_admin) expect(r.body.security.bootstrap_admin.name).to.equal('<secret>');
    expect(JSON.stringify(r.body)).to.not.match(/"admin"/);
    r = await s.api('GET', '/api/v1/health');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.database).to.equal(true);
    r = await s.api('GET', '/api/v1/plugins');
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.be.an('array').that.is.not.empty;
    r = await s.api('POST', '/api/validate/dashboards', dash('check'));
    expect(r.status, r.text).to.equal(200);
    r = await s.api('POST', '/api/validate/dashboards', { ...dash('check'), spec: { duration: 'nope' } });
    expect(r.status, r.text).to.equal(400);
    r = await s.api('POST', '/api/v1/users', {
      kind: 'User',
      metadata: { name: 'anon-signup' },
      spec: { nativeProvider: { password: 'pw-123456' } },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.spec.nativeProvider.password).to.equal('<secret>');
    await login(s, 'anon-signup', 'pw-123456');
    // A stale or broken token does not lock a caller out of the anonymous routes.
    expect((await s.api('GET', '/api/v1/health', undefined, { authorization: 'Bearer broken' })).status).to.equal(200);
  });

  it('global kinds need a global permission: a normal user cannot create a GlobalDatasource, GlobalRole or GlobalRoleBinding; the admin can', async () => {
    const hank = await newUser(s, 'hank');
    let r = await s.api('POST', '/api/v1/globaldatasources', globalDatasource('prom'), bearer(hank));
    expect(r.status, r.text).to.equal(403);
    r = await s.api(
      'POST',
      '/api/v1/globalroles',
      { kind: 'GlobalRole', metadata: { name: 'hank-all' }, spec: { permissions: [{ actions: ['*'], scopes: ['*'] }] } },
      bearer(hank),
    );
    expect(r.status, r.text).to.equal(403);
    r = await s.api(
      'POST',
      '/api/v1/globalrolebindings',
      { kind: 'GlobalRoleBinding', metadata: { name: 'hank-admin' }, spec: { role: 'admin', subjects: [{ kind: 'User', name: 'hank' }] } },
      bearer(hank),
    );
    expect(r.status, r.text).to.equal(403);
    r = await s.api(
      'PUT',
      '/api/v1/globalrolebindings/admin',
      {
        kind: 'GlobalRoleBinding',
        metadata: { name: 'admin' },
        spec: {
          role: 'admin',
          subjects: [
            { kind: 'User', name: 'admin' },
            { kind: 'User', name: 'hank' },
          ],
        },
      },
      bearer(hank),
    );
    expect(r.status, r.text).to.equal(403);
    expect(await s.server.store.get({ kind: 'GlobalDatasource', project: '', name: 'prom' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'GlobalRole', project: '', name: 'hank-all' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'GlobalRoleBinding', project: '', name: 'hank-admin' })).to.equal(undefined);
    r = await s.api('POST', '/api/v1/globaldatasources', globalDatasource('prom'), bearer(admin));
    expect(r.status, r.text).to.equal(200);
    r = await s.api('DELETE', '/api/v1/globaldatasources/prom', undefined, bearer(hank));
    expect(r.status, r.text).to.equal(403);
    expect(await s.server.store.get({ kind: 'GlobalDatasource', project: '', name: 'prom' })).to.not.equal(undefined);
  });

  it('a user can read and update their own User, but not delete it nor read, update or delete another user', async () => {
    const ivy = await newUser(s, 'ivy');
    await signUp(s, 'jack');
    let r = await s.api('GET', '/api/v1/users/ivy', undefined, bearer(ivy));
    expect(r.status, r.text).to.equal(200);
    expect(r.body.spec.nativeProvider.password).to.equal('<secret>');
    r = await s.api(
      'PUT',
      '/api/v1/users/ivy',
      { kind: 'User', metadata: { name: 'ivy' }, spec: { firstName: 'Ivy', nativeProvider: { password: 'ivy-new-password' } } },
      bearer(ivy),
    );
    expect(r.status, r.text).to.equal(200);
    expect(r.body.spec.firstName).to.equal('Ivy');
    await login(s, 'ivy', 'ivy-new-password');
    const old = await s.api('POST', '/api/auth/providers/native/login', { login: 'ivy', password: 'ivy-password' });
    expect(old.status).to.equal(400);

    const jackBefore = JSON.stringify(await s.server.store.get({ kind: 'User', project: '', name: 'jack' }));
    r = await s.api('GET', '/api/v1/users/jack', undefined, bearer(ivy));
    expect(r.status, r.text).to.equal(403);
    r = await s.api(
      'PUT',
      '/api/v1/users/jack',
      { kind: 'User', metadata: { name: 'jack' }, spec: { nativeProvider: { password: 'taken-over' } } },
      bearer(ivy),
    );
    expect(r.status, r.text).to.equal(403);
    r = await s.api('DELETE', '/api/v1/users/jack', undefined, bearer(ivy));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('GET', '/api/v1/users', undefined, bearer(ivy));
    expect(r.status, r.text).to.equal(403);
    expect(JSON.stringify(await s.server.store.get({ kind: 'User', project: '', name: 'jack' }))).to.equal(jackBefore);
    r = await s.api('DELETE', '/api/v1/users/ivy', undefined, bearer(ivy));
    expect(r.status, r.text).to.equal(403);
    expect(await s.server.store.get({ kind: 'User', project: '', name: 'ivy' })).to.not.equal(undefined);
  });

  it('INPUT-17: a client setting spec.oauthProviders on sign-up or update gets 400 and nothing changes', async () => {
    const oauth = [{ issuer: 'https://idp.example', subject: 'admin', email: 'admin@example.com' }];
    let r = await s.api('POST', '/api/v1/users', {
      kind: 'User',
      metadata: { name: 'kim' },
      spec: { nativeProvider: { password: 'kim-password' }, oauthProviders: oauth },
    });
    expect(r.status, r.text).to.equal(400);
    r = await s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name: 'kim' }, spec: { oauthProviders: oauth } });
    expect(r.status, r.text).to.equal(400);
    expect(await s.server.store.get({ kind: 'User', project: '', name: 'kim' })).to.equal(undefined);

    const lee = await newUser(s, 'lee');
    const before = JSON.stringify(await s.server.store.get({ kind: 'User', project: '', name: 'lee' }));
    r = await s.api(
      'PUT',
      '/api/v1/users/lee',
      { kind: 'User', metadata: { name: 'lee' }, spec: { nativeProvider: { password: 'lee-password' }, oauthProviders: oauth } },
      bearer(lee),
    );
    expect(r.status, r.text).to.equal(400);
    expect(JSON.stringify(await s.server.store.get({ kind: 'User', project: '', name: 'lee' }))).to.equal(before);
  });

  it('with DASHPLANE_SECURITY_AUTHENTICATION_DISABLE_SIGN_UP=true anonymous sign-up is 401 and the admin can still create users', async () => {
    const closed = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_DISABLE_SIGN_UP: 'true' });
    try {
      const user = (name: string) => ({ kind: 'User', metadata: { name }, spec: { nativeProvider: { password: `${name}-password` } } });
      let r = await closed.api('POST', '/api/v1/users', user('mallory'));
      expect(r.status, r.text).to.equal(401);
      expect(r.body.message).to.equal(
        'sign-up is turned off on this server (security.authentication.disable_sign_up); ask an administrator to create your User, then sign in',
      );
      expect(await closed.server.store.get({ kind: 'User', project: '', name: 'mallory' })).to.equal(undefined);
      const root = await loginAdmin(closed);
      r = await closed.api('POST', '/api/v1/users', user('nina'), bearer(root));
      expect(r.status, r.text).to.equal(200);
      const nina = await login(closed, 'nina');
      r = await closed.api('POST', '/api/v1/users', user('oscar'), bearer(nina));
      expect(r.status, r.text).to.equal(403);
      expect(await closed.server.store.get({ kind: 'User', project: '', name: 'oscar' })).to.equal(undefined);
    } finally {
      await closed.stop();
    }
  });

  it('the bootstrap admin is created once; a restart with the same environment duplicates nothing and keeps sessions', async () => {
    const dir = tempDir();
    try {
      const dump = async (t: TestServer) => {
        const out: Record<string, unknown> = {};
        for (const kind of ['User', 'GlobalRole', 'GlobalRoleBinding']) out[kind] = await t.server.store.list({ kind });
        return out;
      };
      let t = await startTestServer({ env: AUTH_ENV, dataDir: dir.path });
      const first = await dump(t);
      expect((first.User as unknown[]).map((u) => (u as { metadata: { name: string } }).metadata.name)).to.deep.equal(['admin']);
      expect((first.GlobalRole as { metadata: { name: string }; spec: unknown }[]).map((r) => [r.metadata.name, r.spec])).to.deep.equal([
        ['admin', { permissions: [{ actions: ['*'], scopes: ['*'] }] }],
      ]);
      expect(
        (first.GlobalRoleBinding as { metadata: { name: string }; spec: unknown }[]).map((r) => [r.metadata.name, r.spec]),
      ).to.deep.equal([['admin', { role: 'admin', subjects: [{ kind: 'User', name: 'admin' }] }]]);
      const tokens = await loginAdmin(t);
      expect((await t.api('GET', '/api/v1/users', undefined, bearer(tokens))).status).to.equal(200);
      await t.stop();

      t = await startTestServer({ env: AUTH_ENV, dataDir: dir.path });
      try {
        expect(JSON.stringify(await dump(t))).to.equal(JSON.stringify(first));
        // The generated key survived too, so the session opened before the restart still works.
        expect((await t.api('GET', '/api/v1/user/whoami', undefined, bearer(tokens))).status).to.equal(200);
        await loginAdmin(t);
      } finally {
        await t.stop();
      }
    } finally {
      dir.remove();
    }
  });
});
