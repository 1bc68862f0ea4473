/**
 * The Playlist kind (docs/api.md §1) through the real server and the built dashctl: what it
 * refuses and why, who may write one (the default editor role), dashctl's generic verbs on it,
 * and a project taking its playlists when deleted.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { dashctl, show, summary } from './helpers/dashctl.js';
import { tempDir, type TestServer } from './helpers/server.js';

/** The role scopes Perses v0.54 knows (pkg/model/api/v1/role/scope.go): any other makes it refuse the role. */
const PERSES_SCOPES = new Set([
  '*',
  'Dashboard',
  'Datasource',
  'EphemeralDashboard',
  'Folder',
  'GlobalDatasource',
  'GlobalRole',
  'GlobalRoleBinding',
  'GlobalSecret',
  'GlobalVariable',
  'Project',
  'Role',
  'RoleBinding',
  'Secret',
  'User',
  'Variable',
]);

const playlist = (spec: Record<string, unknown>, name = 'wall') => ({ kind: 'Playlist', metadata: { name, project: 'ops' }, spec });

describe('Playlist kind (a real server, dashctl in process)', function () {
  this.timeout(120_000);
  let s: TestServer;
  let admin: Record<string, string>;
  const tmp = tempDir('playlists-');
  const cfg = join(tmp.path, 'config.json');
  const run = (args: string[], input?: string) => dashctl(cfg, args, { input });

  before(async () => {
    s = await startAuthServer();
    admin = bearer(await loginAdmin(s));
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'ops' }, spec: {} }, admin)).status).to.equal(200);
    const r = await run(['login', s.url, '-u', 'admin', '--password-stdin', '-p', 'ops'], 'admin-password\n');
    expect(r.code, show(r)).to.equal(0);
  });
  after(async () => {
    await s?.stop();
    tmp.remove();
  });

  it('refuses an interval under 5s and items naming nothing, or both a dashboard and a tag, each at its path with the fix', async () => {
    const r = await s.api(
      'POST',
      '/api/v1/projects/ops/playlists',
      playlist({
        interval: '2s',
        items: [
          {},
          { dashboard: { name: 'a' }, tag: 'linux' },
          { dashboard: { name: 'b' }, project: 'x' },
          { tag: 'ok', project: 'other' },
        ],
      }),
      admin,
    );
    expect(r.status, r.text).to.equal(400);
    const details = (r.body.details as { path: string; message: string }[]).map((d) => `${d.path}: ${d.message}`);
    expect(details).to.have.members([
      'spec.interval: is 2s: a dashboard must stay at least 5s on screen (e.g. "30s", "5m")',
      'spec.items[0]: names nothing: give either dashboard: {name} or tag',
      'spec.items[1]: has both dashboard and tag: one item shows either one dashboard or the dashboards of a tag; make two items',
      'spec.items[2].project: goes with tag only: the project of a dashboard is dashboard.project',
    ]);
    const empty = await s.api('POST', '/api/v1/projects/ops/playlists', playlist({ interval: '5m', items: [] }), admin);
    expect(empty.status, empty.text).to.equal(400);
    expect(empty.text).to.include('spec.items');
  });

  it("a project's owner writes its playlists, a viewer reads them; an editor needs a Role naming Playlist, as the default roles name only Perses' kinds", async () => {
    await signUp(s, 'erin');
    await signUp(s, 'victor');
    for (const [user, role] of [
      ['erin', 'editor'],
      ['victor', 'viewer'],
    ]) {
      const b = await s.api(
        'POST',
        '/api/v1/projects/ops/rolebindings',
        { kind: 'RoleBinding', metadata: { name: role }, spec: { role, subjects: [{ kind: 'User', name: user }] } },
        admin,
      );
      expect(b.status, b.text).to.equal(200);
    }
    // a Perses client (percli, Perses' Go SDK) refuses a role naming a scope it does not know: the default roles stay readable to it
    const roles = (await s.api('GET', '/api/v1/projects/ops/roles', undefined, admin)).body as {
      spec: { permissions: { scopes: string[] }[] };
    }[];
    const scopes = new Set(roles.flatMap((r) => r.spec.permissions.flatMap((p) => p.scopes)));
    expect([...scopes].filter((x) => !PERSES_SCOPES.has(x))).to.deep.equal([]);
    const erin = bearer(await login(s, 'erin'));
    const refused = await s.api(
      'POST',
      '/api/v1/projects/ops/playlists',
      playlist({ interval: '1m', items: [{ tag: 'linux' }] }, 'erins'),
      erin,
    );
    expect(refused.status, refused.text).to.equal(403);
    const role = await s.api(
      'POST',
      '/api/v1/projects/ops/roles',
      { kind: 'Role', metadata: { name: 'playlists' }, spec: { permissions: [{ actions: ['*'], scopes: ['Playlist'] }] } },
      admin,
    );
    expect(role.status, role.text).to.equal(200);
    const grant = await s.api(
      'POST',
      '/api/v1/projects/ops/rolebindings',
      { kind: 'RoleBinding', metadata: { name: 'playlists' }, spec: { role: 'playlists', subjects: [{ kind: 'User', name: 'erin' }] } },
      admin,
    );
    expect(grant.status, grant.text).to.equal(200);
    const created = await s.api(
      'POST',
      '/api/v1/projects/ops/playlists',
      playlist({ interval: '1m', items: [{ tag: 'linux' }] }, 'erins'),
      erin,
    );
    expect(created.status, created.text).to.equal(200);
    const victor = bearer(await login(s, 'victor'));
    expect((await s.api('GET', '/api/v1/projects/ops/playlists/erins', undefined, victor)).status).to.equal(200);
    expect((await s.api('DELETE', '/api/v1/projects/ops/playlists/erins', undefined, victor)).status).to.equal(403);
    expect((await s.api('DELETE', '/api/v1/projects/ops/playlists/erins', undefined, erin)).status).to.equal(204);
  });

  it('dashctl applies, gets, diffs and deletes a playlist like any kind (pl is its short name)', async () => {
    const file = join(tmp.path, 'wall.yaml');
    const manifest = (interval: string) =>
      [
        'kind: Dashboard\nmetadata: {name: hosts}\nspec: {display: {name: Hosts}, duration: 1h, panels: {}, layouts: []}',
        `kind: Playlist\nmetadata: {name: wall}\nspec:\n  interval: ${interval}\n  items:\n    - dashboard: {name: hosts}\n    - tag: linux\n`,
      ].join('\n---\n');
    writeFileSync(file, manifest('5m'));
    const applied = await run(['apply', '-f', file]);
    expect(applied.code, show(applied)).to.equal(0);
    expect(summary(applied)).to.include({ created: 2, failed: 0 });
    const got = await run(['get', 'pl', '-o', 'yaml']);
    expect(got.code, show(got)).to.equal(0);
    expect(got.stdout).to.include('kind: Playlist').and.include('interval: 5m');
    writeFileSync(file, manifest('10m'));
    const diff = await run(['diff', '-f', file]);
    expect(diff.code, show(diff)).to.equal(1);
    expect(diff.stdout).to.include('-  interval: 5m').and.include('+  interval: 10m');
    expect(diff.stdout).not.to.include('Dashboard ops/hosts');
    const deleted = await run(['delete', 'playlists', 'wall']);
    expect(deleted.code, show(deleted)).to.equal(0);
    expect((await s.api('GET', '/api/v1/projects/ops/playlists/wall', undefined, admin)).status).to.equal(404);
  });

  it('a deleted project takes its playlists, and dashctl names them among what goes', async () => {
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'gone' }, spec: {} }, admin)).status).to.equal(
      200,
    );
    const p = await s.api(
      'POST',
      '/api/v1/projects/gone/playlists',
      { ...playlist({ interval: '1m', items: [{ tag: 't' }] }), metadata: { name: 'tv', project: 'gone' } },
      admin,
    );
    expect(p.status, p.text).to.equal(200);
    const r = await run(['delete', 'project', 'gone', '--yes']);
    expect(r.code, show(r)).to.equal(0);
    expect(r.stdout + r.stderr).to.match(/playlists\s+1/);
    expect(
      (await s.api('GET', '/api/v1/playlists', undefined, admin)).body.map((o: { metadata: { project: string } }) => o.metadata.project),
    ).not.to.include('gone');
  });
});
