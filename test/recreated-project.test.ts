/**
 * Security regression: a deleted project's past must never reach whoever re-creates its name.
 *
 * alice fills project "reborn" (its own spec, dashboards with history, datasource with proxy
 * headers, secret, variable, folder, role, role bindings, ephemeral dashboard), every value
 * carrying a canary (and one object's name, so that the audit log holds it too), then deletes it.
 * bob (open sign-up, guest `create` on Project) creates "reborn" again and asks for the old
 * project's past every way the API offers: watches with since=1 on every project-scoped route and
 * every cross-project route, the project list's own watch, the versions of a dashboard name the
 * old project held, one old version, a restore, and the audit log (list, pages, watch). None may
 * carry a canary, an event older than bob's project or an entry of alice's, while the
 * administrator (global read) still sees all of it. Run on LevelDB (one server) and on PostgreSQL
 * (two replicas: alice writes on one, bob reads on the other).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, type Tokens } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

const CANARY = 'OLD-PROJECT-CANARY-5d1e';
const P = 'reborn';
/** The old project's own spec: what the project list's events carry. */
const OLD_PROJECT = {
  kind: 'Project',
  metadata: { name: P },
  spec: { display: { name: `${CANARY}-title`, description: `${CANARY} confidential merger target` } },
};

const panel = (text: string) => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text } } } });
const grid = () => [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }];
const dash = (name: string, title: string) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name: title }, duration: '1h', panels: { a: panel(title) }, layouts: grid() },
});
const oldObjects = (): [string, unknown][] => [
  ['dashboards', dash('d1', `${CANARY}-v0`)],
  ['folders', { kind: 'Folder', metadata: { name: `f-${CANARY}` }, spec: { display: { name: CANARY }, items: [] } }],
  ['variables', { kind: 'Variable', metadata: { name: 'v1' }, spec: { kind: 'TextVariable', spec: { value: CANARY } } }],
  [
    'secrets',
    { kind: 'Secret', metadata: { name: 's1' }, spec: { basicAuth: { username: `${CANARY}-user`, password: `${CANARY}-password` } } },
  ],
  [
    'datasources',
    {
      kind: 'Datasource',
      metadata: { name: 'ds1' },
      spec: {
        default: false,
        plugin: {
          kind: 'PrometheusDatasource',
          spec: { proxy: { kind: 'HTTPProxy', spec: { url: 'http://127.0.0.1:9', headers: { 'X-Api-Key': CANARY }, secret: 's1' } } },
        },
      },
    },
  ],
  ['roles', { kind: 'Role', metadata: { name: 'r1' }, spec: { permissions: [{ actions: ['read'], scopes: ['Dashboard'] }] } }],
  [
    'rolebindings',
    { kind: 'RoleBinding', metadata: { name: 'b1' }, spec: { role: 'r1', subjects: [{ kind: 'User', name: 'carol-canary' }] } },
  ],
  ['ephemeraldashboards', { ...dash('e1', CANARY), kind: 'EphemeralDashboard', spec: { ...dash('e1', CANARY).spec, ttl: '1h' } }],
];

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

