import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

type Auth = Record<string, string>;

async function must(s: TestServer, auth: Auth, method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.api(method, path, body, auth);
  expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  return r.body;
}

const group = (name: string, members: string[]) => ({ kind: 'Group', metadata: { name }, spec: { members } });
const binding = (name: string, role: string, subjects: { kind: string; name: string }[]) => ({
  kind: 'RoleBinding',
  metadata: { name },
  spec: { role, subjects },
});

/**
 * Native groups (issue 20): a binding naming a Group grants its role to every member; a change of
 * the group's members or of its bindings holds on the next request of `reader` (another replica
 * when it is one). Each read is made twice so a stale cached answer would show.
 */
async function groupStory(writer: TestServer, reader: TestServer, suffix: string): Promise<void> {
  const admin = bearer(await loginAdmin(writer));
  const project = `teams-${suffix}`;
  const user = `gina-${suffix}`;
  const team = `sre-${suffix}`;
  await must(writer, admin, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: project }, spec: {} });
  await must(writer, admin, 'POST', `/api/v1/projects/${project}/folders`, {
    kind: 'Folder',
    metadata: { name: 'f' },
    spec: { items: [] },
  });
  await signUp(writer, user);
  const as = bearer(await login(reader, user));
  const expectRead = async (status: number, what: string) => {
    for (let i = 0; i < 2; i++)
      expect((await reader.api('GET', `/api/v1/projects/${project}/folders/f`, undefined, as)).status, what).to.equal(status);
  };
  // members are users that exist
  const other = `someone-else-${suffix}`;
  await signUp(writer, other);
  await must(writer, admin, 'POST', '/api/v1/groups', group(team, [user]));
  await expectRead(403, 'a group without bindings grants nothing');
  await must(
    writer,
    admin,
    'POST',
    `/api/v1/projects/${project}/rolebindings`,
    binding('sre-view', 'viewer', [{ kind: 'Group', name: team }]),
  );
  await expectRead(200, 'the group is bound to viewer');
  const perms = await reader.api('GET', `/api/v1/users/${user}/permissions`, undefined, as);
  expect(perms.body[project], 'permissions through the group').to.deep.equal([{ actions: ['read'], scopes: ['*'] }]);
  await must(writer, admin, 'PUT', `/api/v1/groups/${team}`, group(team, [other]));
  await expectRead(403, 'removed from the group');
  await must(writer, admin, 'PUT', `/api/v1/groups/${team}`, group(team, [other, user]));
  await expectRead(200, 'added back');
  await must(writer, admin, 'DELETE', `/api/v1/projects/${project}/rolebindings/sre-view`);
  await expectRead(403, 'the group binding deleted');
  await must(writer, admin, 'POST', '/api/v1/globalroles', {
    kind: 'GlobalRole',
    metadata: { name: `folder-reader-${suffix}` },
    spec: { permissions: [{ actions: ['read'], scopes: ['Folder'] }] },
  });
  await must(writer, admin, 'POST', '/api/v1/globalrolebindings', {
    kind: 'GlobalRoleBinding',
    metadata: { name: `g-${suffix}` },
    spec: { role: `folder-reader-${suffix}`, subjects: [{ kind: 'Group', name: team }] },
  });
  await expectRead(200, 'a GlobalRoleBinding naming the group');
  await must(writer, admin, 'DELETE', `/api/v1/groups/${team}`);
  await expectRead(403, 'the group deleted');
}

