/**
 * Version history (docs/api.md §7): every update and delete of a Dashboard (and Datasource, Variable,
 * Folder and their global kinds) keeps the previous object; versions list (newest first, without
 * the current version), one version, restore; `history.max_versions` retention ("number of
 * previous versions kept per object", schemas/config.json); history goes with its project.
 */
import { expect } from 'chai';
import { bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

const panel = (text: string) => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text } } } });
const grid = () => [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }];
const dash = (name: string, title: string, tags?: string[]) => ({
  kind: 'Dashboard',
  metadata: { name, ...(tags ? { tags } : {}) },
  spec: { display: { name: title }, duration: '1h', panels: { a: panel(`text of ${title}`) }, layouts: grid() },
});
const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const binding = (name: string, role: string, user: string) => ({
  kind: 'RoleBinding',
  metadata: { name },
  spec: { role, subjects: [{ kind: 'User', name: user }] },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

type Entry = { version: number; updatedAt: string; updatedBy: string; manager: string };

describe('version history (docs/api.md §7)', function () {
  this.timeout(30_000);

  describe('auth off', () => {
    let s: TestServer;
    const base = '/api/v1/projects/h/dashboards';
    /** create + n updates; returns every answer (version 0..n). */
    const history = async (name: string, n: number, prefix = name): Promise<any[]> => {
      const out = [(await ok(s.api('POST', base, dash(name, `${prefix}-v0`)))).body];
      for (let i = 1; i <= n; i++) out.push((await ok(s.api('PUT', `${base}/${name}`, dash(name, `${prefix}-v${i}`, [`t${i}`])))).body);
      return out;
    };
    const versions = async (name: string, path = base): Promise<Entry[]> =>
      (await ok(s.api('GET', `${path}/${name}/versions`))).body as Entry[];

    before(async () => {
      s = await startTestServer();
      for (const p of ['h', 'hp', 'hpx']) await ok(s.api('POST', '/api/v1/projects', project(p)));
    });
    after(() => s?.stop());

    it('three updates, then the list holds three older versions, newest first, as {version, updatedAt, updatedBy, manager}', async () => {
      const answers = await history('d1', 3);
      const list = await versions('d1');
      expect(list.map((v) => v.version)).to.deep.equal([2, 1, 0]);
      for (const v of list) {
        expect(Object.keys(v).sort()).to.deep.equal(['manager', 'updatedAt', 'updatedBy', 'version']);
        expect(v.updatedBy).to.equal('anonymous');
        expect(v.manager, 'no X-Dashplane-Manager sent').to.equal('api');
        expect(v.updatedAt).to.equal(answers[v.version].metadata.updatedAt);
      }
    });

    it('one old version is the whole object as it was', async () => {
      const answers = await history('d2', 3);
      for (const v of [0, 1, 2]) {
        const r = await ok(s.api('GET', `${base}/d2/versions/${v}`));
        expect(r.body).to.deep.equal(answers[v]);
      }
      expect((await s.api('GET', `${base}/d2/versions/7`)).status).to.equal(404);
      expect((await s.api('GET', `${base}/d2/versions/abc`)).status).to.equal(400);
      expect((await s.api('GET', `${base}/nothing/versions`)).status).to.equal(404);
    });

    it('restore makes that content the latest version (+1, ETag), and the restore itself enters history', async () => {
      const answers = await history('d3', 3);
      const r = await ok(s.api('POST', `${base}/d3/versions/1/restore`));
      expect(r.headers.get('etag')).to.equal('"4"');
      expect(r.body.metadata.version).to.equal(4);
      expect(r.body.spec).to.deep.equal(answers[1].spec);
      expect(r.body.metadata.tags).to.deep.equal(answers[1].metadata.tags);
      expect(r.body.metadata.createdAt).to.equal(answers[0].metadata.createdAt);
      const now = await ok(s.api('GET', `${base}/d3`));
      expect(now.headers.get('etag')).to.equal('"4"');
      expect(now.body.spec).to.deep.equal(answers[1].spec);
      expect((await versions('d3')).map((v) => v.version)).to.deep.equal([3, 2, 1, 0]);
      // the next change pushes the restore into the list, by its author
      await ok(s.api('PUT', `${base}/d3`, dash('d3', 'd3-v5')));
      const list = await versions('d3');
      expect(list.map((v) => v.version)).to.deep.equal([4, 3, 2, 1, 0]);
      expect(list[0]).to.deep.include({ updatedBy: 'anonymous', updatedAt: r.body.metadata.updatedAt, manager: 'restore' });
      expect((await ok(s.api('GET', `${base}/d3/versions/4`))).body.spec).to.deep.equal(answers[1].spec);
      expect((await s.api('POST', `${base}/d3/versions/99/restore`)).status).to.equal(404);
    });

    it('restore takes ?dryRun=true (answers what it would store, stores nothing) and If-Match (412 on another version), on a live and on a deleted object', async () => {
      const answers = await history('d6', 3);
      const dry = await ok(s.api('POST', `${base}/d6/versions/0/restore?dryRun=true`));
      expect(dry.body.metadata.version).to.equal(4);
      expect(dry.body.spec).to.deep.equal(answers[0].spec);
      const now = await ok(s.api('GET', `${base}/d6`));
      expect(now.body.metadata.version, 'a dry run writes no version').to.equal(3);
      expect(now.body.spec).to.deep.equal(answers[3].spec);
      expect((await versions('d6')).map((v) => v.version)).to.deep.equal([2, 1, 0]);
      expect((await s.api('POST', `${base}/d6/versions/0/restore`, undefined, { 'if-match': '"2"' })).status).to.equal(412);
      expect((await ok(s.api('POST', `${base}/d6/versions/0/restore`, undefined, { 'if-match': '"3"' }))).body.metadata.version).to.equal(
        4,
      );
      await ok(s.api('DELETE', `${base}/d6`), 204);
      await ok(s.api('POST', `${base}/d6/versions/1/restore?dryRun=true`));
      expect((await s.api('GET', `${base}/d6`)).status, 'a dry run does not bring a deleted object back').to.equal(404);
      expect(
        (await s.api('POST', `${base}/d6/versions/1/restore`, undefined, { 'if-match': '"4"' })).status,
        'no version of a deleted object can match',
      ).to.equal(412);
      expect((await s.api('GET', `${base}/d6`)).status).to.equal(404);
    });

    it('kinds without history (Secret, GlobalSecret, User, EphemeralDashboard) answer 404 on /versions', async () => {
      await ok(
        s.api('POST', '/api/v1/projects/h/secrets', {
          kind: 'Secret',
          metadata: { name: 's' },
          spec: { basicAuth: { username: 'u', password: 'p' } },
        }),
      );
      await ok(
        s.api('PUT', '/api/v1/projects/h/secrets/s', {
          kind: 'Secret',
          metadata: { name: 's' },
          spec: { basicAuth: { username: 'u', password: 'p2' } },
        }),
      );
      await ok(
        s.api('POST', '/api/v1/globalsecrets', {
          kind: 'GlobalSecret',
          metadata: { name: 'gs' },
          spec: { basicAuth: { username: 'u', password: 'p' } },
        }),
      );
      const e = dash('e', 'e');
      await ok(
        s.api('POST', '/api/v1/projects/h/ephemeraldashboards', { ...e, kind: 'EphemeralDashboard', spec: { ...e.spec, ttl: '1h' } }),
      );
      await ok(
        s.api('PUT', '/api/v1/projects/h/ephemeraldashboards/e', { ...e, kind: 'EphemeralDashboard', spec: { ...e.spec, ttl: '2h' } }),
      );
      for (const path of [
        '/api/v1/projects/h/secrets/s/versions',
        '/api/v1/projects/h/secrets/s/versions/0',
        '/api/v1/globalsecrets/gs/versions',
        '/api/v1/users/someone/versions',
        '/api/v1/projects/h/ephemeraldashboards/e/versions',
        '/api/v1/projects/h/ephemeraldashboards/e/versions/0',
      ]) {
        const r = await s.api('GET', path);
        expect(r.status, path).to.equal(404);
        expect(r.text, path).to.not.include('"p"');
      }
      expect((await s.api('POST', '/api/v1/projects/h/secrets/s/versions/0/restore')).status).to.equal(404);
      // while the kinds that keep history all answer
      await ok(s.api('POST', '/api/v1/projects/h/folders', { kind: 'Folder', metadata: { name: 'f' }, spec: { items: [] } }));
      await ok(
        s.api('PUT', '/api/v1/projects/h/folders/f', {
          kind: 'Folder',
          metadata: { name: 'f' },
          spec: { display: { name: 'F' }, items: [] },
        }),
      );
      expect((await versions('f', '/api/v1/projects/h/folders')).map((v) => v.version)).to.deep.equal([0]);
      const gv = { kind: 'GlobalVariable', metadata: { name: 'gv' }, spec: { kind: 'TextVariable', spec: { name: 'gv', value: 'a' } } };
      await ok(s.api('POST', '/api/v1/globalvariables', gv));
      await ok(s.api('PUT', '/api/v1/globalvariables/gv', { ...gv, spec: { kind: 'TextVariable', spec: { name: 'gv', value: 'b' } } }));
      expect((await versions('gv', '/api/v1/globalvariables')).map((v) => v.version)).to.deep.equal([0]);
    });

    it('a deleted dashboard keeps its versions and can be restored (re-created); the restore keeps counting and keeps the history', async () => {
      const answers = await history('d4', 2);
      await ok(s.api('DELETE', `${base}/d4`), 204);
      expect((await s.api('GET', `${base}/d4`)).status).to.equal(404);
      expect((await versions('d4')).map((v) => v.version)).to.deep.equal([2, 1, 0]);
      expect((await ok(s.api('GET', `${base}/d4/versions/2`))).body).to.deep.equal(answers[2]);
      const r = await ok(s.api('POST', `${base}/d4/versions/1/restore`));
      expect(r.body.spec).to.deep.equal(answers[1].spec);
      expect((await ok(s.api('GET', `${base}/d4`))).body.spec).to.deep.equal(answers[1].spec);
      // docs/api.md §7: "version counter still increases"; the versions restored from must not vanish
      expect(r.body.metadata.version, 'version after restoring a deleted dashboard last at version 2').to.be.greaterThan(2);
      expect(
        (await versions('d4')).map((v) => v.version),
        'history after restoring a deleted dashboard',
      ).to.include.members([2, 1, 0]);
    });

    it('lists the deleted objects of a project whose history is kept, most recent first, until restored', async () => {
      await history('del-a', 1);
      await history('del-b', 2);
      await ok(s.api('DELETE', `${base}/del-a`), 204);
      await ok(s.api('DELETE', `${base}/del-b`), 204);
      const deleted = (await ok(s.api('GET', '/api/v1/projects/h/deleted/dashboards'))).body as (Entry & { name: string })[];
      const ours = deleted.filter((e) => e.name.startsWith('del-'));
      expect(ours.map((e) => [e.name, e.version, e.updatedBy, e.manager])).to.deep.equal([
        ['del-b', 2, 'anonymous', 'api'],
        ['del-a', 1, 'anonymous', 'api'],
      ]);
      await ok(s.api('POST', `${base}/del-a/versions/1/restore`));
      expect(
        ((await ok(s.api('GET', '/api/v1/projects/h/deleted/dashboards'))).body as { name: string }[]).map((e) => e.name),
      ).to.not.include('del-a');
      // global kinds with history too; kinds without history have no such route
      await ok(
        s.api('POST', '/api/v1/globalvariables', {
          kind: 'GlobalVariable',
          metadata: { name: 'gone-gv' },
          spec: { kind: 'TextVariable', spec: { value: 'x' } },
        }),
      );
      await ok(s.api('DELETE', '/api/v1/globalvariables/gone-gv'), 204);
      expect(((await ok(s.api('GET', '/api/v1/deleted/globalvariables'))).body as { name: string }[]).map((e) => e.name)).to.include(
        'gone-gv',
      );
      expect((await s.api('GET', '/api/v1/projects/h/deleted/secrets')).status).to.equal(404);
      // a dashboard may be called "deleted": its routes are not shadowed
      await ok(s.api('POST', base, dash('deleted', 'a dashboard named deleted')));
      expect((await ok(s.api('GET', `${base}/deleted`))).body.spec.display.name).to.equal('a dashboard named deleted');
    });

    it('re-creating a deleted name (POST) starts a fresh history', async () => {
      await history('d5', 2);
      await ok(s.api('DELETE', `${base}/d5`), 204);
      const fresh = await ok(s.api('POST', base, dash('d5', 'reborn')));
      expect(fresh.body.metadata.version).to.equal(0);
      expect(await versions('d5')).to.deep.equal([]);
      for (const v of [0, 1, 2]) {
        const old = await s.api('GET', `${base}/d5/versions/${v}`);
        if (v === 0 && old.status === 200) expect(old.body.spec.display.name, 'version 0 is the new object').to.equal('reborn');
        else expect(old.status, `old version ${v}`).to.equal(404);
      }
      await ok(s.api('PUT', `${base}/d5`, dash('d5', 'reborn-1')));
      const list = await versions('d5');
      expect(list.map((v) => v.version)).to.deep.equal([0]);
      expect((await ok(s.api('GET', `${base}/d5/versions/0`))).body.spec.display.name).to.equal('reborn');
    });

    it('deleting the project removes its history (and only its history)', async () => {
      for (const p of ['hp', 'hpx']) {
        await ok(s.api('POST', `/api/v1/projects/${p}/dashboards`, dash('dd', 'v0')));
        await ok(s.api('PUT', `/api/v1/projects/${p}/dashboards/dd`, dash('dd', 'v1')));
        await ok(s.api('PUT', `/api/v1/projects/${p}/dashboards/dd`, dash('dd', 'v2')));
        await ok(s.api('POST', `/api/v1/projects/${p}/dashboards`, dash('gone', 'v0')));
        await ok(s.api('PUT', `/api/v1/projects/${p}/dashboards/gone`, dash('gone', 'v1')));
        await ok(s.api('DELETE', `/api/v1/projects/${p}/dashboards/gone`), 204);
      }
      await ok(s.api('DELETE', '/api/v1/projects/hp'), 204);
      await ok(s.api('POST', '/api/v1/projects', project('hp')));
      for (const path of [
        '/api/v1/projects/hp/dashboards/dd/versions',
        '/api/v1/projects/hp/dashboards/dd/versions/1',
        '/api/v1/projects/hp/dashboards/gone/versions',
        '/api/v1/projects/hp/dashboards/gone/versions/0',
      ]) {
        expect((await s.api('GET', path)).status, path).to.equal(404);
      }
      expect((await s.api('POST', '/api/v1/projects/hp/dashboards/gone/versions/0/restore')).status).to.equal(404);
      expect((await versions('dd', '/api/v1/projects/hpx/dashboards')).map((v) => v.version)).to.deep.equal([1, 0]);
      expect((await versions('gone', '/api/v1/projects/hpx/dashboards')).map((v) => v.version)).to.deep.equal([1, 0]);
    });
  });

  it('retention: history.max_versions=3 keeps the 3 newest previous versions and drops the oldest', async () => {
    const s = await startTestServer({ env: { DASHPLANE_HISTORY_MAX_VERSIONS: '3' } });
    try {
      await ok(s.api('POST', '/api/v1/projects', project('r')));
      const base = '/api/v1/projects/r/dashboards';
      await ok(s.api('POST', base, dash('d', 'v0')));
      for (let i = 1; i <= 5; i++) await ok(s.api('PUT', `${base}/d`, dash('d', `v${i}`)));
      const list = (await ok(s.api('GET', `${base}/d/versions`))).body as Entry[];
      expect(
        list.map((v) => v.version),
        'previous versions kept at version 5 with max_versions=3',
      ).to.deep.equal([4, 3, 2]);
      for (const v of [0, 1]) expect((await s.api('GET', `${base}/d/versions/${v}`)).status, `dropped version ${v}`).to.equal(404);
      expect((await ok(s.api('GET', `${base}/d/versions/4`))).body.spec.display.name).to.equal('v4');
    } finally {
      await s.stop();
    }
  });

  describe('auth on', () => {
    let s: TestServer;
    let admin: Tokens;
    const t: Record<string, Tokens> = {};
    const as = (who: string) => bearer(t[who]);
    const base = '/api/v1/projects/ha/dashboards';

    before(async () => {
      s = await startAuthServer({ DASHPLANE_HISTORY_MAX_VERSIONS: '10' });
      admin = await loginAdmin(s);
      for (const name of ['eddie', 'vicky', 'nora']) {
        await signUp(s, name);
        t[name] = await login(s, name);
      }
      await ok(s.api('POST', '/api/v1/projects', project('ha'), bearer(admin)));
      await ok(s.api('POST', '/api/v1/projects/ha/rolebindings', binding('eddie-editor', 'editor', 'eddie'), bearer(admin)));
      await ok(s.api('POST', '/api/v1/projects/ha/rolebindings', binding('vicky-viewer', 'viewer', 'vicky'), bearer(admin)));
      await ok(s.api('POST', base, dash('d', 'v0'), bearer(admin)));
      await ok(s.api('PUT', `${base}/d`, dash('d', 'v1'), as('eddie')));
      await ok(s.api('PUT', `${base}/d`, dash('d', 'v2'), bearer(admin)));
    });
    after(() => s?.stop());

    it('updatedBy is the user who wrote each version', async () => {
      const list = (await ok(s.api('GET', `${base}/d/versions`, undefined, as('vicky')))).body as Entry[];
      expect(list.map((v) => [v.version, v.updatedBy])).to.deep.equal([
        [1, 'eddie'],
        [0, 'admin'],
      ]);
      const r = await ok(s.api('POST', `${base}/d/versions/0/restore`, undefined, as('eddie')));
      expect(r.body.metadata.version).to.equal(3);
      await ok(s.api('PUT', `${base}/d`, dash('d', 'v4'), bearer(admin)));
      const after = (await ok(s.api('GET', `${base}/d/versions`, undefined, as('eddie')))).body as Entry[];
      expect(after[0]).to.deep.include({ version: 3, updatedBy: 'eddie' });
      expect(after[1]).to.deep.include({ version: 2, updatedBy: 'admin' });
    });

    it('versions need read (403 without, 401 anonymous); restore needs update (403 for a viewer, nothing changes)', async () => {
      for (const path of [`${base}/d/versions`, `${base}/d/versions/0`]) {
        expect((await s.api('GET', path)).status, `anonymous ${path}`).to.equal(401);
        const r = await s.api('GET', path, undefined, as('nora'));
        expect(r.status, `nora ${path}`).to.equal(403);
        expect(r.text).to.not.include('v0');
        expect((await s.api('GET', path, undefined, as('vicky'))).status, `vicky ${path}`).to.equal(200);
      }
      const before = (await ok(s.api('GET', `${base}/d`, undefined, bearer(admin)))).body;
      for (const who of ['vicky', 'nora']) {
        const r = await s.api('POST', `${base}/d/versions/1/restore`, undefined, as(who));
        expect(r.status, `${who} restore`).to.equal(403);
      }
      expect((await s.api('POST', `${base}/d/versions/1/restore`)).status).to.equal(401);
      expect((await ok(s.api('GET', `${base}/d`, undefined, bearer(admin)))).body).to.deep.equal(before);
      // restoring a deleted dashboard re-creates it: a viewer may not do that either
      await ok(s.api('POST', base, dash('gone', 'g0'), bearer(admin)));
      await ok(s.api('DELETE', `${base}/gone`, undefined, bearer(admin)), 204);
      expect((await s.api('POST', `${base}/gone/versions/0/restore`, undefined, as('vicky'))).status).to.equal(403);
      expect((await s.api('GET', `${base}/gone`, undefined, bearer(admin))).status).to.equal(404);
      await ok(s.api('POST', `${base}/gone/versions/0/restore`, undefined, as('eddie')));
    });

    it('the deleted list needs read in the project (401 anonymous, 403 without)', async () => {
      await ok(s.api('POST', base, dash('gone2', 'g0'), bearer(admin)));
      await ok(s.api('DELETE', `${base}/gone2`, undefined, bearer(admin)), 204);
      const path = '/api/v1/projects/ha/deleted/dashboards';
      expect((await s.api('GET', path)).status).to.equal(401);
      expect((await s.api('GET', path, undefined, as('nora'))).status).to.equal(403);
      const list = (await ok(s.api('GET', path, undefined, as('vicky')))).body as { name: string; updatedBy: string }[];
      expect(list.find((e) => e.name === 'gone2')).to.deep.include({ updatedBy: 'admin' });
    });
  });
});
