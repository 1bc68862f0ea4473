/**
 * The shared contract every Store driver must pass (LevelStore, PostgresStore), with its parts in
 * store-contract-events.ts and store-contract-text.ts. A driver's test file calls
 * `describeStoreContract` with a factory for fresh, reopenable stores.
 */
import { expect } from 'chai';
import { ApiError } from '../src/errors.js';
import { MAX_MANAGERS, type DumpItem, type Envelope, type ListQuery, type Store, type StoreEvent } from '../src/storage/store.js';
import type { AuditDraft, AuditQuery } from '../src/storage/audit-types.js';
import { describeEventsContract } from './store-contract-events.js';
import { describeSearchContract } from './store-contract-search.js';
import { describeKeyOrderContract } from './store-contract-text.js';

export interface StoreFixture {
  store: Store;
  /** Closes the store and opens a new instance on the same data. */
  reopen(): Promise<Store>;
  /** Closes and removes everything. */
  destroy(): Promise<void>;
  /** For stores several processes share: another open store on the same data (closed by destroy). */
  peer?(): Promise<Store>;
}

const T = '2026-01-01T00:00:00.000Z';

export function obj(kind: string, project: string, name: string, version = 0, spec: unknown = {}): Envelope {
  return { kind, metadata: { name, ...(project ? { project } : {}), createdAt: T, updatedAt: T, version }, spec };
}

/**
 * The writes the creation-revision migrations are tested on: a project created before the
 * retained log (with eventLogSize 3), one deleted and re-created, and a child; the revisions of
 * the last two creates.
 */
export async function creationScenario(store: Store): Promise<{ r4: number; r5: number }> {
  await store.create(obj('Project', '', 'old'));
  await store.create(obj('Project', '', 'p'));
  await store.delete({ kind: 'Project', project: '', name: 'p' });
  const r4 = await store.create(obj('Project', '', 'p'));
  const r5 = await store.create(obj('Dashboard', 'p', 'd'));
  return { r4, r5 };
}