describe('groups (issue 20)', function () {
  this.timeout(60_000);

  describe('on LevelDB', () => {
    let s: TestServer;
    let admin: Auth;
    before(async () => {
      s = await startAuthServer();
      admin = bearer(await loginAdmin(s));
    });
    after(() => s?.stop());

    it('a group binding grants its role to members; membership and binding changes hold on the next request', async () => {
      await groupStory(s, s, 'lvl');
    });

    it('a deleted user leaves every group, so a new user of that name inherits nothing', async () => {
      await signUp(s, 'hugo');
      await signUp(s, 'ivy');
      await must(s, admin, 'POST', '/api/v1/groups', group('leavers', ['hugo', 'ivy']));
      await must(s, admin, 'DELETE', '/api/v1/users/hugo');
      expect((await must(s, admin, 'GET', '/api/v1/groups/leavers')).spec.members).to.deep.equal(['ivy']);
    });

    it('only those with a global permission on Group manage groups; a project Role cannot grant it', async () => {
      await signUp(s, 'jack');
      const jack = bearer(await login(s, 'jack'));
      const r = await s.api('POST', '/api/v1/groups', group('mine', ['jack']), jack);
      expect(r.status, r.text).to.equal(403);
      await must(s, admin, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'jp' }, spec: {} });
      const role = await s.api(
        'POST',
        '/api/v1/projects/jp/roles',
        { kind: 'Role', metadata: { name: 'g' }, spec: { permissions: [{ actions: ['*'], scopes: ['Group'] }] } },
        admin,
      );
      expect(role.status, role.text).to.equal(400);
      expect(role.text).to.include('GlobalRole');
    });

    it('malformed groups and subjects are refused with the field named', async () => {
      const cases: [unknown, string][] = [
        [{ kind: 'Group', metadata: { name: 'm1' }, spec: { members: 'alice' } }, 'spec.members'],
        [{ kind: 'Group', metadata: { name: 'm2' }, spec: { members: [1, 2] } }, 'spec.members[0]'],
        [{ kind: 'Group', metadata: { name: 'm3' }, spec: { members: ['a', 'a'] } }, 'spec.members'],
        [{ kind: 'Group', metadata: { name: 'm4' }, spec: { members: ['../x'] } }, 'spec.members[0]'],
        [{ kind: 'Group', metadata: { name: 'm5' }, spec: { members: [{ name: 'a' }] } }, 'spec.members[0]'],
        [{ kind: 'Group', metadata: { name: 'm6' }, spec: {} }, 'spec.members'],
        [{ kind: 'Group', metadata: { name: 'm7' }, spec: { members: ['x'.repeat(76)] } }, 'spec.members[0]'],
      ];
      for (const [body, path] of cases) {
        const r = await s.api('POST', '/api/v1/groups', body, admin);
        expect(r.status, r.text).to.equal(400);
        expect(
          (r.body.details ?? []).map((d: { path: string }) => d.path),
          r.text,
        ).to.include(path);
      }
      const subjects: [unknown, string][] = [
        [[{ kind: 'Robot', name: 'x' }], 'spec.subjects[0].kind'],
        [[{ kind: ['Group'], name: 'x' }], 'spec.subjects[0].kind'],
        [[{ kind: 'Group', name: 7 }], 'spec.subjects[0].name'],
        [[{ kind: 'Group', name: 'g'.repeat(257) }], 'spec.subjects[0].name'],
        [[{ kind: 'Group' }], 'spec.subjects[0].name'],
      ];
      for (const [subs, path] of subjects) {
        const r = await s.api(
          'POST',
          '/api/v1/globalrolebindings',
          { kind: 'GlobalRoleBinding', metadata: { name: 'bad' }, spec: { role: 'admin', subjects: subs } },
          admin,
        );
        expect(r.status, r.text).to.equal(400);
        expect(
          (r.body.details ?? []).map((d: { path: string }) => d.path),
          r.text,
        ).to.include(path);
      }
    });
  });

  describe('on two PostgreSQL replicas', () => {
    needsPrograms('postgresql');
    let pg: TestPostgres;
    let db: { url: string; drop(): Promise<void> };
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      pg = await sharedPostgres();
      db = await pg.createDatabase();
      const env = { ...AUTH_ENV, DASHPLANE_DATABASE_POSTGRES_URL: db.url, DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
      a = await startTestServer({ env });
      b = await startTestServer({ env });
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await db?.drop();
      await pg?.stop();
    });

    it('a group or group-binding change made on A holds on the next request to B', async () => {
      await groupStory(a, b, 'pg');
    });
  });
});
