/**
 * Authorization rows AUTHZ-01..07 of docs/security.md and the RBAC rules of docs/api.md §5
 * and §12 (viewer, GlobalRole, filtered lists), against a real server with auth on.
 *
 * Cast: olga owns proj-a and proj-b; rita is viewer of proj-a; ed is editor of proj-a; bea is
 * viewer of proj-b; dora holds a Role in proj-b that reads dashboards only; gina holds a
 * GlobalRole that reads dashboards and projects everywhere; nobody has no role at all.
 */
import { expect } from 'chai';
import { bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import type { ApiResponse, TestServer } from './helpers/server.js';

const panel = () => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text: 'hi' } } } });
const grid = () => [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }];
const dash = (name: string, title = name) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name: title }, duration: '1h', panels: { a: panel() }, layouts: grid() },
});
const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const binding = (name: string, role: string, user: string, kind = 'RoleBinding') => ({
  kind,
  metadata: { name },
  spec: { role, subjects: [{ kind: 'User', name: user }] },
});
const role = (name: string, permissions: { actions: string[]; scopes: string[] }[], kind = 'Role') => ({
  kind,
  metadata: { name },
  spec: { permissions },
});

/** Marker in every proj-b dashboard title: must never reach a caller without read on proj-b. */
const B_CANARY = 'B-CANARY-7f3a';
const names = (r: ApiResponse): string[] => (r.body as { metadata: { name: string } }[]).map((o) => o.metadata.name);
const keys = (r: ApiResponse): string[] =>
  (r.body as { metadata: { name: string; project: string } }[]).map((o) => `${o.metadata.project}/${o.metadata.name}`);

