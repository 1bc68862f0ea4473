import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_ENV, bearer, type Tokens } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';
import { callJson, tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream, type WatchEvent } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

/** A response: status, ETag, text and parsed JSON. */
interface Res {
  status: number;
  etag: string | null;
  text: string;
  body: any;
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const r = await callJson(base, method, path, body, headers);
  return { status: r.status, etag: r.headers.get('etag'), text: r.text, body: r.body };
}

/** "POST /path -> 409 {...}" for assertion messages. */
const show = (method: string, path: string, r: Res) => `${method} ${path} -> ${r.status} ${r.text.slice(0, 300)}`;

const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const folder = (name: string, title = name) => ({ kind: 'Folder', metadata: { name }, spec: { display: { name: title }, items: [] } });
const panel = (text: string) => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text } } } });
const grid = () => [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }];
const dash = (name: string, text: string) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name }, duration: '1h', panels: { a: panel(text) }, layouts: grid() },
});
const ephemeral = (name: string, ttl: string) => {
  const d = dash(name, 'short-lived');
  return { ...d, kind: 'EphemeralDashboard', spec: { ...d.spec, ttl } };
};
const textOf = (o: any): string => o?.spec?.panels?.a?.spec?.plugin?.spec?.text;

/** Three dashplane processes on one PostgreSQL database (issue 8). */
describe('three dashplane processes on one PostgreSQL database', function () {
  needsPrograms('postgresql');
  this.timeout(90_000);
  let pg: TestPostgres;
  let db: { url: string; drop(): Promise<void> };
  const dir = tempDir('dashplane-replicas-');
  const key = randomBytes(32).toString('hex');
  const env = () => ({
    ...AUTH_ENV,
    DASHPLANE_DATABASE_POSTGRES_URL: db.url,
    DASHPLANE_ENCRYPTION_KEY: key,
    DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s',
  });
  /** A, B, C; the kill test replaces one. */
  const procs: ServerProcess[] = [];
  const started: ServerProcess[] = [];
  const A = () => procs[0].url;
  const B = () => procs[1].url;
  const C = () => procs[2].url;
  const all = () => procs.map((p) => p.url);
  let admin: Tokens;
  const auth = () => bearer(admin);

  const spawn = async () => {
    const p = await spawnServer({ dataDir: dir.path, env: env(), timeoutMs: 30_000 });
    started.push(p);
    return p;
  };

  before(async () => {
    pg = await sharedPostgres();
    db = await pg.createDatabase();
    // A first (it creates the schema and the bootstrap admin), then B and C together; starting all
    // three at once on an empty database is the separate test at the end of this file
    procs.push(await spawn());
    procs.push(...(await Promise.all([spawn(), spawn()])));
    const r = await call(A(), 'POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' });
    expect(r.status, r.text).to.equal(200);
    admin = r.body as Tokens;
    for (const p of ['ryw', 'race', 'ifm', 'watch', 'rb', 'eph', 'storm']) {
      const c = await call(A(), 'POST', '/api/v1/projects', project(p), auth());
      expect(c.status, c.text).to.equal(200);
    }
  });

  after(async () => {
    await Promise.all(
      started.map(async (p) => {
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
        await Promise.race([p.exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      }),
    );
    await db?.drop().catch(() => undefined);
    await pg?.stop();
    dir.remove();
  });

  it('read-your-writes: a write on A is read on B and C at once (and a login on A works on B and C)', async () => {
    for (let i = 0; i < 5; i++) {
      const path = '/api/v1/projects/ryw/dashboards';
      const created = await call(A(), 'POST', path, dash(`d${i}`, `v1-${i}`), auth());
      expect(created.status, show('POST', path, created)).to.equal(200);
      for (const url of [B(), C()]) {
        const r = await call(url, 'GET', `${path}/d${i}`, undefined, auth());
        expect(r.status, show('GET', `${url}${path}/d${i}`, r)).to.equal(200);
        expect(textOf(r.body)).to.equal(`v1-${i}`);
        expect(r.body.metadata.version).to.equal(created.body.metadata.version);
      }
      const updated = await call(A(), 'PUT', `${path}/d${i}`, dash(`d${i}`, `v2-${i}`), auth());
      expect(updated.status, updated.text).to.equal(200);
      for (const url of [C(), B()]) {
        const r = await call(url, 'GET', `${path}/d${i}`, undefined, auth());
        expect(textOf(r.body), `update on A read on ${url}`).to.equal(`v2-${i}`);
        expect(r.etag).to.equal(`"${updated.body.metadata.version}"`);
        const list = await call(url, 'GET', path, undefined, auth());
        expect((list.body as any[]).map((o) => o.metadata.name)).to.include(`d${i}`);
      }
      const gone = await call(A(), 'DELETE', `${path}/d${i}`, undefined, auth());
      expect(gone.status, gone.text).to.equal(204);
      for (const url of [B(), C()])
        expect((await call(url, 'GET', `${path}/d${i}`, undefined, auth())).status, `delete on A seen on ${url}`).to.equal(404);
    }
  });

  it('concurrent creates of one name on A, B and C: exactly one 200, the rest 409, one row', async () => {
    for (let round = 0; round < 3; round++) {
      const name = `same-${round}`;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(all()[i % 3], 'POST', '/api/v1/projects/race/folders', folder(name, `writer ${i}`), auth()),
        ),
      );
      const statuses = results.map((r) => r.status);
      const unexpected = results.filter((r) => r.status !== 200 && r.status !== 409);
      expect(
        unexpected.map((r) => `${r.status} ${r.text}`),
        `round ${round}: only 200 and 409`,
      ).to.deep.equal([]);
      expect(
        statuses.filter((s) => s === 200),
        `round ${round}: ${JSON.stringify(statuses)}`,
      ).to.have.length(1);
      expect(statuses.filter((s) => s === 409)).to.have.length(29);
      const winner = results.find((r) => r.status === 200)!;
      for (const url of all()) {
        const list = (await call(url, 'GET', '/api/v1/projects/race/folders', undefined, auth())).body as any[];
        const rows = list.filter((o) => o.metadata.name === name);
        expect(rows, `one row on ${url}`).to.have.length(1);
        expect(rows[0].spec.display.name).to.equal(winner.body.spec.display.name);
        expect(rows[0].metadata.version).to.equal(winner.body.metadata.version);
      }
    }
  });

  it('If-Match across replicas: a stale ETag is 412; 30 concurrent unconditional PUTs get distinct consecutive versions', async () => {
    const path = '/api/v1/projects/ifm/dashboards/d';
    const created = await call(A(), 'POST', '/api/v1/projects/ifm/dashboards', dash('d', 'first'), auth());
    expect(created.status, created.text).to.equal(200);
    const v0 = created.body.metadata.version as number; // versions start at 0
    const readOnA = await call(A(), 'GET', path, undefined, auth());
    expect(readOnA.etag).to.equal(`"${v0}"`);
    const onB = await call(B(), 'PUT', path, dash('d', 'from B'), { ...auth(), 'if-match': readOnA.etag! });
    expect(onB.status, show('PUT', path, onB)).to.equal(200);
    expect(onB.etag).to.equal(`"${v0 + 1}"`);
    const stale = await call(A(), 'PUT', path, dash('d', 'stale from A'), { ...auth(), 'if-match': readOnA.etag! });
    expect(stale.status, show(`PUT (If-Match ${readOnA.etag}) on A`, path, stale)).to.equal(412);
    const staleDelete = await call(C(), 'DELETE', path, undefined, { ...auth(), 'if-match': readOnA.etag! });
    expect(staleDelete.status, show(`DELETE (If-Match ${readOnA.etag}) on C`, path, staleDelete)).to.equal(412);
    const current = await call(C(), 'GET', path, undefined, auth());
    expect(textOf(current.body)).to.equal('from B');

    // the same stale ETag sent to all three at once: exactly one wins
    const racing = await Promise.all(
      all().map((url, i) => call(url, 'PUT', path, dash('d', `cas ${i}`), { ...auth(), 'if-match': onB.etag! })),
    );
    expect(racing.map((r) => r.status).sort()).to.deep.equal([200, 412, 412]);

    const base = (await call(B(), 'GET', path, undefined, auth())).body.metadata.version as number;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => call(all()[i % 3], 'PUT', path, dash('d', `put ${i}`), auth())));
    const bad = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`);
    expect(bad, 'unconditional concurrent PUTs across replicas').to.deep.equal([]);
    const versions = results.map((r) => r.body.metadata.version as number).sort((x, y) => x - y);
    expect(versions).to.deep.equal(Array.from({ length: 30 }, (_, i) => base + 1 + i));
    const last = results.find((r) => r.body.metadata.version === base + 30)!;
    for (const url of all()) {
      const r = await call(url, 'GET', path, undefined, auth());
      expect(r.body.metadata.version, url).to.equal(base + 30);
      expect(textOf(r.body), url).to.equal(textOf(last.body));
    }
  });

  it("a watch on B sees A's and C's writes in revision order, once", async () => {
    const w = await WatchStream.must(`${B()}/api/v1/projects/watch/folders?watch=true`, auth());
    try {
      const col = '/api/v1/projects/watch/folders';
      // sequential, alternating replicas: the exact sequence is known
      const steps: [string, string, string, unknown?][] = [
        [A(), 'POST', col, folder('f0')],
        [C(), 'POST', col, folder('f1')],
        [C(), 'PUT', `${col}/f0`, folder('f0', 'f0 on C')],
        [A(), 'PUT', `${col}/f1`, folder('f1', 'f1 on A')],
        [A(), 'DELETE', `${col}/f0`],
        [C(), 'POST', col, folder('f2')],
      ];
      for (const [url, method, path, body] of steps) {
        const r = await call(url, method, path, body, auth());
        expect(r.status, show(method, path, r)).to.be.oneOf([200, 204]);
      }
      await w.waitForChanges(steps.length, 5_000);
      expect(w.summary()).to.deep.equal([
        'ADDED watch/f0',
        'ADDED watch/f1',
        'MODIFIED watch/f0',
        'MODIFIED watch/f1',
        'DELETED watch/f0',
        'ADDED watch/f2',
      ]);
      expect(w.changes()[2].object!.spec.display.name).to.equal('f0 on C');

      // concurrent writes on A and C
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(i % 2 ? A() : C(), 'POST', col, folder(`c${i}`), auth())),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      await w.waitForChanges(steps.length + 20, 5_000);
      const maxRev = Math.max(...w.changes().map((e) => e.revision));
      await w.settle(maxRev, 5_000);
      const changes = w.changes();
      expect(changes, `exactly once: ${JSON.stringify(w.summary())}`).to.have.length(steps.length + 20);
      const revs = changes.map((e) => e.revision);
      for (let i = 1; i < revs.length; i++) expect(revs[i], `revisions strictly increasing: ${revs.join(',')}`).to.be.above(revs[i - 1]);
      expect(new Set(w.summary(steps.length))).to.deep.equal(new Set(Array.from({ length: 20 }, (_, i) => `ADDED watch/c${i}`)));
      // bookmarks are in order with the changes too
      let prev = 0;
      for (const e of w.events as WatchEvent[]) {
        expect(e.revision, `event revisions never go back: ${JSON.stringify(w.events.map((x) => [x.type, x.revision]))}`).to.be.at.least(
          prev,
        );
        prev = e.revision;
      }
      expect(w.garbage).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });

  it('a RoleBinding deleted on A is a 403 on B at the very next request', async () => {
    const signUp = await call(C(), 'POST', '/api/v1/users', {
      kind: 'User',
      metadata: { name: 'rita' },
      spec: { nativeProvider: { password: 'rita-password' } },
    });
    expect(signUp.status, signUp.text).to.equal(200);
    const login = await call(B(), 'POST', '/api/auth/providers/native/login', { login: 'rita', password: 'rita-password' });
    expect(login.status, login.text).to.equal(200);
    const rita = bearer(login.body as Tokens);
    const probe = '/api/v1/projects/rb/folders';
    expect((await call(B(), 'GET', probe, undefined, rita)).status).to.equal(403);
    for (let i = 0; i < 5; i++) {
      const granter = i % 2 ? C() : A();
      const rb = {
        kind: 'RoleBinding',
        metadata: { name: 'rita-view' },
        spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'rita' }] },
      };
      const created = await call(granter, 'POST', '/api/v1/projects/rb/rolebindings', rb, auth());
      expect(created.status, created.text).to.equal(200);
      for (const url of [B(), C(), A()])
        expect((await call(url, 'GET', probe, undefined, rita)).status, `round ${i}: granted on ${granter}, read on ${url}`).to.equal(200);
      const deleted = await call(A(), 'DELETE', '/api/v1/projects/rb/rolebindings/rita-view', undefined, auth());
      expect(deleted.status, deleted.text).to.equal(204);
      const r = await call(B(), 'GET', probe, undefined, rita);
      expect(r.status, `round ${i}: RoleBinding deleted on A, ${show('GET', `${B()}${probe}`, r)}`).to.equal(403);
      expect((await call(C(), 'GET', probe, undefined, rita)).status, `round ${i}: on C`).to.equal(403);
    }
  });

  it('an ephemeral dashboard (ttl 1s) created on C is deleted exactly once', async () => {
    const col = '/api/v1/projects/eph/ephemeraldashboards';
    const watches = await Promise.all([A(), B()].map((url) => WatchStream.must(`${url}${col}?watch=true`, auth())));
    try {
      const created = await call(C(), 'POST', col, ephemeral('short', '1s'), auth());
      expect(created.status, created.text).to.equal(200);
      for (const w of watches) await w.waitForChanges(2, 10_000);
      await waitFor(
        'all three replicas to answer 404',
        async () => (await Promise.all(all().map((u) => call(u, 'GET', `${col}/short`, undefined, auth())))).every((r) => r.status === 404),
        5_000,
      );
      for (const w of watches) {
        const deletedAt = w.changes()[1].revision;
        await w.settle(deletedAt, 5_000);
        // one more bookmark interval after that, for a late second reaper
        const seen = w.events.length;
        await w.waitForEvent('another BOOKMARK', (e) => e.type === 'BOOKMARK' && e.revision >= deletedAt, 5_000, seen);
        expect(w.summary()).to.deep.equal(['ADDED eph/short', 'DELETED eph/short']);
      }
      const list = await call(B(), 'GET', col, undefined, auth());
      expect(list.body).to.deep.equal([]);
    } finally {
      await Promise.all(watches.map((w) => w.close()));
    }
  });

  it('kill -9 of one replica during a write storm: the others keep serving, no acknowledged write is lost, the killed one restarts', async () => {
    const col = '/api/v1/projects/storm/dashboards';
    const acked = new Map<string, { text: string; on: number; after: boolean }>();
    const failures: string[] = [];
    let killed = false;
    let stop = false;
    let seq = 0;
    const worker = async (replica: number) => {
      const url = all()[replica];
      while (!stop) {
        const n = seq++;
        const name = `s${replica}-${n}`;
        const text = `${randomBytes(6).toString('hex')}`;
        try {
          const r = await call(url, 'POST', col, dash(name, text), auth());
          if (r.status === 200) acked.set(name, { text, on: replica, after: killed });
          else failures.push(`${replica} ${r.status} ${r.text.slice(0, 200)}`);
        } catch (e) {
          if (replica !== 1 || !killed) failures.push(`${replica} ${(e as Error).message}`);
          if (replica === 1 && killed) return; // the killed replica's workers stop
        }
      }
    };
    const ackedOn = (replica: number, afterKill: boolean) =>
      [...acked.values()].filter((v) => v.on === replica && v.after === afterKill).length;
    const workers = [0, 1, 2].flatMap((r) => [worker(r), worker(r), worker(r)]);
    try {
      await waitFor('10 acknowledged writes on each replica', () => [0, 1, 2].every((r) => ackedOn(r, false) >= 10), 15_000, 5);
      const victim = procs[1];
      killed = true;
      victim.child.kill('SIGKILL');
      expect(await victim.exited).to.equal('SIGKILL');
      // the survivors keep serving while the storm goes on
      for (const url of [A(), C()]) {
        const h = await call(url, 'GET', '/api/v1/health');
        expect(h.status, `${url} health after the kill: ${h.text}`).to.equal(200);
      }
      await waitFor(
        '20 more acknowledged writes on A and on C after the kill',
        () => ackedOn(0, true) >= 20 && ackedOn(2, true) >= 20,
        15_000,
        5,
      );
    } finally {
      stop = true;
      await Promise.all(workers);
    }
    expect(failures, 'writes to A and C (and to B before the kill) all succeed').to.deep.equal([]);

    const stored = new Map<string, string>();
    for (const url of [A(), C()]) {
      const list = (await call(url, 'GET', col, undefined, auth())).body as any[];
      const here = new Map(list.map((o) => [o.metadata.name as string, textOf(o)]));
      const missing = [...acked].filter(([name, v]) => here.get(name) !== v.text).map(([name]) => name);
      expect(missing, `acknowledged writes missing or changed on ${url} (of ${acked.size})`).to.deep.equal([]);
      if (stored.size === 0) for (const [k, v] of here) stored.set(k, v);
      else expect(here.size, 'A and C list the same objects').to.equal(stored.size);
    }

    // the killed replica comes back on the same database and sees everything
    procs[1] = await spawn();
    const h = await call(B(), 'GET', '/api/v1/health');
    expect(h.status, h.text).to.equal(200);
    const list = (await call(B(), 'GET', col, undefined, auth())).body as any[];
    expect(list.length, 'restarted B lists what A and C list').to.equal(stored.size);
    const again = await call(B(), 'POST', col, dash('after-restart', 'back'), auth());
    expect(again.status, again.text).to.equal(200);
    for (const url of [A(), C()]) expect(textOf((await call(url, 'GET', `${col}/after-restart`, undefined, auth())).body)).to.equal('back');
  });
});

describe('three dashplane processes started at once on an empty PostgreSQL database', function () {
  needsPrograms('postgresql');
  this.timeout(60_000);
  let pg: TestPostgres;
  const dir = tempDir('dashplane-replicas-');
  const children: ServerProcess[] = [];

  before(async () => {
    pg = await sharedPostgres();
  });
  after(async () => {
    for (const p of children) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(children.map((p) => p.exited));
    await pg?.stop();
    dir.remove();
  });

  it('all three come up (schema and bootstrap admin created once) and the admin binding names the admin once', async () => {
    // a rolling deployment starts its replicas together; the race is timing-dependent, so three rounds
    for (let round = 0; round < 3; round++) {
      const db = await pg.createDatabase();
      const env = { ...AUTH_ENV, DASHPLANE_DATABASE_POSTGRES_URL: db.url, DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
      const spawned = await Promise.allSettled([0, 1, 2].map(() => spawnServer({ dataDir: dir.path, env, timeoutMs: 30_000 })));
      const up = spawned.filter((r): r is PromiseFulfilledResult<ServerProcess> => r.status === 'fulfilled').map((r) => r.value);
      children.push(...up);
      const errors = spawned
        .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
        .map((r) => String((r.reason as Error).message));
      expect(errors, `round ${round}: replicas that failed to start`).to.deep.equal([]);
      const login = await call(up[0].url, 'POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' });
      expect(login.status, login.text).to.equal(200);
      const binding = await call(up[1].url, 'GET', '/api/v1/globalrolebindings/admin', undefined, bearer(login.body as Tokens));
      expect(binding.status, binding.text).to.equal(200);
      expect(binding.body.spec.subjects, `round ${round}: admin binding subjects`).to.deep.equal([{ kind: 'User', name: 'admin' }]);
      for (const p of up) p.child.kill('SIGTERM');
      await Promise.all(up.map((p) => p.exited));
      await db.drop();
    }
  });
});