for (const backend of ['LevelDB', 'PostgreSQL'] as const) {
  describe(`security: a re-created project never replays the deleted project's past (${backend})`, function () {
    this.timeout(60_000);
    let pg: TestPostgres | undefined;
    let db: { url: string; drop(): Promise<void> } | undefined;
    /** alice writes here; bob reads on `reader` (another replica on PostgreSQL). */
    let writer: TestServer;
    let reader: TestServer;
    let alice: Tokens;
    let bob: Tokens;
    /** The revision of bob's "reborn" (its ADDED event). */
    let bornAt: number;
    /** Opened before alice's project existed: bob (no project yet) and the administrator. */
    let liveBob: WatchStream;
    let liveAdmin: WatchStream;
    const opened: WatchStream[] = [];

    if (backend === 'PostgreSQL') needsPrograms('postgresql');
    before(async () => {
      const env: Record<string, string> = {
        ...AUTH_ENV,
        DASHPLANE_WATCH_BOOKMARK_INTERVAL: '200ms', // a stream settles soon after a write
        DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      };
      if (backend === 'PostgreSQL') {
        pg = await sharedPostgres();
        db = await pg.createDatabase();
        env.DASHPLANE_DATABASE_POSTGRES_URL = db.url;
        writer = await startTestServer({ env });
        reader = await startTestServer({ env });
      } else {
        writer = reader = await startTestServer({ env });
      }
      await signUp(writer, 'alice');
      await signUp(writer, 'bob');
      // the old project's binding names her: a grant names a user that exists
      await signUp(writer, 'carol-canary');
      alice = await login(writer, 'alice');
      bob = await login(reader, 'bob');
      liveBob = await WatchStream.must(`${reader.url}/api/v1/dashboards?watch=true`, bearer(bob));
      liveAdmin = await WatchStream.must(`${reader.url}/api/v1/dashboards?watch=true`, bearer(await loginAdmin(reader)));
      opened.push(liveBob, liveAdmin);

      await ok(writer.api('POST', '/api/v1/projects', OLD_PROJECT, bearer(alice)));
      await ok(
        writer.api(
          'PUT',
          `/api/v1/projects/${P}`,
          { ...OLD_PROJECT, spec: { display: { ...OLD_PROJECT.spec.display, name: `${CANARY}-renamed` } } },
          bearer(alice),
        ),
      );
      for (const [plural, body] of oldObjects()) await ok(writer.api('POST', `/api/v1/projects/${P}/${plural}`, body, bearer(alice)));
      for (let v = 1; v <= 2; v++)
        await ok(writer.api('PUT', `/api/v1/projects/${P}/dashboards/d1`, dash('d1', `${CANARY}-v${v}`), bearer(alice)));
      await ok(writer.api('POST', `/api/v1/projects/${P}/dashboards`, dash('gone', `${CANARY}-deleted`), bearer(alice)));
      await ok(writer.api('DELETE', `/api/v1/projects/${P}/dashboards/gone`, undefined, bearer(alice)), 204);
      await ok(writer.api('DELETE', `/api/v1/projects/${P}`, undefined, bearer(alice)), 204);

      bornAt = (await reader.server.store.revision()) + 1;
      await ok(reader.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: P }, spec: {} }, bearer(bob)));
      // bob's own project holds a dashboard of a name the old one held
      await ok(reader.api('POST', `/api/v1/projects/${P}/dashboards`, dash('d1', 'bob-d1'), bearer(bob)));
    });
    after(async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
      if (reader !== writer) await reader?.stop();
      await writer?.stop();
      await db?.drop();
      await pg?.stop();
    });

    /** Watches as bob (since=1 unless the path says otherwise): 410s, or streams settled at the current revision. */
    const replay = async (paths: string[]): Promise<(WatchStream | { status: number; text: string })[]> => {
      const rev = await reader.server.store.revision();
      return Promise.all(
        paths.map(async (path) => {
          const url = `${reader.url}${path}${path.includes('?') ? '&' : '?'}watch=true${path.includes('since=') ? '' : '&since=1'}`;
          const w = await WatchStream.open(url, bearer(bob));
          if (!(w instanceof WatchStream)) return w;
          opened.push(w);
          await w.settle(rev);
          return w;
        }),
      );
    };
    const projectKinds = ['dashboards', 'folders', 'variables', 'secrets', 'datasources', 'roles', 'rolebindings', 'ephemeraldashboards'];
    /** No canary, no change older than bob's project. */
    const expectNothingOld = (w: WatchStream, what: string) => {
      expect(JSON.stringify(w.events), what).to.not.include(CANARY);
      for (const e of w.changes())
        expect(e.revision, `${what}: ${e.type} ${e.object?.metadata.name} of the old project`).to.be.at.least(bornAt);
    };

    it('a watch of the project resuming from before its creation answers 410; from just before it, only the new project', async () => {
      const answers = await replay(projectKinds.map((plural) => `/api/v1/projects/${P}/${plural}`));
      answers.forEach((w, i) => {
        expect(w, projectKinds[i]).to.not.be.instanceOf(WatchStream);
        const gone = w as { status: number; text: string };
        expect(gone.status, `${projectKinds[i]}: ${gone.text}`).to.equal(410);
        expect(gone.text).to.not.include(CANARY);
      });
      const fresh = (await replay(projectKinds.map((plural) => `/api/v1/projects/${P}/${plural}?since=${bornAt - 1}`))) as WatchStream[];
      fresh.forEach((w, i) => {
        expect(w, projectKinds[i]).to.be.instanceOf(WatchStream);
        expectNothingOld(w, projectKinds[i]);
      });
      expect(fresh[0].summary()).to.deep.equal([`ADDED ${P}/d1`]);
      expect(fresh[5].summary()).to.deep.equal([`ADDED ${P}/owner`, `ADDED ${P}/editor`, `ADDED ${P}/viewer`]);
    });

    it('STREAM-02: a watch with since=1 on every cross-project route carries nothing of the old project, and never skips its deletions silently: bob is told to list again (410), the administrator gets them', async () => {
      const answers = await Promise.all(
        projectKinds.map(async (plural) => {
          const w = await WatchStream.must(`${reader.url}/api/v1/${plural}?watch=true&since=1`, bearer(bob));
          opened.push(w);
          await w.waitEnded();
          return w;
        }),
      );
      answers.forEach((w, i) => {
        expectNothingOld(w, projectKinds[i]);
        // the old project's deletions are not bob's to see, nor can the stream tell whether he held its objects
        const end = w.error();
        expect(end?.object, `${projectKinds[i]}: ${JSON.stringify(w.events)}`).to.include({ kind: 'Status', code: 410, reason: 'Gone' });
        expect(end!.revision, 'no revision: list again').to.equal(undefined);
        expect(end!.object!.message).to.match(/watch again without since/);
        expect(end!.object!.message).to.not.include(P);
      });
      // the administrator's resumed watch carries every event of both projects, the deletions included, as the live one did
      const admin = await WatchStream.must(`${reader.url}/api/v1/dashboards?watch=true&since=1`, bearer(await loginAdmin(reader)));
      opened.push(admin);
      await admin.settle(await reader.server.store.revision());
      const old = `${P}/d1`;
      expect(admin.summary()).to.deep.equal([
        `ADDED ${old}`,
        `MODIFIED ${old}`,
        `MODIFIED ${old}`,
        `ADDED ${P}/gone`,
        `DELETED ${P}/gone`,
        `DELETED ${old}`,
        `ADDED ${old}`,
      ]);
      // from just before bob's project, bob's own project is there: the filter is by incarnation, not by name
      const fresh = (await replay(projectKinds.map((plural) => `/api/v1/${plural}?since=${bornAt - 1}`))) as WatchStream[];
      const [dashboards, bindings] = [fresh[0], fresh[6]];
      expect(dashboards.summary()).to.deep.equal([`ADDED ${P}/d1`]);
      expect(dashboards.changes()[0].object!.spec.display.name).to.equal('bob-d1');
      expect(bindings.summary()).to.deep.equal([`ADDED ${P}/owner`]);
    });

    it("live: a watch bob opened before shows only his project; the administrator's shows both, the deletion included", async () => {
      const rev = await reader.server.store.revision();
      await Promise.all([liveBob.settle(rev), liveAdmin.settle(rev)]);
      expectNothingOld(liveBob, 'bob');
      expect(liveBob.summary()).to.deep.equal([`ADDED ${P}/d1`]);
      const old = `${P}/d1`;
      expect(liveAdmin.summary()).to.deep.equal([
        `ADDED ${old}`,
        `MODIFIED ${old}`,
        `MODIFIED ${old}`,
        `ADDED ${P}/gone`,
        `DELETED ${P}/gone`,
        `DELETED ${old}`,
        `ADDED ${old}`,
      ]);
      expect(liveAdmin.changes()[6].object!.spec.display.name).to.equal('bob-d1');
    });

    it('a watch without since, opened now, lists only the new project', async () => {
      const ws = await Promise.all(
        [`/api/v1/dashboards?watch=true`, `/api/v1/projects/${P}/dashboards?watch=true`].map((path) =>
          WatchStream.must(reader.url + path, bearer(bob)),
        ),
      );
      opened.push(...ws);
      const rev = await reader.server.store.revision();
      for (const w of ws) {
        await w.settle(rev);
        expect(w.summary()).to.deep.equal([`ADDED ${P}/d1`]);
        expect(JSON.stringify(w.events)).to.not.include(CANARY);
      }
    });

    it("the project list's watch shows bob only his own project; the administrator's shows the old one too", async () => {
      // resumed from before the old project's deletion: told to list again, nothing of it shown
      const resumed = await WatchStream.must(`${reader.url}/api/v1/projects?watch=true&since=1`, bearer(bob));
      opened.push(resumed);
      await resumed.waitEnded();
      expectNothingOld(resumed, 'projects');
      expect(resumed.error()?.object).to.include({ code: 410, reason: 'Gone' });
      const [w] = (await replay([`/api/v1/projects?since=${bornAt - 1}`])) as WatchStream[];
      expect(w).to.be.instanceOf(WatchStream);
      expectNothingOld(w, 'projects');
      expect(w.summary()).to.deep.equal([`ADDED /${P}`]);
      expect(w.changes()[0].object!.spec).to.deep.equal({});
      const admin = await WatchStream.must(`${reader.url}/api/v1/projects?watch=true&since=1`, bearer(await loginAdmin(reader)));
      opened.push(admin);
      await admin.settle(await reader.server.store.revision());
      expect(admin.summary()).to.deep.equal([`ADDED /${P}`, `MODIFIED /${P}`, `DELETED /${P}`, `ADDED /${P}`]);
      expect(admin.changes()[1].object!.spec.display.description).to.equal(OLD_PROJECT.spec.display.description);
    });

    describe('the audit log', () => {
      type Entry = { id: number; action: string; user: string; kind?: string; project?: string; name?: string };
      /** The id of the entry of bob's creation of his project (the administrator sees both creations). */
      let bobsStart: number;
      before(async () => {
        const creations = (
          await ok(reader.api('GET', `/api/v1/audit?project=${P}&kind=Project&action=create`, undefined, bearer(await loginAdmin(reader))))
        ).body as Entry[];
        expect(creations.map((e) => e.user)).to.deep.equal(['bob', 'alice']);
        bobsStart = creations[0].id;
      });
      /** bob sees his project's entries and nothing of alice's: no canary, nobody else, nothing before his project. */
      const expectBobsOnly = (entries: Entry[], what: string) => {
        expect(JSON.stringify(entries), what).to.not.include(CANARY);
        for (const e of entries)
          expect(e.id, `${what}: ${e.action} ${e.user} ${e.kind}/${e.name} of the old project`).to.be.at.least(bobsStart);
        expect(
          entries.map((e) => `${e.action} ${e.user} ${e.kind}/${e.name}`),
          what,
        ).to.include.members([`create bob Project/${P}`, 'create bob RoleBinding/owner', 'create bob Dashboard/d1']);
      };
      /** Every page of a list, following Link rel="next". */
      const allPages = async (path: string, tokens: Tokens): Promise<Entry[]> => {
        const out: Entry[] = [];
        for (let next: string | undefined = path; next; ) {
          const r = await ok(reader.api('GET', next, undefined, bearer(tokens)));
          out.push(...(r.body as Entry[]));
          next = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
        }
        return out;
      };

      it("the list, with or without the project filter and page by page, shows bob only his project's entries", async () => {
        for (const path of [`/api/v1/audit?project=${P}`, '/api/v1/audit', `/api/v1/audit?project=${P}&limit=1`, '/api/v1/audit?limit=2']) {
          expectBobsOnly(await allPages(path, bob), path);
        }
      });

      it("the administrator's list still shows the old project's entries", async () => {
        const entries = await allPages(`/api/v1/audit?project=${P}&limit=1000`, await loginAdmin(reader));
        expect(entries.map((e) => `${e.action} ${e.user} ${e.kind}/${e.name}`)).to.include.members([
          `create alice Project/${P}`,
          `create alice Folder/f-${CANARY}`,
          'update alice Dashboard/d1',
          `delete alice Project/${P}`,
          `create bob Project/${P}`,
        ]);
      });

      it("a watch from the first entry sends bob only his project's entries; the administrator's sends the old ones too", async () => {
        const last = await reader.server.store.lastAuditId();
        const admin = await loginAdmin(reader);
        const streams = await Promise.all(
          [
            `/api/v1/audit?watch=true&since=0`,
            `/api/v1/audit?watch=true&since=0&project=${P}`,
            `/api/v1/audit?watch=true&since=0&project=${P}`,
          ].map((path, i) => WatchStream.must(reader.url + path, bearer(i < 2 ? bob : admin))),
        );
        opened.push(...streams);
        // every entry up to `last` was sent once a BOOKMARK at or after it came
        for (const w of streams)
          await waitFor(`a BOOKMARK at ${last} or later`, () => w.events.some((e) => e.type === 'BOOKMARK' && e.revision >= last));
        const [all, project, adminView] = streams.map((w) => w.changes().map((e) => e.object as unknown as Entry));
        expectBobsOnly(all, 'watch');
        expectBobsOnly(project, `watch of ${P}`);
        expect(JSON.stringify(adminView)).to.include(CANARY);
        expect(adminView.filter((e) => e.kind === 'Project' && e.action !== 'denied').map((e) => `${e.action} ${e.user}`)).to.deep.equal([
          'create alice',
          'update alice',
          'delete alice',
          'create bob',
        ]);
      });
    });

    it("the old project's history is gone: versions, one version and restore are 404 and restore changes nothing", async () => {
      const base = `/api/v1/projects/${P}/dashboards`;
      // bob's d1 is at version 0 and has no earlier version; "gone" never existed in bob's project
      for (const [name, old] of [
        ['d1', [1, 2]],
        ['gone', [0, 1]],
      ] as const) {
        const versions = await reader.api('GET', `${base}/${name}/versions`, undefined, bearer(bob));
        expect(JSON.stringify(versions.body ?? versions.text), name).to.not.include(CANARY);
        if (name === 'd1') expect(versions.status === 200 && versions.body, versions.text).to.deep.equal([]);
        else expect(versions.status, versions.text).to.equal(404);
        for (const v of old) {
          const one = await reader.api('GET', `${base}/${name}/versions/${v}`, undefined, bearer(bob));
          expect(one.status, `${name} v${v}: ${one.text}`).to.equal(404);
          expect(one.text).to.not.include(CANARY);
          const restore = await reader.api('POST', `${base}/${name}/versions/${v}/restore`, undefined, bearer(bob));
          expect(restore.status, `${name} restore v${v}: ${restore.text}`).to.equal(404);
          expect(restore.text).to.not.include(CANARY);
        }
      }
      expect((await ok(reader.api('GET', `${base}/d1`, undefined, bearer(bob)))).body.spec.display.name).to.equal('bob-d1');
      expect((await reader.api('GET', `${base}/gone`, undefined, bearer(bob))).status).to.equal(404);
      // and nothing of it is left in the store either
      for (const name of ['d1', 'gone']) {
        const key = { kind: 'Dashboard', project: P, name };
        expect(JSON.stringify(await reader.server.store.listVersions(key))).to.not.include(CANARY);
        for (const v of [0, 1, 2]) expect(JSON.stringify((await reader.server.store.getVersion(key, v)) ?? null)).to.not.include(CANARY);
      }
    });
  });
}