describe('authz: AUTHZ-01..07, viewer, GlobalRole, filtered lists', function () {
  this.timeout(20_000);
  let s: TestServer;
  let admin: Tokens;
  const t: Record<string, Tokens> = {};
  const as = (who: string) => bearer(t[who]);
  const ok = async (r: Promise<ApiResponse>, status = 200) => {
    const res = await r;
    expect(res.status, res.text).to.equal(status);
    return res;
  };
  const storedB = async () => JSON.stringify(await s.server.store.list({ kind: 'Dashboard', project: 'proj-b' }));

  before(async () => {
    s = await startAuthServer();
    admin = await loginAdmin(s);
    for (const name of ['olga', 'rita', 'ed', 'bea', 'dora', 'gina', 'nobody', 'tmp', 'tmp2']) {
      await signUp(s, name);
      t[name] = await login(s, name);
    }
    for (const p of ['proj-a', 'proj-b']) await ok(s.api('POST', '/api/v1/projects', project(p), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('a1'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('a2'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-b/dashboards', dash('b-secret-1', B_CANARY), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-b/dashboards', dash('b-secret-2', B_CANARY), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/rolebindings', binding('rita-viewer', 'viewer', 'rita'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/rolebindings', binding('ed-editor', 'editor', 'ed'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-b/rolebindings', binding('bea-viewer', 'viewer', 'bea'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-b/roles', role('dash-only', [{ actions: ['read'], scopes: ['Dashboard'] }]), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-b/rolebindings', binding('dora-dash', 'dash-only', 'dora'), as('olga')));
    await ok(
      s.api(
        'POST',
        '/api/v1/globalroles',
        role('dash-reader', [{ actions: ['read'], scopes: ['Dashboard', 'Project'] }], 'GlobalRole'),
        bearer(admin),
      ),
    );
    await ok(
      s.api('POST', '/api/v1/globalrolebindings', binding('gina-reader', 'dash-reader', 'gina', 'GlobalRoleBinding'), bearer(admin)),
    );
  });
  after(() => s?.stop());

  it('AUTHZ-01: read on A, GET /api/v1/projects/A/dashboards?project=B is 400 with no B data', async () => {
    for (const who of ['rita', 'ed']) {
      const r = await s.api('GET', '/api/v1/projects/proj-a/dashboards?project=proj-b', undefined, as(who));
      expect(r.status, r.text).to.equal(400);
      expect(r.text).to.not.include(B_CANARY);
      expect(r.text).to.not.include('b-secret');
    }
    // The other way round (path B, query A) is refused too, one way or the other, without B data.
    const r = await s.api('GET', '/api/v1/projects/proj-b/dashboards?project=proj-a', undefined, as('rita'));
    expect(r.status, r.text).to.be.oneOf([400, 403]);
    expect(r.text).to.not.include(B_CANARY);
  });

  it("AUTHZ-02: GET /api/v1/dashboards?project=B is 403 or [] and never B's items", async () => {
    for (const who of ['rita', 'ed', 'nobody']) {
      const r = await s.api('GET', '/api/v1/dashboards?project=proj-b', undefined, as(who));
      expect(r.status, `${who}: ${r.text}`).to.be.oneOf([200, 403]);
      if (r.status === 200) expect(r.body, who).to.deep.equal([]);
      expect(r.text).to.not.include(B_CANARY);
      expect(r.text).to.not.include('b-secret');
      const twice = await s.api('GET', '/api/v1/dashboards?project=proj-a&project=proj-b', undefined, as(who));
      expect(twice.text, `${who} with project twice`).to.not.include(B_CANARY);
    }
    // Control: with read on B the same query answers B's items, only them.
    expect(keys(await ok(s.api('GET', '/api/v1/dashboards?project=proj-b', undefined, as('bea'))))).to.deep.equal([
      'proj-b/b-secret-1',
      'proj-b/b-secret-2',
    ]);
  });

  it('AUTHZ-03: project=..%2F..%2Fx, a* and a%00 in the query are 400', async () => {
    for (const bad of ['..%2F..%2Fx', 'a*', 'a%00', '..', 'proj-%2A', '%2E%2E', 'proj-b%2F..%2Fproj-a']) {
      for (const path of [`/api/v1/dashboards?project=${bad}`, `/api/v1/projects/proj-a/dashboards?project=${bad}`]) {
        for (const who of [bearer(admin), as('rita')]) {
          const r = await s.api('GET', path, undefined, who);
          expect(r.status, `${path}: ${r.text}`).to.equal(400);
          expect(r.text).to.not.include(B_CANARY);
          expect(r.text).to.not.include('"kind":"Dashboard"');
        }
      }
    }
  });

  it('AUTHZ-04: the editor of A cannot update, delete or create in B; B is unchanged', async () => {
    const before = await storedB();
    let r = await s.api('PUT', '/api/v1/projects/proj-b/dashboards/b-secret-1', dash('b-secret-1', 'defaced'), as('ed'));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('DELETE', '/api/v1/projects/proj-b/dashboards/b-secret-1', undefined, as('ed'));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('DELETE', '/api/v1/projects/proj-b/dashboards/x', undefined, as('ed'));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('POST', '/api/v1/projects/proj-b/dashboards', dash('planted'), as('ed'));
    expect(r.status, r.text).to.equal(403);
    r = await s.api('POST', '/api/v1/dashboards', { ...dash('planted'), metadata: { name: 'planted', project: 'proj-b' } }, as('ed'));
    expect(r.status, r.text).to.equal(403);
    // Smuggling B through the body of an A route is a mismatch, not a write in B.
    r = await s.api(
      'PUT',
      '/api/v1/projects/proj-a/dashboards/b-secret-1',
      { ...dash('b-secret-1', 'defaced'), metadata: { name: 'b-secret-1', project: 'proj-b' } },
      as('ed'),
    );
    expect(r.status, r.text).to.be.oneOf([400, 404]);
    r = await s.api(
      'POST',
      '/api/v1/projects/proj-a/dashboards',
      { ...dash('planted'), metadata: { name: 'planted', project: 'proj-b' } },
      as('ed'),
    );
    expect(r.status, r.text).to.equal(400);
    r = await s.api('DELETE', '/api/v1/projects/proj-b', undefined, as('ed'));
    expect(r.status, r.text).to.equal(403);
    expect(await storedB()).to.equal(before);
    expect(await s.server.store.get({ kind: 'Project', project: '', name: 'proj-b' })).to.not.equal(undefined);
    // Control: the same user can write in A.
    await ok(s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('ed-1'), as('ed')));
    await ok(s.api('PUT', '/api/v1/projects/proj-a/dashboards/ed-1', dash('ed-1', 'changed'), as('ed')));
    await ok(s.api('DELETE', '/api/v1/projects/proj-a/dashboards/ed-1', undefined, as('ed')), 204);
  });

  it('AUTHZ-05: removing a RoleBinding, a GlobalRoleBinding or a permission takes effect on the very next request', async () => {
    // Project binding.
    await ok(s.api('POST', '/api/v1/projects/proj-a/rolebindings', binding('tmp-editor', 'editor', 'tmp'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('tmp-1'), as('tmp')));
    await ok(s.api('DELETE', '/api/v1/projects/proj-a/rolebindings/tmp-editor', undefined, as('olga')), 204);
    expect((await s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('tmp-2'), as('tmp'))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/projects/proj-a/dashboards/tmp-1', undefined, as('tmp'))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/dashboards', undefined, as('tmp'))).body).to.deep.equal([]);

    // Global binding.
    await ok(
      s.api('POST', '/api/v1/globalrolebindings', binding('tmp2-reader', 'dash-reader', 'tmp2', 'GlobalRoleBinding'), bearer(admin)),
    );
    await ok(s.api('GET', '/api/v1/projects/proj-b/dashboards/b-secret-1', undefined, as('tmp2')));
    await ok(s.api('DELETE', '/api/v1/globalrolebindings/tmp2-reader', undefined, bearer(admin)), 204);
    const r = await s.api('GET', '/api/v1/projects/proj-b/dashboards/b-secret-1', undefined, as('tmp2'));
    expect(r.status, r.text).to.equal(403);
    expect(r.text).to.not.include(B_CANARY);

    // A permission taken out of the Role itself.
    await ok(s.api('POST', '/api/v1/projects/proj-a/roles', role('writer', [{ actions: ['*'], scopes: ['Dashboard'] }]), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/rolebindings', binding('tmp-writer', 'writer', 'tmp'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('tmp-3'), as('tmp')));
    await ok(
      s.api('PUT', '/api/v1/projects/proj-a/roles/writer', role('writer', [{ actions: ['read'], scopes: ['Dashboard'] }]), as('olga')),
    );
    expect((await s.api('POST', '/api/v1/projects/proj-a/dashboards', dash('tmp-4'), as('tmp'))).status).to.equal(403);
    await ok(s.api('GET', '/api/v1/projects/proj-a/dashboards/tmp-3', undefined, as('tmp')));
    await ok(s.api('DELETE', '/api/v1/projects/proj-a/roles/writer', undefined, as('olga')), 204);
    expect((await s.api('GET', '/api/v1/projects/proj-a/dashboards/tmp-3', undefined, as('tmp'))).status).to.equal(403);
    expect(await s.server.store.get({ kind: 'Dashboard', project: 'proj-a', name: 'tmp-2' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'Dashboard', project: 'proj-a', name: 'tmp-4' })).to.equal(undefined);
  });

  it('AUTHZ-06: 200 interleaved parallel requests from two users with different roles each answer for their own caller', async () => {
    const expectations = {
      rita: {
        list: ['proj-a/a1', 'proj-a/a2'],
        own: '/api/v1/projects/proj-a/dashboards/a1',
        other: '/api/v1/projects/proj-b/dashboards/b-secret-1',
      },
      bea: {
        list: ['proj-b/b-secret-1', 'proj-b/b-secret-2'],
        own: '/api/v1/projects/proj-b/dashboards/b-secret-1',
        other: '/api/v1/projects/proj-a/dashboards/a1',
      },
    };
    // Only tmp-* dashboards may have come and gone in proj-a; compare against a1/a2 only.
    const listA = (r: ApiResponse) => keys(r).filter((k) => !k.startsWith('proj-a/tmp-'));
    const jobs = Array.from({ length: 200 }, (_, i) => {
      const who = i % 2 === 0 ? 'rita' : 'bea';
      const e = expectations[who];
      const kind = Math.floor(i / 2) % 4;
      const check = async () => {
        if (kind === 0) {
          const r = await s.api('GET', '/api/v1/user/whoami', undefined, as(who));
          expect(r.status, `${i} ${who} whoami`).to.equal(200);
          expect(r.body.metadata.name, `${i} ${who} whoami`).to.equal(who);
        } else if (kind === 1) {
          const r = await s.api('GET', '/api/v1/dashboards', undefined, as(who));
          expect(r.status, `${i} ${who} list`).to.equal(200);
          expect(listA(r), `${i} ${who} list`).to.deep.equal(e.list);
        } else if (kind === 2) {
          const r = await s.api('GET', e.own, undefined, as(who));
          expect(r.status, `${i} ${who} own`).to.equal(200);
        } else {
          const r = await s.api('GET', e.other, undefined, as(who));
          expect(r.status, `${i} ${who} other: ${r.text}`).to.equal(403);
          expect(r.text).to.not.include(B_CANARY);
        }
      };
      return check();
    });
    const results = await Promise.allSettled(jobs);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
    expect(failures, failures.slice(0, 5).join('\n')).to.deep.equal([]);
  });

  it('AUTHZ-07: 500 concurrent anonymous and admin requests to admin-only routes: 0 anonymous successes', async () => {
    const ANON = 'anon-role-';
    const jobs = Array.from({ length: 500 }, (_, i) => {
      const anonymous = i % 2 === 0;
      const headers: Record<string, string> = anonymous ? (i % 4 === 0 ? {} : { authorization: 'Bearer x.y.z' }) : bearer(admin);
      const request =
        i % 3 === 0
          ? s.api(
              'POST',
              '/api/v1/globalroles',
              role(`${anonymous ? ANON : 'admin-role-'}${i}`, [{ actions: ['*'], scopes: ['*'] }], 'GlobalRole'),
              headers,
            )
          : s.api('GET', '/api/v1/users', undefined, headers);
      return request.then((r) => ({ i, anonymous, status: r.status, text: r.text }));
    });
    const results = await Promise.all(jobs);
    const anonymousSuccesses = results.filter((r) => r.anonymous && r.status < 300);
    expect(anonymousSuccesses, JSON.stringify(anonymousSuccesses.slice(0, 3))).to.deep.equal([]);
    for (const r of results.filter((x) => x.anonymous)) {
      expect(r.status, r.text).to.equal(401);
      expect(r.text).to.not.include('olga');
    }
    const adminFailures = results.filter((r) => !r.anonymous && r.status !== 200);
    expect(adminFailures, JSON.stringify(adminFailures.slice(0, 3))).to.deep.equal([]);
    const roles = (await s.server.store.list({ kind: 'GlobalRole' })).map((o) => o.metadata.name);
    expect(roles.filter((n) => n.startsWith(ANON))).to.deep.equal([]);
    expect(roles.filter((n) => n.startsWith('admin-role-'))).to.have.length(results.filter((r) => !r.anonymous && r.i % 3 === 0).length);
    // A signed-in user without a global role gets 403 there, not 200.
    expect((await s.api('GET', '/api/v1/users', undefined, as('nobody'))).status).to.equal(403);
  });

  it('a viewer can read but not write, and cannot grant themselves more', async () => {
    await ok(s.api('GET', '/api/v1/projects/proj-a', undefined, as('rita')));
    await ok(s.api('GET', '/api/v1/projects/proj-a/dashboards/a1', undefined, as('rita')));
    expect(names(await ok(s.api('GET', '/api/v1/projects/proj-a/roles', undefined, as('rita'))))).to.include('viewer');
    const before = JSON.stringify(await s.server.store.list({ kind: 'Dashboard', project: 'proj-a' }));
    const attempts: [string, string, unknown?][] = [
      ['POST', '/api/v1/projects/proj-a/dashboards', dash('rita-1')],
      ['PUT', '/api/v1/projects/proj-a/dashboards/a1', dash('a1', 'rita was here')],
      ['DELETE', '/api/v1/projects/proj-a/dashboards/a1'],
      ['POST', '/api/v1/projects/proj-a/roles', role('rita-all', [{ actions: ['*'], scopes: ['*'] }])],
      ['POST', '/api/v1/projects/proj-a/rolebindings', binding('rita-owner', 'owner', 'rita')],
      ['PUT', '/api/v1/projects/proj-a/rolebindings/rita-viewer', binding('rita-viewer', 'viewer', 'rita')],
      ['DELETE', '/api/v1/projects/proj-a/rolebindings/ed-editor'],
      ['PUT', '/api/v1/projects/proj-a/roles/viewer', role('viewer', [{ actions: ['*'], scopes: ['*'] }])],
      ['PUT', '/api/v1/projects/proj-a', project('proj-a')],
      ['DELETE', '/api/v1/projects/proj-a'],
    ];
    for (const [method, path, body] of attempts) {
      const r = await s.api(method, path, body, as('rita'));
      expect(r.status, `${method} ${path}: ${r.text}`).to.equal(403);
    }
    expect(JSON.stringify(await s.server.store.list({ kind: 'Dashboard', project: 'proj-a' }))).to.equal(before);
    expect(await s.server.store.get({ kind: 'RoleBinding', project: 'proj-a', name: 'rita-owner' })).to.equal(undefined);
    expect(await s.server.store.get({ kind: 'RoleBinding', project: 'proj-a', name: 'ed-editor' })).to.not.equal(undefined);
    const viewer = await s.server.store.get({ kind: 'Role', project: 'proj-a', name: 'viewer' });
    expect(viewer!.spec).to.deep.equal({ permissions: [{ actions: ['read'], scopes: ['*'] }] });
  });

  it('GlobalRole grants apply in every project, also one created later', async () => {
    await ok(s.api('GET', '/api/v1/projects/proj-a/dashboards/a1', undefined, as('gina')));
    await ok(s.api('GET', '/api/v1/projects/proj-b/dashboards/b-secret-1', undefined, as('gina')));
    await ok(s.api('POST', '/api/v1/projects', project('proj-c'), as('olga')));
    await ok(s.api('POST', '/api/v1/projects/proj-c/dashboards', dash('c1'), as('olga')));
    await ok(s.api('GET', '/api/v1/projects/proj-c/dashboards/c1', undefined, as('gina')));
    const list = keys(await ok(s.api('GET', '/api/v1/dashboards', undefined, as('gina')))).filter((k) => !k.startsWith('proj-a/tmp-'));
    expect(list).to.deep.equal(['proj-a/a1', 'proj-a/a2', 'proj-b/b-secret-1', 'proj-b/b-secret-2', 'proj-c/c1']);
    expect(names(await ok(s.api('GET', '/api/v1/projects', undefined, as('gina'))))).to.deep.equal(['proj-a', 'proj-b', 'proj-c']);
    const perms = await ok(s.api('GET', '/api/v1/users/gina/permissions', undefined, as('gina')));
    expect(perms.body['*']).to.deep.include({ actions: ['read'], scopes: ['Dashboard', 'Project'] });
    // Read only: the GlobalRole grants no write, and nothing outside its scopes.
    expect((await s.api('POST', '/api/v1/projects/proj-c/dashboards', dash('gina-1'), as('gina'))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/projects/proj-c/roles', undefined, as('gina'))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/projects/proj-c/datasources', undefined, as('gina'))).status).to.equal(403);
  });

  it('the cross-project lists and the project list only show what the caller may read', async () => {
    const projects = async (who: string) => names(await ok(s.api('GET', '/api/v1/projects', undefined, as(who))));
    const list = async (who: string, plural: string) =>
      keys(await ok(s.api('GET', `/api/v1/${plural}`, undefined, as(who)))).filter((k) => !k.startsWith('proj-a/tmp-'));
    expect(await projects('rita')).to.deep.equal(['proj-a']);
    expect(await projects('ed')).to.deep.equal(['proj-a']);
    expect(await projects('bea')).to.deep.equal(['proj-b']);
    expect(await projects('nobody')).to.deep.equal([]);
    // dora may read dashboards in proj-b but not the project itself nor anything else there.
    expect(await projects('dora')).to.deep.equal([]);
    expect(await list('dora', 'dashboards')).to.deep.equal(['proj-b/b-secret-1', 'proj-b/b-secret-2']);
    expect(await list('dora', 'roles')).to.deep.equal([]);
    expect(await list('dora', 'rolebindings')).to.deep.equal([]);
    expect(await list('rita', 'dashboards')).to.deep.equal(['proj-a/a1', 'proj-a/a2']);
    expect((await list('rita', 'roles')).every((k) => k.startsWith('proj-a/'))).to.equal(true);
    expect((await list('ed', 'rolebindings')).every((k) => k.startsWith('proj-a/'))).to.equal(true);
    expect(await list('ed', 'rolebindings')).to.include('proj-a/ed-editor');
    expect(await list('nobody', 'dashboards')).to.deep.equal([]);
    expect(await list('nobody', 'rolebindings')).to.deep.equal([]);
    expect(await list('bea', 'dashboards')).to.deep.equal(['proj-b/b-secret-1', 'proj-b/b-secret-2']);
    // The owner and the admin see everything they own / everything.
    expect(await projects('olga')).to.include.members(['proj-a', 'proj-b']);
    expect(names(await ok(s.api('GET', '/api/v1/projects', undefined, bearer(admin))))).to.include.members(['proj-a', 'proj-b']);
    // A signed-in caller without read learns nothing about existence either: same status for a real and a missing project.
    for (const path of ['/api/v1/projects/{p}', '/api/v1/projects/{p}/dashboards', '/api/v1/projects/{p}/dashboards/b-secret-1']) {
      const real = await s.api('GET', path.replace('{p}', 'proj-b'), undefined, as('rita'));
      const missing = await s.api('GET', path.replace('{p}', 'proj-missing'), undefined, as('rita'));
      expect([real.status, missing.status], path).to.deep.equal([403, 403]);
    }
    // Same filter with metadata_only and with a name prefix.
    const r = await ok(s.api('GET', '/api/v1/dashboards?metadata_only=true&name=b-', undefined, as('rita')));
    expect(r.body).to.deep.equal([]);
  });

  it('AUTHZ-09: creating a project whose name is taken, or an object in a project one cannot read, answers exactly as for a free name to a caller who may not create there; to one who may, the 409 names nothing but the name', async () => {
    const same = (taken: ApiResponse, free: ApiResponse, takenName: string, freeName: string, what: string) => {
      expect(taken.status, `${what}: ${taken.text}`).to.equal(403);
      expect(taken.text.replaceAll(takenName, 'X'), what).to.equal(free.text.replaceAll(freeName, 'X'));
    };
    // callers who may not create projects: a token narrowed to reading dashboards, a service account without bindings
    const narrowed = await ok(
      s.api(
        'POST',
        '/api/v1/user/tokens',
        { name: 'read-only', ttl: '1h', permissions: [{ actions: ['read'], scopes: ['Dashboard'] }] },
        as('nobody'),
      ),
    );
    await ok(
      s.api(
        'POST',
        '/api/v1/globalserviceaccounts',
        { kind: 'GlobalServiceAccount', metadata: { name: 'robot' }, spec: {} },
        bearer(admin),
      ),
    );
    const robot = await ok(s.api('POST', '/api/v1/globalserviceaccounts/robot/tokens', { name: 'ci', ttl: '1h' }, bearer(admin)));
    for (const [who, auth] of [
      ['narrowed token', bearer(narrowed.body.token)],
      ['service account', bearer(robot.body.token)],
    ] as const) {
      for (const query of ['', '?dryRun=true']) {
        const taken = await s.api('POST', `/api/v1/projects${query}`, project('proj-b'), auth);
        const free = await s.api('POST', `/api/v1/projects${query}`, project('free-proj'), auth);
        same(taken, free, 'proj-b', 'free-proj', `${who} creating a project${query}`);
      }
    }
    expect((await s.api('GET', '/api/v1/projects/free-proj', undefined, bearer(admin))).status, 'nothing made').to.equal(404);
    // objects in a project the caller cannot read: the same 403 whether the project (or the object's name) exists or not
    for (const [plural, body] of [
      ['dashboards', dash('b-secret-1')],
      ['dashboards', dash('fresh')],
      ['roles', role('viewer', [{ actions: ['read'], scopes: ['*'] }])],
      ['rolebindings', binding('owner', 'owner', 'nobody')],
    ] as const) {
      for (const query of ['', '?dryRun=true']) {
        const taken = await s.api('POST', `/api/v1/projects/proj-b/${plural}${query}`, body, as('nobody'));
        const free = await s.api('POST', `/api/v1/projects/no-such-proj/${plural}${query}`, body, as('nobody'));
        same(taken, free, 'proj-b', 'no-such-proj', `${plural}/${body.metadata.name}${query}`);
      }
    }
    // a caller who may create projects (the guest permission) learns that the name is taken, and nothing more
    for (const query of ['', '?dryRun=true']) {
      const r = await s.api('POST', `/api/v1/projects${query}`, project('proj-b'), as('nobody'));
      expect(r.status, r.text).to.equal(409);
      expect(r.body).to.deep.equal({ message: 'Project "proj-b" already exists', reason: 'AlreadyExists' });
      expect(r.headers.get('etag')).to.equal(null);
    }
    expect(await storedB()).to.contain(B_CANARY);
  });

  it('existence of a project: GET answers alike for unreadable and missing projects; a create that collides says only that the name is taken', async () => {
    // GET, PUT, DELETE and child routes: the same 403 whether proj-b exists or not (only the name differs)
    const scrub = (r: ApiResponse) => `${r.status} ${r.text.replaceAll('proj-b', 'X').replaceAll('no-such-proj', 'X')}`;
    for (const [method, path] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/dashboards'],
      ['GET', '/dashboards/b-secret-1'],
      ['GET', '/datasources'],
    ]) {
      const there = await s.api(method, `/api/v1/projects/proj-b${path}`, undefined, as('nobody'));
      const missing = await s.api(method, `/api/v1/projects/no-such-proj${path}`, undefined, as('nobody'));
      expect(there.status, there.text).to.equal(403);
      expect(scrub(there), `${method} ${path}`).to.equal(scrub(missing));
    }
    // a name is one namespace for everybody (as in Kubernetes): the collision is a 409, which tells
    // the name is taken and nothing else: not the owner, the dates or the contents
    const taken = await s.api('POST', '/api/v1/projects', project('proj-b'), as('nobody'));
    expect(taken.status, taken.text).to.equal(409);
    expect(taken.body).to.deep.equal({ message: 'Project "proj-b" already exists', reason: 'AlreadyExists' });
    expect(taken.text).not.to.match(/olga|createdAt|updatedAt|version|canary/i);
    expect(await storedB()).to.contain(B_CANARY);
  });
});