/** The ApiError a promise rejects with (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected a rejection');
}

export function describeStoreContract(driver: string, make: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${driver}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await make();
      store = fx.store;
    });
    afterEach(async () => fx.destroy());

    it('get of a missing key is undefined; create then get returns the same object', async () => {
      expect(await store.get({ kind: 'Dashboard', project: 'p', name: 'x' })).to.equal(undefined);
      const o = obj('Dashboard', 'p', 'x', 0, { a: [1, 'two', { three: null }] });
      await store.create(o);
      expect(await store.get({ kind: 'Dashboard', project: 'p', name: 'x' })).to.deep.equal(o);
    });

    it('getText never answers, after a change, a text object it answered before it (what callers derive from a text may be kept by its identity)', async () => {
      const key = { kind: 'Datasource', project: 'p', name: 'x' };
      const seen = new Set<object>();
      const read = async (spec: unknown, when: string) => {
        const t = await store.getText(key);
        expect(JSON.parse(t!.text.toString()).spec, when).to.deep.equal(spec);
        expect(seen.has(t!), `${when}: a text answered before the change`).to.equal(false);
        // unchanged: the same text or a new one, both right
        expect(JSON.parse((await store.getText(key))!.text.toString()).spec, `${when}, again`).to.deep.equal(spec);
        seen.add(t!);
        seen.add((await store.getText(key))!);
      };
      await store.create(obj('Datasource', 'p', 'x', 0, { url: 'a' }));
      await read({ url: 'a' }, 'created');
      await store.update(obj('Datasource', 'p', 'x', 1, { url: 'b' }), { expectedVersion: 0 });
      await read({ url: 'b' }, 'updated');
      await store.delete(key);
      expect(await store.getText(key), 'deleted').to.equal(undefined);
      await store.create(obj('Datasource', 'p', 'x', 0, { url: 'a' }));
      await read({ url: 'a' }, 'created again with the first spec and version');
    });

    it('create of an existing key is AlreadyExists and keeps the first', async () => {
      await store.create(obj('Dashboard', 'p', 'x', 0, { first: true }));
      expect((await rejection(store.create(obj('Dashboard', 'p', 'x', 0, { first: false })))).reason).to.equal('AlreadyExists');
      expect((await store.get({ kind: 'Dashboard', project: 'p', name: 'x' }))!.spec).to.deep.equal({ first: true });
    });

    it('keys are distinct by kind, project and name (case-sensitive)', async () => {
      await store.create(obj('Dashboard', 'p', 'x'));
      await store.create(obj('Dashboard', 'p', 'X'));
      await store.create(obj('Datasource', 'p', 'x'));
      await store.create(obj('Dashboard', 'q', 'x'));
      expect(await store.list({ kind: 'Dashboard' })).to.have.length(3);
    });

    it('create with a parent requires the parent to exist', async () => {
      const parent = { kind: 'Project', project: '', name: 'p' };
      expect((await rejection(store.create(obj('Dashboard', 'p', 'x'), { parent }))).reason).to.equal('NotFound');
      expect(await store.get({ kind: 'Dashboard', project: 'p', name: 'x' })).to.equal(undefined);
      await store.create(obj('Project', '', 'p'));
      await store.create(obj('Dashboard', 'p', 'x'), { parent });
      expect(await store.get({ kind: 'Dashboard', project: 'p', name: 'x' })).to.not.equal(undefined);
    });

    it('create with `also` writes every object or none', async () => {
      await store.create(obj('Role', 'p', 'taken'));
      const e = await rejection(store.create(obj('Project', '', 'p'), { also: [obj('Role', 'p', 'owner'), obj('Role', 'p', 'taken')] }));
      expect(e.reason).to.equal('AlreadyExists');
      expect(await store.get({ kind: 'Project', project: '', name: 'p' })).to.equal(undefined);
      expect(await store.get({ kind: 'Role', project: 'p', name: 'owner' })).to.equal(undefined);
      await store.create(obj('Project', '', 'p'), { also: [obj('Role', 'p', 'owner'), obj('RoleBinding', 'p', 'owner')] });
      expect(await store.list({ kind: 'Role', project: 'p' })).to.have.length(2);
      expect(await store.get({ kind: 'RoleBinding', project: 'p', name: 'owner' })).to.not.equal(undefined);
    });

    it('update checks the expected version and reports NotFound for a missing key', async () => {
      await store.create(obj('Dashboard', 'p', 'x'));
      await store.update(obj('Dashboard', 'p', 'x', 1, { v: 1 }), { expectedVersion: 0 });
      expect((await rejection(store.update(obj('Dashboard', 'p', 'x', 1, { v: 'stale' }), { expectedVersion: 0 }))).reason).to.equal(
        'Conflict',
      );
      expect((await store.get({ kind: 'Dashboard', project: 'p', name: 'x' }))!.spec).to.deep.equal({ v: 1 });
      expect((await rejection(store.update(obj('Dashboard', 'p', 'nope', 1), { expectedVersion: 0 }))).reason).to.equal('NotFound');
    });

    it('delete removes; a missing key is NotFound; a wrong expected version is Conflict', async () => {
      await store.create(obj('Dashboard', 'p', 'x'));
      expect((await rejection(store.delete({ kind: 'Dashboard', project: 'p', name: 'x' }, { expectedVersion: 3 }))).reason).to.equal(
        'Conflict',
      );
      const wrongTime = await rejection(
        store.delete({ kind: 'Dashboard', project: 'p', name: 'x' }, { expectedVersion: 0, expectedUpdatedAt: '1999-01-01T00:00:00.000Z' }),
      );
      expect(wrongTime.reason, 'a re-created object is told apart by updatedAt').to.equal('Conflict');
      await store.delete({ kind: 'Dashboard', project: 'p', name: 'x' }, { expectedVersion: 0, expectedUpdatedAt: T });
      expect(await store.get({ kind: 'Dashboard', project: 'p', name: 'x' })).to.equal(undefined);
      expect((await rejection(store.delete({ kind: 'Dashboard', project: 'p', name: 'x' }))).reason).to.equal('NotFound');
    });

    it("delete with children removes exactly that project's objects of those kinds", async () => {
      for (const p of ['a', 'ab', 'a-b']) await store.create(obj('Project', '', p));
      for (const p of ['a', 'ab', 'a-b']) {
        await store.create(obj('Dashboard', p, 'd1'));
        await store.create(obj('Dashboard', p, 'd2'));
        await store.create(obj('Secret', p, 's'));
      }
      await store.create(obj('GlobalSecret', '', 'a'));
      await store.delete({ kind: 'Project', project: '', name: 'a' }, { children: { project: 'a', kinds: ['Dashboard', 'Secret'] } });
      expect((await store.list({ kind: 'Dashboard' })).map((o) => `${o.metadata.project}/${o.metadata.name}`)).to.deep.equal([
        'a-b/d1',
        'a-b/d2',
        'ab/d1',
        'ab/d2',
      ]);
      expect(await store.list({ kind: 'Secret', project: 'a' })).to.deep.equal([]);
      expect(await store.get({ kind: 'GlobalSecret', project: '', name: 'a' })).to.not.equal(undefined);
      expect((await store.list({ kind: 'Project' })).map((o) => o.metadata.name)).to.deep.equal(['a-b', 'ab']);
    });

    it('REL-06: a child created while its project is deleted never outlives the project', async () => {
      const parent = { kind: 'Project', project: '', name: 'p' };
      for (let round = 0; round < 20; round++) {
        await store.create(obj('Project', '', 'p'));
        await store.create(obj('Dashboard', 'p', 'first'), { parent });
        const creates = Array.from({ length: 10 }, (_, i) => store.create(obj('Dashboard', 'p', `d${i}`), { parent }));
        const removal = store.delete(parent, { children: { project: 'p', kinds: ['Dashboard'] } });
        await Promise.allSettled([...creates, removal]);
        expect(await store.get(parent)).to.equal(undefined);
        expect(await store.list({ kind: 'Dashboard', project: 'p' }), `round ${round}`).to.deep.equal([]);
      }
    });

    it('createdRevision: the revision of the ADDED event of the object stored now; gone with it, newer once re-created, kept across a reopen', async () => {
      const project = { kind: 'Project', project: '', name: 'p' };
      const child = { kind: 'Dashboard', project: 'p', name: 'd' };
      expect(await store.createdRevision(project)).to.equal(undefined);
      const r1 = await store.create(obj('Project', '', 'p'), { also: [obj('Role', 'p', 'owner')] });
      expect(await store.createdRevision(project), 'the object itself, not its companion').to.equal(r1 - 1);
      expect(await store.createdRevision({ kind: 'Role', project: 'p', name: 'owner' })).to.equal(r1);
      const r2 = await store.create(obj('Dashboard', 'p', 'd'), { parent: project });
      await store.update(obj('Dashboard', 'p', 'd', 1), { expectedVersion: 0 });
      expect(await store.createdRevision(child), 'an update is no creation').to.equal(r2);
      await store.delete(project, { children: { project: 'p', kinds: ['Dashboard', 'Role'] } });
      expect(await store.createdRevision(project)).to.equal(undefined);
      expect(await store.createdRevision(child), 'a cascaded child').to.equal(undefined);
      const r3 = await store.create(obj('Project', '', 'p'));
      expect(r3).to.be.greaterThan(r2);
      store = await fx.reopen();
      expect(await store.createdRevision(project)).to.equal(r3);
      expect(await store.createdRevision(child)).to.equal(undefined);
    });

    it('lists sort by project then name, byte-wise, and filter by project and name prefix', async () => {
      const keys = [
        ['b', 'x'],
        ['a', 'b'],
        ['a', 'B'],
        ['a-b', 'a'],
        ['a', 'a.1'],
        ['a', 'a_1'],
        ['ab', 'a'],
      ];
      for (const [p, n] of keys) await store.create(obj('Dashboard', p, n));
      const names = (list: Envelope[]) => list.map((o) => `${o.metadata.project}/${o.metadata.name}`);
      expect(names(await store.list({ kind: 'Dashboard' }))).to.deep.equal(['a/B', 'a/a.1', 'a/a_1', 'a/b', 'a-b/a', 'ab/a', 'b/x']);
      expect(names(await store.list({ kind: 'Dashboard', project: 'a' }))).to.deep.equal(['a/B', 'a/a.1', 'a/a_1', 'a/b']);
      expect(names(await store.list({ kind: 'Dashboard', project: 'a', namePrefix: 'a' }))).to.deep.equal(['a/a.1', 'a/a_1']);
      expect(names(await store.list({ kind: 'Dashboard', namePrefix: 'a' }))).to.deep.equal(['a/a.1', 'a/a_1', 'a-b/a', 'ab/a']);
      expect(await store.list({ kind: 'Dashboard', project: 'zz' })).to.deep.equal([]);
      expect(await store.list({ kind: 'Dashboard', project: 'a', namePrefix: 'zz' })).to.deep.equal([]);
    });

    it('pages with `after` and `limit` visit every object exactly once', async () => {
      for (let i = 0; i < 25; i++) await store.create(obj('Variable', `p${i % 3}`, `v${String(i).padStart(2, '0')}`));
      const seen: string[] = [];
      let after: { project: string; name: string } | undefined;
      for (;;) {
        const page = await store.list({ kind: 'Variable', limit: 7, ...(after ? { after } : {}) });
        seen.push(...page.map((o) => `${o.metadata.project}/${o.metadata.name}`));
        if (page.length < 7) break;
        const last = page[page.length - 1];
        after = { project: last.metadata.project!, name: last.metadata.name };
      }
      expect(seen).to.have.length(25);
      expect(new Set(seen).size).to.equal(25);
      expect(seen).to.deep.equal([...seen].sort());
    });

    it('metadataOnly lists: the same items (spec {}) for every query, kept current by later writes', async () => {
      const queries: ListQuery[] = [
        { kind: 'Dashboard' },
        { kind: 'Dashboard', project: 'a' },
        { kind: 'Dashboard', project: 'a', namePrefix: 'a' },
        { kind: 'Dashboard', namePrefix: 'a' },
        { kind: 'Dashboard', limit: 3, after: { project: 'a', name: 'a.1' } },
        { kind: 'Dashboard', project: 'a', after: { project: 'a', name: 'B' }, limit: 2 },
        { kind: 'Dashboard', project: 'zz' },
      ];
      const same = async (when: string) => {
        for (const q of queries) {
          const full = (await store.list(q)).map((o) => ({ kind: o.kind, metadata: o.metadata, spec: {} }));
          expect(await store.list({ ...q, metadataOnly: true }), `${when}: ${JSON.stringify(q)}`).to.deep.equal(full);
        }
      };
      for (const [p, n] of [
        ['b', 'x'],
        ['a', 'b'],
        ['a', 'B'],
        ['a-b', 'a'],
        ['a', 'a.1'],
        ['ab', 'a'],
      ])
        await store.create(obj('Dashboard', p, n, 0, { big: 'x'.repeat(100) }));
      await same('after creates');
      await store.create(obj('Dashboard', 'a', 'a_1'));
      await store.update(obj('Dashboard', 'a', 'b', 1, { changed: true }), { expectedVersion: 0 });
      await store.delete({ kind: 'Dashboard', project: 'b', name: 'x' });
      await store.create(obj('Project', '', 'a'));
      await store.delete({ kind: 'Project', project: '', name: 'a' }, { children: { project: 'a', kinds: ['Dashboard'] } });
      await same('after later writes');
    });

    it('getText and listText: the stored JSON of what get and list return, with its metadata', async () => {
      const queries: ListQuery[] = [
        { kind: 'Dashboard' },
        { kind: 'Dashboard', project: 'a' },
        { kind: 'Dashboard', project: 'a', namePrefix: 'a' },
        { kind: 'Dashboard', namePrefix: 'a' },
        { kind: 'Dashboard', limit: 2, after: { project: 'a', name: 'a.1' } },
        { kind: 'Dashboard', namePrefix: 'a', limit: 1 },
        { kind: 'Dashboard', project: 'zz' },
      ];
      // metadata and spec strings with quotes, backslashes, braces and non-ASCII must not confuse the metadata reader
      const tricky = {
        ...obj('Dashboard', 'a', 'a.1', 0, { s: '"}{][\\', u: 'é 😀' }),
        metadata: { ...obj('Dashboard', 'a', 'a.1').metadata, tags: ['}"', '\\"{', 'ü'] },
      };
      await store.create(tricky);
      for (const [p, n] of [
        ['b', 'x'],
        ['a', 'b'],
        ['a', 'B'],
        ['a-b', 'a'],
        ['ab', 'a'],
      ])
        await store.create(obj('Dashboard', p, n, 0, { big: 'x'.repeat(100) }));
      const t = await store.getText({ kind: 'Dashboard', project: 'a', name: 'a.1' });
      expect(JSON.parse(t!.text.toString())).to.deep.equal(tricky);
      expect(t!.metadata).to.deep.equal(tricky.metadata);
      expect(await store.getText({ kind: 'Dashboard', project: 'a', name: 'nope' })).to.equal(undefined);
      for (const q of queries) {
        const texts = await store.listText(q);
        const full = await store.list(q);
        expect(
          texts.map((x) => JSON.parse(x.text.toString())),
          JSON.stringify(q),
        ).to.deep.equal(full);
        expect(
          texts.map((x) => x.metadata),
          JSON.stringify(q),
        ).to.deep.equal(full.map((o) => o.metadata));
      }
    });

    it('listText stays current through writes after name-prefix lists and reads (no text read earlier is served once changed)', async () => {
      const queries: ListQuery[] = [
        { kind: 'Dashboard', project: 'a', namePrefix: 'a' },
        { kind: 'Dashboard', project: 'a' },
        { kind: 'Dashboard', namePrefix: 'a' },
        { kind: 'Dashboard', project: 'a', namePrefix: 'a', limit: 2 },
        { kind: 'Dashboard', project: 'a', after: { project: 'a', name: 'a1' } },
        { kind: 'Dashboard' },
      ];
      const same = async (when: string) => {
        for (const q of queries) {
          const texts = (await store.listText(q)).map((x) => JSON.parse(x.text.toString()) as unknown);
          expect(texts, `${when}: ${JSON.stringify(q)}`).to.deep.equal(await store.list(q));
        }
      };
      await store.create(obj('Project', '', 'a'));
      for (const n of ['a1', 'a2', 'a3', 'b1']) await store.create(obj('Dashboard', 'a', n, 0, { n: 0 }));
      await store.create(obj('Dashboard', 'b', 'a1', 0, { n: 0 }));
      await same('first lists');
      await store.getText({ kind: 'Dashboard', project: 'a', name: 'a2' });
      await store.update(obj('Dashboard', 'a', 'a1', 1, { n: 1 }), { expectedVersion: 0 });
      await store.update(obj('Dashboard', 'a', 'a2', 1, { n: 1 }), { expectedVersion: 0 });
      await store.delete({ kind: 'Dashboard', project: 'a', name: 'a3' });
      await store.create(obj('Dashboard', 'a', 'a0', 0, { n: 0 }));
      await same('after updates, a delete and a create');
      const prefixed = await store.listText(queries[0]);
      expect(prefixed.map((x) => `${x.metadata.name}:${(JSON.parse(x.text.toString()) as { spec: { n: number } }).spec.n}`)).to.deep.equal([
        'a0:0',
        'a1:1',
        'a2:1',
      ]);
      await store.delete({ kind: 'Project', project: '', name: 'a' }, { children: { project: 'a', kinds: ['Dashboard'] } });
      expect(await store.listText(queries[0])).to.deep.equal([]);
      await same('after the project went');
    });

    it('the revision increases with every write and survives a reopen', async () => {
      const r0 = await store.revision();
      const r1 = await store.create(obj('Dashboard', 'p', 'x'));
      const r2 = await store.update(obj('Dashboard', 'p', 'x', 1), { expectedVersion: 0 });
      const r3 = await store.delete({ kind: 'Dashboard', project: 'p', name: 'x' });
      expect(r1).to.be.greaterThan(r0);
      expect(r2).to.be.greaterThan(r1);
      expect(r3).to.be.greaterThan(r2);
      store = await fx.reopen();
      expect(await store.revision()).to.equal(r3);
      expect(await store.create(obj('Dashboard', 'p', 'y'))).to.be.greaterThan(r3);
    });

    it('watch with since replays the retained events, then live ones, each once', async () => {
      const r1 = await store.create(obj('Dashboard', 'p', 'a'));
      await store.create(obj('Dashboard', 'p', 'b'));
      const ac = new AbortController();
      const seen: number[] = [];
      const done = (async () => {
        for await (const e of store.watch({ since: r1, signal: ac.signal })) {
          seen.push(e.revision);
          if (seen.length === 2) ac.abort();
        }
      })();
      await store.create(obj('Dashboard', 'p', 'c'));
      await done;
      expect(seen).to.deep.equal([r1 + 1, r1 + 2]);
    });

    it('history: entries in the same write, newest first, retention, getVersion', async () => {
      const h = { writer: { by: 'alice', manager: 'dashctl' }, history: { max: 2 } };
      await store.create(obj('Dashboard', 'p', 'x', 0, { v: 0 }), h);
      for (let v = 1; v <= 4; v++) await store.update(obj('Dashboard', 'p', 'x', v, { v }), { expectedVersion: v - 1, ...h });
      const key = { kind: 'Dashboard', project: 'p', name: 'x' };
      expect((await store.listVersions(key)).map((e) => e.version)).to.deep.equal([4, 3, 2]);
      expect((await store.listVersions(key))[0]).to.deep.include({ updatedBy: 'alice', manager: 'dashctl' });
      expect((await store.getVersion(key, 3))!.spec).to.deep.equal({ v: 3 });
      expect(await store.getVersion(key, 0)).to.equal(undefined);
    });

    it("a create under its parent starts the name's history afresh (a deleted namesake's entries go) and records its writer; a refused one records nothing", async () => {
      const parent = { kind: 'Project', project: '', name: 'p' };
      const key = { kind: 'Dashboard', project: 'p', name: 'd' };
      await store.create(obj('Project', '', 'p'));
      await store.create(obj('Dashboard', 'p', 'd', 0, { v: 0 }), {
        parent,
        writer: { by: 'alice', manager: 'dashctl' },
        history: { max: 5 },
      });
      await store.update(obj('Dashboard', 'p', 'd', 1, { v: 1 }), {
        expectedVersion: 0,
        writer: { by: 'alice', manager: 'dashctl' },
        history: { max: 5 },
      });
      await store.delete(key);
      expect((await store.listVersions(key)).map((e) => e.version)).to.deep.equal([1, 0]);
      await store.create(obj('Dashboard', 'p', 'd', 0, { fresh: true }), {
        parent,
        writer: { by: 'bob', manager: 'web-ui' },
        history: { max: 5 },
      });
      expect(await store.listVersions(key)).to.have.length(1);
      expect((await store.listVersions(key))[0]).to.deep.include({ version: 0, updatedBy: 'bob', manager: 'web-ui' });
      expect((await store.getVersion(key, 0))!.spec).to.deep.equal({ fresh: true });
      expect(
        (
          await rejection(
            store.create(obj('Dashboard', 'p', 'd', 0, { again: true }), {
              parent,
              writer: { by: 'eve', manager: 'api' },
              history: { max: 5 },
            }),
          )
        ).reason,
      ).to.equal('AlreadyExists');
      expect(
        (
          await rejection(
            store.create(obj('Dashboard', 'q', 'd', 0), {
              parent: { ...parent, name: 'q' },
              writer: { by: 'eve', manager: 'api' },
              history: { max: 5 },
            }),
          )
        ).reason,
      ).to.equal('NotFound');
      expect((await store.listVersions(key))[0]).to.deep.include({ updatedBy: 'bob' });
      expect((await store.getVersion(key, 0))!.spec).to.deep.equal({ fresh: true });
      expect(await store.listVersions({ ...key, project: 'q' })).to.deep.equal([]);
    });

    it('deleted objects whose history is kept: listed by name with their last version, until restored, re-created or their project goes', async () => {
      const h = { writer: { by: 'alice', manager: 'web-ui' }, history: { max: 5 } };
      await store.create(obj('Project', '', 'p'));
      for (const name of ['gone', 'back', 'again', 'kept']) {
        await store.create(obj('Dashboard', 'p', name, 0, { v: 0 }), h);
        await store.update(obj('Dashboard', 'p', name, 1, { v: 1 }), { expectedVersion: 0, ...h });
      }
      await store.create(obj('Dashboard', 'p', 'nohistory'));
      await store.create(obj('Dashboard', 'p', 'titled', 0, { display: { name: 'Node overview' } }), h);
      await store.create(obj('Dashboard', 'p', 'blank', 0, { display: { name: '  ' } }), h);
      for (const name of ['gone', 'back', 'again', 'titled', 'blank']) await store.delete({ kind: 'Dashboard', project: 'p', name });
      await store.delete({ kind: 'Dashboard', project: 'p', name: 'nohistory' });
      expect((await store.listDeleted({ kind: 'Dashboard', project: 'p' })).map((e) => e.name)).to.deep.equal([
        'again',
        'back',
        'blank',
        'gone',
        'titled',
      ]);
      expect((await store.listDeleted({ kind: 'Dashboard', project: 'p' }))[0]).to.deep.equal({
        name: 'again',
        version: 1,
        updatedAt: T,
        updatedBy: 'alice',
        manager: 'web-ui',
      });
      // the title users know it by (spec.display.name), when it has one that is not blank
      expect((await store.listDeleted({ kind: 'Dashboard', project: 'p' })).find((e) => e.name === 'titled')).to.deep.include({
        title: 'Node overview',
        version: 0,
      });
      expect((await store.listDeleted({ kind: 'Dashboard', project: 'p' })).find((e) => e.name === 'blank')).not.to.have.property('title');
      expect(await store.listDeleted({ kind: 'Secret', project: 'p' })).to.deep.equal([]);
      expect(await store.listDeleted({ kind: 'Dashboard', project: 'other' })).to.deep.equal([]);
      // a restore continues the history; a new object of that name starts another
      await store.create(obj('Dashboard', 'p', 'back', 2, { v: 1 }), { ...h, history: { max: 5, continues: true } });
      await store.create(obj('Dashboard', 'p', 'again'), h);
      expect((await store.listDeleted({ kind: 'Dashboard', project: 'p' })).map((e) => e.name)).to.deep.equal(['blank', 'gone', 'titled']);
      await store.delete({ kind: 'Project', project: '', name: 'p' }, { children: { project: 'p', kinds: ['Dashboard'] } });
      expect(await store.listDeleted({ kind: 'Dashboard', project: 'p' })).to.deep.equal([]);
    });

    it('managers: the latest write of each field manager, newest first, at most MAX_MANAGERS; kept across a reopen, apart from the object, gone with it', async () => {
      const key = { kind: 'Secret', project: 'p', name: 's' };
      const at = (v: number) => `2026-01-01T00:00:0${v}.000Z`;
      const write = (v: number, by: string, manager: string) => {
        const o = { ...obj('Secret', 'p', 's', v, { v }), metadata: { ...obj('Secret', 'p', 's', v).metadata, updatedAt: at(v) } };
        return v === 0
          ? store.create(o, { writer: { by, manager } })
          : store.update(o, { expectedVersion: v - 1, writer: { by, manager } });
      };
      expect(await store.managers(key), 'no object').to.deep.equal([]);
      await write(0, 'alice', 'dashctl');
      await write(1, 'bob', 'web-ui');
      await write(2, 'bob', 'web-ui');
      await write(3, 'carol', 'api');
      expect(await store.managers(key)).to.deep.equal([
        { version: 3, updatedAt: at(3), updatedBy: 'carol', manager: 'api' },
        { version: 2, updatedAt: at(2), updatedBy: 'bob', manager: 'web-ui' },
        { version: 0, updatedAt: at(0), updatedBy: 'alice', manager: 'dashctl' },
      ]);
      expect(await store.get(key), 'the object itself carries nothing of it').to.deep.equal({
        ...obj('Secret', 'p', 's', 3, { v: 3 }),
        metadata: { ...obj('Secret', 'p', 's', 3).metadata, updatedAt: at(3) },
      });
      expect(await store.listVersions(key), 'no history asked for, none kept').to.deep.equal([]);
      // a write without a writer (a key rotation) leaves the record alone
      await store.update(obj('Secret', 'p', 's', 3, { rotated: true }), { expectedVersion: 3 });
      expect((await store.managers(key)).map((e) => e.manager)).to.deep.equal(['api', 'web-ui', 'dashctl']);
      store = await fx.reopen();
      expect((await store.managers(key)).map((e) => e.version)).to.deep.equal([3, 2, 0]);
      for (let i = 0; i < MAX_MANAGERS + 2; i++)
        await store.update(obj('Secret', 'p', 's', 4 + i), { expectedVersion: 3 + i, writer: { by: 'x', manager: `m${i}` } });
      const many = await store.managers(key);
      expect(many).to.have.length(MAX_MANAGERS);
      expect(many[0].manager, 'newest first').to.equal(`m${MAX_MANAGERS + 1}`);
      await store.delete(key);
      await store.create(obj('Secret', 'p', 's'));
      expect(await store.managers(key), 'a new object under the name starts without a record').to.deep.equal([]);
      // as a copy: the record given, whatever the writer
      const copied = [{ version: 0, updatedAt: T, updatedBy: 'zoe', manager: 'dashctl' }];
      await store.create(obj('Secret', 'p', 'copy'), { writer: { by: 'x', manager: 'y' }, managers: copied });
      expect(await store.managers({ ...key, name: 'copy' })).to.deep.equal(copied);
    });

    it("managers: companions get the same writer; deleting a project drops its objects' records", async () => {
      const writer = { by: 'alice', manager: 'dashctl' };
      await store.create(obj('Project', '', 'p'), { writer, also: [obj('Role', 'p', 'owner')] });
      expect((await store.managers({ kind: 'Role', project: 'p', name: 'owner' })).map((e) => e.updatedBy)).to.deep.equal(['alice']);
      await store.create(obj('Dashboard', 'p', 'd'), { writer, parent: { kind: 'Project', project: '', name: 'p' } });
      await store.delete({ kind: 'Project', project: '', name: 'p' }, { children: { project: 'p', kinds: ['Dashboard', 'Role'] } });
      await store.create(obj('Project', '', 'p'));
      await store.create(obj('Dashboard', 'p', 'd'));
      for (const k of [
        { kind: 'Project', project: '', name: 'p' },
        { kind: 'Dashboard', project: 'p', name: 'd' },
        { kind: 'Role', project: 'p', name: 'owner' },
      ]) {
        expect(await store.managers(k), k.kind).to.deep.equal([]);
      }
    });

    it("dump: the revision, then every object in key order preceded by its history (oldest first); deleted objects' history left out", async () => {
      const h = { writer: { by: 'alice', manager: 'dashctl' }, history: { max: 10 } };
      await store.create(obj('Dashboard', 'p', 'a', 0, { v: 0 }), h);
      await store.update(obj('Dashboard', 'p', 'a', 1, { v: 1 }), { expectedVersion: 0, ...h });
      await store.create(obj('Dashboard', 'p', 'ab', 0), h);
      await store.create(obj('Dashboard', 'p', 'gone', 0), h);
      await store.delete({ kind: 'Dashboard', project: 'p', name: 'gone' });
      await store.create(obj('Project', '', 'p'));
      const items: DumpItem[] = [];
      for await (const item of store.dump()) items.push(item);
      const shown = items.map((i) =>
        i.type === 'revision'
          ? `rev ${i.revision}`
          : `${i.type} ${i.object.kind}/${i.object.metadata.name}@${i.object.metadata.version}${i.type === 'version' ? ` by ${i.updatedBy}` : ''}`,
      );
      expect(shown).to.deep.equal([
        `rev ${await store.revision()}`,
        'version Dashboard/a@0 by alice',
        'version Dashboard/a@1 by alice',
        'object Dashboard/a@1',
        'version Dashboard/ab@0 by alice',
        'object Dashboard/ab@0',
        'object Project/p@0',
      ]);
    });

    it('dump: one snapshot, whatever is written while it is read', async () => {
      for (let i = 0; i < 30; i++) await store.create(obj('Dashboard', 'p', `d${String(i).padStart(2, '0')}`));
      const revision = await store.revision();
      const items: DumpItem[] = [];
      for await (const item of store.dump()) {
        items.push(item);
        if (items.length === 1) {
          // writes while the dump is half read: a new object, a deletion, an update
          await store.create(obj('Dashboard', 'p', 'd99'));
          await store.delete({ kind: 'Dashboard', project: 'p', name: 'd29' });
          await store.update(obj('Dashboard', 'p', 'd28', 1), { expectedVersion: 0 });
        }
      }
      expect(items[0]).to.deep.equal({ type: 'revision', revision });
      const names = items.flatMap((i) => (i.type === 'object' ? [`${i.object.metadata.name}@${i.object.metadata.version}`] : []));
      expect(names).to.have.length(30);
      expect(names).to.include('d29@0').and.include('d28@0').and.not.include('d99@0');
    });

    it('exclusive: callers of one key never overlap; other keys run alongside', async () => {
      let inside = 0;
      let most = 0;
      const work = () => async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setImmediate(r));
        inside--;
      };
      await Promise.all(Array.from({ length: 10 }, () => store.exclusive('k', work())));
      expect(most).to.equal(1);
      expect(await store.exclusive('k', async () => 42)).to.equal(42);
    });

    it('watch delivers later writes in revision order', async () => {
      const ac = new AbortController();
      const events: StoreEvent[] = [];
      const done = (async () => {
        for await (const e of store.watch({ signal: ac.signal })) {
          events.push(e);
          if (events.length === 3) ac.abort();
        }
      })();
      await store.create(obj('Dashboard', 'p', 'x'));
      await store.update(obj('Dashboard', 'p', 'x', 1), { expectedVersion: 0 });
      await store.delete({ kind: 'Dashboard', project: 'p', name: 'x' });
      await done;
      expect(events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events[1].revision).to.be.greaterThan(events[0].revision);
      expect(events[2].revision).to.be.greaterThan(events[1].revision);
    });

    it('32 concurrent creates of one key: exactly one wins (REL-01)', async () => {
      const results = await Promise.allSettled(Array.from({ length: 32 }, (_, i) => store.create(obj('Dashboard', 'p', 'same', 0, { i }))));
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      for (const r of results) if (r.status === 'rejected') expect((r.reason as ApiError).reason).to.equal('AlreadyExists');
    });

    it('16 concurrent updates from one expected version: exactly one wins', async () => {
      await store.create(obj('Dashboard', 'p', 'x'));
      const results = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) => store.update(obj('Dashboard', 'p', 'x', 1, { i }), { expectedVersion: 0 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      expect((await store.get({ kind: 'Dashboard', project: 'p', name: 'x' }))!.metadata.version).to.equal(1);
    });

    describeEventsContract(
      () => store,
      () => fx,
    );
    describeKeyOrderContract(
      () => store,
      () => fx,
    );
    describeAuditContract(
      () => store,
      () => fx,
    );
    describeSearchContract(
      () => store,
      () => fx,
    );
  });
}

/** A draft audit entry of `action` by `user` on Dashboard p/name at `time`. */
function draft(action: AuditDraft['action'], user: string, name: string, time = new Date().toISOString()): AuditDraft {
  return { time, action, user, kind: 'Dashboard', project: 'p', name };
}

