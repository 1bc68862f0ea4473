/**
 * Watch streams (docs/api.md §6): `GET <list route>?watch=true[&since=R]` answers NDJSON events
 * ADDED/MODIFIED/DELETED/BOOKMARK with store-wide revisions, the same filters and permissions as
 * the list, an initial ADDED snapshot without `since`, 410 for a revision older than the event
 * log, BOOKMARKs, and a clean end on shutdown.
 *
 * The watcher and the writer are different clients (separate fetch connections). "Exactly once"
 * is checked by waiting for a BOOKMARK at or after the revision of the last write: everything up
 * to that revision has been sent by then.
 */
import { expect } from 'chai';
import { bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { WatchStream, type WatchEvent } from './helpers/watch.js';
import { waitFor } from './helpers/wait.js';

const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const folder = (name: string, title = name) => ({ kind: 'Folder', metadata: { name }, spec: { display: { name: title }, items: [] } });
const ds = (name: string, plugin: string) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: false, plugin: { kind: plugin, spec: { directUrl: 'http://127.0.0.1:9/x' } } },
});
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

/** Revisions strictly increase across the non-initial events, and no change is delivered twice. */
function expectOrderedOnce(events: WatchEvent[]): void {
  const changes = events.filter((e) => e.type !== 'BOOKMARK');
  for (let i = 1; i < changes.length; i++) {
    expect(changes[i].revision, `revision order at ${i}: ${JSON.stringify(changes.map((e) => e.revision))}`).to.be.at.least(
      changes[i - 1].revision,
    );
  }
  const live = changes.filter((e, i) => i === 0 || e.revision !== changes[0].revision || e.type !== 'ADDED');
  const seen = new Set<string>();
  for (const e of live) {
    const id = `${e.type}/${e.revision}/${e.object!.metadata.project}/${e.object!.metadata.name}`;
    expect(seen.has(id), `duplicate event ${id}`).to.equal(false);
    seen.add(id);
  }
}