/** The audit log of a store (issue 20): entries go with their write, numbered in commit order. */
function describeAuditContract(current: () => Store, fixture: () => StoreFixture): void {
  it('audit entries are committed with their write, and only when it commits; ids follow commit order without gaps', async () => {
    const store = current();
    const heard: number[] = [];
    store.onAudit((n) => n.entries?.forEach((e) => heard.push(e.id)));
    await store.create(obj('Dashboard', 'p', 'x'), { audit: [draft('create', 'ann', 'x')] });
    await rejection(store.create(obj('Dashboard', 'p', 'x'), { audit: [draft('create', 'bob', 'x')] }));
    await rejection(store.update(obj('Dashboard', 'p', 'x', 5), { expectedVersion: 4, audit: [draft('update', 'bob', 'x')] }));
    await store.update(obj('Dashboard', 'p', 'x', 1), { expectedVersion: 0, audit: [draft('update', 'ann', 'x')] });
    await store.appendAudit([draft('denied', 'bob', 'x'), draft('login', 'ann', 'x')]);
    await store.delete({ kind: 'Dashboard', project: 'p', name: 'x' }, { audit: [draft('delete', 'ann', 'x')] });
    await rejection(store.delete({ kind: 'Dashboard', project: 'p', name: 'x' }, { audit: [draft('delete', 'bob', 'x')] }));
    const { entries } = await store.listAudit({ limit: 100 });
    expect(entries.map((e) => [e.id, e.action, e.user])).to.deep.equal([
      [5, 'delete', 'ann'],
      [4, 'login', 'ann'],
      [3, 'denied', 'bob'],
      [2, 'update', 'ann'],
      [1, 'create', 'ann'],
    ]);
    expect(await store.lastAuditId()).to.equal(5);
    expect(heard, 'this process hears its own entries').to.deep.equal([1, 2, 3, 4, 5]);
    const concurrent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create(obj('Dashboard', 'p', `c${i}`), { audit: [draft('create', 'ann', `c${i}`)] })),
    );
    expect(concurrent).to.have.length(20);
    const ids = (await store.listAudit({ afterId: 5, limit: 100 })).entries.map((e) => e.id);
    expect(ids).to.deep.equal(Array.from({ length: 20 }, (_, i) => 6 + i));
  });

  it('audit pages: filters, newest first or from an id onwards, time range; pruning; numbering survives a reopen', async () => {
    let store = current();
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    await store.appendAudit([
      draft('login', 'ann', 'a', t(1)),
      draft('create', 'bob', 'b', t(2)),
      { time: t(3), action: 'denied', user: 'bob', kind: 'Folder', project: 'q', name: 'f' },
      draft('update', 'ann', 'a', t(4)),
    ]);
    const ids = async (q: Partial<AuditQuery>) => (await store.listAudit({ limit: 100, ...q })).entries.map((e) => e.id);
    expect(await ids({ user: 'bob' })).to.deep.equal([3, 2]);
    expect(await ids({ kind: 'Folder' })).to.deep.equal([3]);
    expect(await ids({ project: 'p' })).to.deep.equal([4, 2, 1]);
    expect(await ids({ action: 'update' })).to.deep.equal([4]);
    expect(await ids({ since: t(2), until: t(4) })).to.deep.equal([3, 2]);
    expect(await ids({ beforeId: 3, limit: 1 })).to.deep.equal([2]);
    expect(await ids({ afterId: 1, limit: 2 })).to.deep.equal([2, 3]);
    expect(await store.pruneAudit(t(3))).to.equal(2);
    expect(await ids({})).to.deep.equal([4, 3]);
    store = await fixture().reopen();
    await store.appendAudit([draft('logout', 'ann', 'a')]);
    expect(await ids({ limit: 1 })).to.deep.equal([5]);
  });
}