describe('watch streams (docs/api.md §6)', function () {
  this.timeout(30_000);

  describe('auth off', () => {
    let s: TestServer;
    const opened: WatchStream[] = [];
    const watch = async (path: string, headers: Record<string, string> = {}) => {
      const w = await WatchStream.must(s.url + path, headers);
      opened.push(w);
      return w;
    };
    const rev = () => s.server.store.revision();

    before(async () => {
      // BOOKMARKs every 200 ms: a stream settles (w.settle) that soon after the last write; the
      // tests of the interval itself start a server of their own with 1 s
      s = await startTestServer({ env: { DASHPLANE_WATCH_BOOKMARK_INTERVAL: '200ms', DASHPLANE_WATCH_EVENT_LOG_SIZE: '100' } });
      for (const p of ['w1', 'w2', 'w1x']) await ok(s.api('POST', '/api/v1/projects', project(p)));
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
    });
    after(() => s?.stop());

    it('streams ADDED/MODIFIED/DELETED of another client, in order, exactly once, after an ADDED snapshot', async () => {
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('a')));
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('b')));
      await ok(s.api('POST', '/api/v1/projects/w2/folders', folder('a')));
      const snapRev = await rev();
      const w = await watch('/api/v1/projects/w1/folders?watch=true');
      expect(w.contentType).to.match(/^application\/x-ndjson/);
      await w.waitForChanges(2);
      expect(w.summary()).to.deep.equal(['ADDED w1/a', 'ADDED w1/b']);
      for (const e of w.changes()) expect(e.revision).to.equal(snapRev);

      // another client writes; writes in other projects (w2, and w1x which shares a prefix) stay out
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('c', 'c0')));
      await ok(s.api('POST', '/api/v1/projects/w2/folders', folder('c')));
      await ok(s.api('POST', '/api/v1/projects/w1x/folders', folder('c')));
      await ok(s.api('PUT', '/api/v1/projects/w1/folders/c', folder('c', 'c1')));
      await ok(s.api('PUT', '/api/v1/projects/w1/folders/c', folder('c', 'c2')));
      await ok(s.api('DELETE', '/api/v1/projects/w1/folders/a'), 204);
      await ok(s.api('DELETE', '/api/v1/projects/w2/folders/a'), 204);
      const last = await rev();
      await w.settle(last);
      expect(w.summary(2)).to.deep.equal(['ADDED w1/c', 'MODIFIED w1/c', 'MODIFIED w1/c', 'DELETED w1/a']);
      const live = w.changes().slice(2);
      expect(live.map((e) => e.object!.spec.display?.name)).to.deep.equal(['c0', 'c1', 'c2', 'a']);
      expect(live.map((e) => e.object!.metadata.version)).to.deep.equal([0, 1, 2, 0]);
      for (let i = 1; i < live.length; i++) expect(live[i].revision).to.be.greaterThan(live[i - 1].revision);
      expect(live[0].revision).to.be.greaterThan(snapRev);
      expect(live[3].revision).to.be.at.most(last);
      expect(live[0].object!.kind).to.equal('Folder');
      expectOrderedOnce(w.events);
      expect(w.garbage).to.deep.equal([]);
      // a DELETED event carries the object as it was
      expect(live[3].object!.metadata.project).to.equal('w1');
    });

    it('watches opened together (sharing one snapshot read) each get the whole snapshot once and every write made while they open', async () => {
      await ok(s.api('POST', '/api/v1/projects', project('many')));
      for (let i = 0; i < 20; i++) await ok(s.api('POST', '/api/v1/projects/many/folders', folder(`f${i}`)));
      // 25 watches open at once while writes go on: whether a watch joined a snapshot read before
      // or after a write, it sees each object once, in its snapshot or as a later event
      const opening = Array.from({ length: 25 }, () => watch('/api/v1/projects/many/folders?watch=true'));
      for (let i = 0; i < 5; i++) await ok(s.api('POST', '/api/v1/projects/many/folders', folder(`late${i}`)));
      const watches = await Promise.all(opening);
      for (let i = 5; i < 8; i++) await ok(s.api('POST', '/api/v1/projects/many/folders', folder(`late${i}`)));
      const last = await rev();
      const expected = [...Array.from({ length: 20 }, (_, i) => `f${i}`), ...Array.from({ length: 8 }, (_, i) => `late${i}`)].sort();
      for (const w of watches) {
        await w.settle(last);
        const names = w.changes().map((e) => e.object!.metadata.name);
        expect([...names].sort()).to.deep.equal(expected);
        expect(w.changes().every((e) => e.type === 'ADDED')).to.equal(true);
        expectOrderedOnce(w.events);
      }
    });

    it('resuming with since=<last revision seen> after a disconnect loses nothing and repeats nothing', async () => {
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('r1')));
      const w = await watch('/api/v1/projects/w1/folders?watch=true&name=r');
      await w.waitForChanges(1);
      await ok(s.api('PUT', '/api/v1/projects/w1/folders/r1', folder('r1', 'r1-v1')));
      await w.waitForChanges(2);
      const lastSeen = w.changes()[1].revision;
      await w.close();
      // writes while nobody watches
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('r2')));
      await ok(s.api('PUT', '/api/v1/projects/w1/folders/r1', folder('r1', 'r1-v2')));
      await ok(s.api('POST', '/api/v1/projects/w2/folders', folder('r9')));
      await ok(s.api('DELETE', '/api/v1/projects/w1/folders/r2'), 204);
      const w2 = await watch(`/api/v1/projects/w1/folders?watch=true&name=r&since=${lastSeen}`);
      // and while it watches again
      await ok(s.api('PUT', '/api/v1/projects/w1/folders/r1', folder('r1', 'r1-v3')));
      await w2.settle(await rev());
      expect(w2.summary(), 'no snapshot with since, only what happened after it').to.deep.equal([
        'ADDED w1/r2',
        'MODIFIED w1/r1',
        'DELETED w1/r2',
        'MODIFIED w1/r1',
      ]);
      expect(w2.changes().map((e) => e.object!.metadata.version)).to.deep.equal([0, 2, 0, 3]);
      expect(w2.changes()[0].revision).to.be.greaterThan(lastSeen);
      expectOrderedOnce(w2.events);
      // since = the current revision: nothing old at all
      const w3 = await watch(`/api/v1/projects/w1/folders?watch=true&since=${await rev()}`);
      await w3.settle(await rev());
      expect(w3.changes()).to.deep.equal([]);
    });

    it('a since older than the retained event log answers 410; a future one 400; garbage 400', async () => {
      const old = await rev();
      const retained = await WatchStream.open(`${s.url}/api/v1/projects/w1/folders?watch=true&since=${old}`);
      expect(retained instanceof WatchStream).to.equal(true);
      // closed after the test: a stream left open held the server's stop for its 10 s shutdown grace
      if (retained instanceof WatchStream) opened.push(retained);
      for (let i = 0; i < 110; i += 10) {
        await Promise.all(Array.from({ length: 10 }, (_, j) => ok(s.api('POST', '/api/v1/projects/w2/folders', folder(`gone-${i + j}`)))));
      }
      const r = await WatchStream.open(`${s.url}/api/v1/projects/w1/folders?watch=true&since=${old}`);
      expect(r instanceof WatchStream, 'a stream instead of 410').to.equal(false);
      const gone = r as { status: number; text: string };
      expect(gone.status, gone.text).to.equal(410);
      expect(JSON.parse(gone.text).message).to.match(
        /^revision \d+ is older than the retained event log \(oldest \d+\); watch again without since: the stream starts with every current object/,
      );
      // the cross-project route says the same
      expect(((await WatchStream.open(`${s.url}/api/v1/folders?watch=true&since=${old}`)) as { status: number }).status).to.equal(410);
      // a recent revision still works
      const recent = await rev();
      const w = await watch(`/api/v1/projects/w1/folders?watch=true&since=${recent - 50}`);
      await w.settle(recent);
      expect(w.changes()).to.deep.equal([]);
      expect(
        ((await WatchStream.open(`${s.url}/api/v1/projects/w1/folders?watch=true&since=${recent + 1000}`)) as { status: number }).status,
      ).to.equal(400);
      expect(((await WatchStream.open(`${s.url}/api/v1/projects/w1/folders?watch=true&since=abc`)) as { status: number }).status).to.equal(
        400,
      );
    });

    it('filters apply to the snapshot and to live events: name prefix, project on the cross-project route, datasource kind', async () => {
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('fx-1')));
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('fy-1')));
      await ok(s.api('POST', '/api/v1/projects/w2/folders', folder('fx-2')));
      await ok(s.api('POST', '/api/v1/projects/w1/datasources', ds('prom-1', 'PrometheusDatasource')));
      await ok(s.api('POST', '/api/v1/projects/w1/datasources', ds('tempo-1', 'TempoDatasource')));
      const byName = await watch('/api/v1/projects/w1/folders?watch=true&name=fx');
      const byProject = await watch('/api/v1/folders?watch=true&project=w2&name=fx');
      const crossName = await watch('/api/v1/folders?watch=true&name=fx');
      const byKind = await watch('/api/v1/projects/w1/datasources?watch=true&kind=TempoDatasource');
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('fx-3')));
      await ok(s.api('POST', '/api/v1/projects/w1/folders', folder('fy-3')));
      await ok(s.api('POST', '/api/v1/projects/w2/folders', folder('fx-4')));
      await ok(s.api('POST', '/api/v1/projects/w2/folders', folder('fy-4')));
      await ok(s.api('POST', '/api/v1/projects/w1/datasources', ds('prom-2', 'PrometheusDatasource')));
      await ok(s.api('POST', '/api/v1/projects/w1/datasources', ds('tempo-2', 'TempoDatasource')));
      await ok(s.api('POST', '/api/v1/projects/w2/datasources', ds('tempo-3', 'TempoDatasource')));
      const last = await rev();
      await Promise.all([byName, byProject, crossName, byKind].map((w) => w.settle(last)));
      expect(byName.summary()).to.deep.equal(['ADDED w1/fx-1', 'ADDED w1/fx-3']);
      expect(byProject.summary()).to.deep.equal(['ADDED w2/fx-2', 'ADDED w2/fx-4']);
      expect(crossName.summary()).to.deep.equal(['ADDED w1/fx-1', 'ADDED w2/fx-2', 'ADDED w1/fx-3', 'ADDED w2/fx-4']);
      expect(byKind.summary()).to.deep.equal(['ADDED w1/tempo-1', 'ADDED w1/tempo-2']);
      // the same contradiction rule as the list
      expect(((await WatchStream.open(`${s.url}/api/v1/projects/w1/folders?watch=true&project=w2`)) as { status: number }).status).to.equal(
        400,
      );
    });

    it('an object entering a filter is ADDED and one leaving it DELETED, as in Kubernetes: the stream then equals the list; resumed with since, too', async () => {
      const dsd = (name: string, isDefault: boolean, plugin = 'PrometheusDatasource') => ({
        ...ds(name, plugin),
        spec: { ...ds(name, plugin).spec, default: isDefault },
      });
      await ok(s.api('POST', '/api/v1/projects', project('w3')));
      await ok(s.api('POST', '/api/v1/projects/w3/datasources', dsd('m-1', true)));
      await ok(s.api('POST', '/api/v1/projects/w3/datasources', dsd('m-2', false)));
      const since = await rev();
      const defaults = await watch('/api/v1/projects/w3/datasources?watch=true&default=true');
      const resumed = await watch(`/api/v1/projects/w3/datasources?watch=true&default=true&since=${since}`);
      await ok(s.api('PUT', '/api/v1/projects/w3/datasources/m-1', dsd('m-1', false))); // leaves
      await ok(s.api('PUT', '/api/v1/projects/w3/datasources/m-2', dsd('m-2', true))); // enters
      await ok(s.api('PUT', '/api/v1/projects/w3/datasources/m-2', { ...dsd('m-2', true), metadata: { name: 'm-2', tags: ['t'] } })); // stays
      await ok(s.api('PUT', '/api/v1/projects/w3/datasources/m-1', { ...dsd('m-1', false), metadata: { name: 'm-1', tags: ['t'] } })); // stays out
      await ok(s.api('POST', '/api/v1/projects/w3/datasources', dsd('m-3', false))); // never in
      await ok(s.api('DELETE', '/api/v1/projects/w3/datasources/m-3'), 204);
      await ok(s.api('DELETE', '/api/v1/projects/w3/datasources/m-2'), 204); // leaves by deletion
      const last = await rev();
      await Promise.all([defaults, resumed].map((w) => w.settle(last)));
      expect(defaults.summary()).to.deep.equal(['ADDED w3/m-1', 'DELETED w3/m-1', 'ADDED w3/m-2', 'MODIFIED w3/m-2', 'DELETED w3/m-2']);
      // resumed: objects written before the resume may be held: m-1's leaving is a DELETED, m-2's entering a MODIFIED
      expect(resumed.summary()).to.deep.equal(['DELETED w3/m-1', 'MODIFIED w3/m-2', 'MODIFIED w3/m-2', 'DELETED w3/m-2']);
      expect((await s.api('GET', '/api/v1/projects/w3/datasources?default=true')).body).to.deep.equal([]);
    });

    /** A server of its own with BOOKMARKs every second, for the tests of the interval. */
    const withOneSecondBookmarks = async (test: (t: TestServer) => Promise<void>) => {
      const t = await startTestServer({ env: { DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s' } });
      try {
        for (const p of ['w1', 'w2']) await ok(t.api('POST', '/api/v1/projects', project(p)));
        await test(t);
      } finally {
        await Promise.all(opened.splice(0).map((w) => w.close()));
        await t.stop();
      }
    };

    it('a BOOKMARK arrives within the configured interval (1 s) with a revision >= the last event', () =>
      withOneSecondBookmarks(async (t) => {
        const w = await WatchStream.must(`${t.url}/api/v1/projects/w1/folders?watch=true&name=bm`);
        opened.push(w);
        await ok(t.api('POST', '/api/v1/projects/w1/folders', folder('bm-1')));
        const ev = await w.waitForEvent('the ADDED event', (e) => e.type === 'ADDED');
        const i = w.events.indexOf(ev);
        const bm = await w.waitForEvent('a BOOKMARK after it', (e) => e.type === 'BOOKMARK', 3_000, i + 1);
        const delay = w.arrivedAt[w.events.indexOf(bm)] - w.arrivedAt[i];
        expect(delay, 'ms from the last event to the BOOKMARK').to.be.at.most(1_600);
        expect(bm.revision).to.be.at.least(ev.revision);
        expect(bm.revision).to.equal(await t.server.store.revision());
        expect(bm.object === undefined || bm.object === null).to.equal(true);
        // bookmarks keep coming on an idle stream, about once per interval
        const n = w.events.length;
        await w.waitForEvent('a second BOOKMARK', (e) => e.type === 'BOOKMARK', 3_000, n);
      }));

    it('a BOOKMARK still arrives within the interval while only events this watcher may not see flow (other projects)', () =>
      withOneSecondBookmarks(async (t) => {
        await ok(t.api('POST', '/api/v1/projects/w2/folders', folder('r9')));
        const w = await WatchStream.must(`${t.url}/api/v1/projects/w1/folders?watch=true&name=quiet`);
        opened.push(w);
        const from = w.events.length;
        const t0 = Date.now();
        let stop = false;
        let writes = 0;
        const noise = (async () => {
          // one write to another project every ~200 ms for up to 3.5 s: the watcher sees none of them
          while (!stop && Date.now() - t0 < 3_500) {
            await ok(t.api('PUT', '/api/v1/projects/w2/folders/r9', folder('r9', `n${writes++}`)));
            await new Promise((r) => setTimeout(r, 200));
          }
        })();
        try {
          const bm = await w.waitForEvent('a BOOKMARK during unrelated traffic (1 s interval)', (e) => e.type === 'BOOKMARK', 3_000, from);
          expect(w.arrivedAt[w.events.indexOf(bm)] - t0).to.be.at.most(1_600);
        } finally {
          stop = true;
          await noise;
        }
        expect(writes).to.be.greaterThan(0);
        expect(w.changes()).to.deep.equal([]);
      }));

    it('the response headers of a watch arrive at once, even on an empty collection with the default 30 s bookmark interval', async () => {
      const t = await startTestServer();
      try {
        await ok(t.api('POST', '/api/v1/projects', project('empty')));
        const t0 = Date.now();
        const res = await fetch(`${t.url}/api/v1/projects/empty/folders?watch=true`, { signal: AbortSignal.timeout(3_000) }).catch(
          (e: Error) => e,
        );
        expect(res, 'no response headers within 3 s').to.be.instanceOf(Response);
        expect(Date.now() - t0, 'ms until the response headers').to.be.below(1_000);
        const r = res as Response;
        expect(r.status).to.equal(200);
        await r.body?.cancel().catch(() => undefined);
      } finally {
        await t.stop();
      }
    });

    it('metadata_only=true: every event carries the object as a metadata_only list item, {kind, metadata, spec: {}} (snapshot and live)', async () => {
      await ok(s.api('POST', '/api/v1/projects', project('wm')));
      await ok(s.api('POST', '/api/v1/projects/wm/folders', folder('m1', 'FULL-SPEC-CANARY')));
      const w = await watch('/api/v1/projects/wm/folders?watch=true&metadata_only=true');
      const full = await watch('/api/v1/projects/wm/folders?watch=true');
      await ok(s.api('POST', '/api/v1/projects/wm/folders', folder('m2', 'FULL-SPEC-CANARY')));
      await ok(s.api('DELETE', '/api/v1/projects/wm/folders/m1'), 204);
      const last = await rev();
      await Promise.all([w.settle(last), full.settle(last)]);
      expect(w.summary()).to.deep.equal(['ADDED wm/m1', 'ADDED wm/m2', 'DELETED wm/m1']);
      expect(w.summary()).to.deep.equal(full.summary());
      for (const e of w.changes()) {
        expect(Object.keys(e.object!)).to.deep.equal(['kind', 'metadata', 'spec']);
        expect(e.object!.spec).to.deep.equal({});
        expect(e.object!.metadata).to.include({ project: 'wm' });
      }
      expect(JSON.stringify(w.events)).to.not.include('FULL-SPEC-CANARY');
      expect(JSON.stringify(full.events), 'the same events in full on the other stream').to.include('FULL-SPEC-CANARY');
    });

    it('secrets in events are "<secret>" (snapshot and live)', async () => {
      const secret = (name: string, password: string) => ({
        kind: 'Secret',
        metadata: { name },
        spec: { basicAuth: { username: 'u', password } },
      });
      await ok(s.api('POST', '/api/v1/projects/w1/secrets', secret('s1', 'PASSWORD-CANARY-1')));
      const w = await watch('/api/v1/projects/w1/secrets?watch=true');
      const g = await watch('/api/v1/globalsecrets?watch=true');
      await ok(s.api('POST', '/api/v1/projects/w1/secrets', secret('s2', 'PASSWORD-CANARY-2')));
      await ok(s.api('PUT', '/api/v1/projects/w1/secrets/s1', secret('s1', 'PASSWORD-CANARY-3')));
      await ok(s.api('POST', '/api/v1/globalsecrets', { ...secret('gs', 'PASSWORD-CANARY-4'), kind: 'GlobalSecret' }));
      await ok(s.api('DELETE', '/api/v1/projects/w1/secrets/s2'), 204);
      const last = await rev();
      await Promise.all([w.settle(last), g.settle(last)]);
      expect(w.summary()).to.deep.equal(['ADDED w1/s1', 'ADDED w1/s2', 'MODIFIED w1/s1', 'DELETED w1/s2']);
      expect(g.summary()).to.deep.equal(['ADDED /gs']);
      for (const e of [...w.changes(), ...g.changes()])
        expect(e.object!.spec.basicAuth).to.deep.equal({ username: 'u', password: '<secret>' });
      expect(JSON.stringify([w.events, g.events])).to.not.match(/CANARY|"v\d+:|enc:/);
    });

    it('server.close() with open watches resolves within a few seconds and ends the streams', async () => {
      const t = await startTestServer({ env: { DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s' } });
      let closed = false;
      try {
        await ok(t.api('POST', '/api/v1/projects', project('p')));
        await ok(t.api('POST', '/api/v1/projects/p/folders', folder('f')));
        const ws = await Promise.all([
          WatchStream.must(`${t.url}/api/v1/projects/p/folders?watch=true`),
          WatchStream.must(`${t.url}/api/v1/folders?watch=true`),
          WatchStream.must(`${t.url}/api/v1/projects?watch=true`),
          WatchStream.must(`${t.url}/api/v1/projects/p/folders?watch=true&since=0`),
        ]);
        opened.push(...ws);
        await Promise.all(ws.map((w) => w.waitForChanges(1)));
        const t0 = Date.now();
        await t.server.close();
        closed = true;
        expect(Date.now() - t0, 'ms for close()').to.be.below(3_000);
        await Promise.all(ws.map((w) => w.waitEnded(3_000)));
        for (const w of ws) expect(w.garbage).to.deep.equal([]);
      } finally {
        if (!closed) await t.server.close();
        await t.stop();
      }
    });
  });

  describe('auth on: permissions', () => {
    let s: TestServer;
    let admin: Tokens;
    const t: Record<string, Tokens> = {};
    const opened: WatchStream[] = [];
    const watch = async (path: string, who: string) => {
      const w = await WatchStream.open(s.url + path, bearer(t[who]));
      if (w instanceof WatchStream) opened.push(w);
      return w;
    };
    const asAdmin = () => bearer(admin);
    const rev = () => s.server.store.revision();

    before(async () => {
      s = await startAuthServer({ DASHPLANE_WATCH_BOOKMARK_INTERVAL: '200ms' }); // streams settle soon after a write
      admin = await loginAdmin(s);
      for (const name of ['vera', 'nobody']) {
        await signUp(s, name);
        t[name] = await login(s, name);
      }
      for (const p of ['pa', 'pb']) {
        await ok(s.api('POST', '/api/v1/projects', project(p), asAdmin()));
        await ok(s.api('POST', `/api/v1/projects/${p}/folders`, folder(`${p}-old`, `${p}-CANARY`), asAdmin()));
      }
      await ok(s.api('POST', '/api/v1/projects/pa/rolebindings', binding('vera-viewer', 'viewer', 'vera'), asAdmin()));
    });
    after(async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
      await s?.stop();
    });

    it('anonymous gets 401 and a user without read on the project gets 403 on a project watch', async () => {
      expect(((await WatchStream.open(`${s.url}/api/v1/projects/pa/folders?watch=true`)) as { status: number }).status).to.equal(401);
      const r = await watch('/api/v1/projects/pb/folders?watch=true', 'vera');
      expect(r instanceof WatchStream).to.equal(false);
      expect((r as { status: number; text: string }).status, (r as { text: string }).text).to.equal(403);
      expect((r as { text: string }).text).to.not.include('pb-CANARY');
      const r2 = await watch('/api/v1/projects/pa/folders?watch=true', 'nobody');
      expect((r2 as { status: number }).status).to.equal(403);
      // a cross-project watch for someone who reads nothing: allowed, but empty
      const n = await watch('/api/v1/folders?watch=true', 'nobody');
      if (n instanceof WatchStream) {
        await ok(s.api('POST', '/api/v1/projects/pa/folders', folder('for-nobody'), asAdmin()));
        await n.settle(await rev());
        expect(n.changes()).to.deep.equal([]);
      } else {
        expect(n.status).to.equal(403);
      }
    });

    it("a cross-project watch shows none of another project's events; a deleted RoleBinding stops that project's events", async () => {
      const cross = (await watch('/api/v1/folders?watch=true', 'vera')) as WatchStream;
      const own = (await watch('/api/v1/projects/pa/folders?watch=true', 'vera')) as WatchStream;
      expect(cross).to.be.instanceOf(WatchStream);
      expect(own).to.be.instanceOf(WatchStream);
      await ok(s.api('POST', '/api/v1/projects/pa/folders', folder('a-live'), asAdmin()));
      await ok(s.api('POST', '/api/v1/projects/pb/folders', folder('b-live', 'pb-CANARY'), asAdmin()));
      await ok(s.api('PUT', '/api/v1/projects/pb/folders/pb-old', folder('pb-old', 'pb-CANARY-2'), asAdmin()));
      await ok(s.api('PUT', '/api/v1/projects/pa/folders/a-live', folder('a-live', 'v1'), asAdmin()));
      await cross.settle(await rev());
      const crossSummary = cross.summary().filter((x) => x !== 'ADDED pa/for-nobody');
      expect(crossSummary).to.deep.equal(['ADDED pa/pa-old', 'ADDED pa/a-live', 'MODIFIED pa/a-live']);
      expect(JSON.stringify(cross.events)).to.not.include('pb-CANARY');
      await own.settle(await rev());
      expect(own.summary().filter((x) => x !== 'ADDED pa/for-nobody')).to.deep.equal([
        'ADDED pa/pa-old',
        'ADDED pa/a-live',
        'MODIFIED pa/a-live',
      ]);

      // the binding goes: from then on nothing from pa reaches vera
      await ok(s.api('DELETE', '/api/v1/projects/pa/rolebindings/vera-viewer', undefined, asAdmin()), 204);
      const crossBefore = cross.changes().length;
      const ownBefore = own.changes().length;
      await ok(s.api('POST', '/api/v1/projects/pa/folders', folder('after-unbind', 'pa-AFTER-CANARY'), asAdmin()));
      await ok(s.api('PUT', '/api/v1/projects/pa/folders/a-live', folder('a-live', 'pa-AFTER-CANARY-2'), asAdmin()));
      await ok(s.api('DELETE', '/api/v1/projects/pa/folders/pa-old', undefined, asAdmin()), 204);
      const last = await rev();
      // the project watch either ends or stays silent; the cross-project one stays open but silent
      await waitFor(
        'the project watch to end or to pass the last revision',
        () => own.ended || own.events.some((e) => e.type === 'BOOKMARK' && e.revision >= last),
        5_000,
      );
      await cross.settle(last);
      expect(cross.changes().length, JSON.stringify(cross.summary(crossBefore))).to.equal(crossBefore);
      expect(own.changes().length, JSON.stringify(own.summary(ownBefore))).to.equal(ownBefore);
      expect(JSON.stringify([cross.events, own.events])).to.not.include('AFTER-CANARY');
      // and a new project watch is refused
      expect(((await watch('/api/v1/projects/pa/folders?watch=true', 'vera')) as { status: number }).status).to.equal(403);
    });

    it('a logout, a changed password or a revoked API token ends the watch streams it authenticated; another session goes on', async () => {
      await signUp(s, 'wren');
      await ok(s.api('POST', '/api/v1/projects/pb/rolebindings', binding('wren-viewer', 'viewer', 'wren'), asAdmin()));
      const open = async (headers: Record<string, string>) => {
        const w = await WatchStream.must(`${s.url}/api/v1/projects/pb/folders?watch=true`, headers);
        opened.push(w);
        await w.waitForEvent('the snapshot', (e) => e.type === 'ADDED');
        return w;
      };
      const write = (title: string) => ok(s.api('PUT', '/api/v1/projects/pb/folders/pb-old', folder('pb-old', title), asAdmin()));
      // a logout ends its session's stream at the next change, not another session's
      const [one, two] = [await login(s, 'wren'), await login(s, 'wren')];
      const [w1, w2] = [await open(bearer(one)), await open(bearer(two))];
      await ok(s.api('GET', '/api/auth/logout', undefined, bearer(one)), 204);
      await write('after-logout');
      await w1.waitEnded(5_000);
      await w2.waitForEvent(
        'the change, on the other session',
        (e) => e.type === 'MODIFIED' && e.object?.spec.display.name === 'after-logout',
      );
      expect(JSON.stringify(w1.events)).to.not.include('after-logout');
      // a password change (here by an administrator) ends every stream of the user
      await ok(
        s.api(
          'PUT',
          '/api/v1/users/wren',
          { kind: 'User', metadata: { name: 'wren' }, spec: { nativeProvider: { password: 'wren-new-password' } } },
          asAdmin(),
        ),
      );
      await w2.waitEnded(5_000);
      // an API token's stream ends when the token is revoked
      const fresh = await login(s, 'wren', 'wren-new-password');
      const created = await s.api('POST', '/api/v1/user/tokens', { name: 'watcher', ttl: '1h' }, bearer(fresh));
      expect(created.status, created.text).to.equal(200);
      const w3 = await open(bearer(created.body.token));
      await ok(s.api('DELETE', `/api/v1/user/tokens/${created.body.id}`, undefined, bearer(fresh)), 204);
      await write('after-revoke');
      await w3.waitEnded(5_000);
      expect(JSON.stringify(w3.events)).to.not.include('after-revoke');
    });
  });
});
