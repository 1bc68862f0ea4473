/**
 * Part of the Store contract (test/store-contract.ts): snapshot, onEvent, sync and ping, and the
 * rules of store-rules.ts as both drivers must apply them (the same errors in the same words, the
 * same history kept).
 */
import { expect } from 'chai';
import { ApiError } from '../src/errors.js';
import type { Store, StoreEvent } from '../src/storage/store.js';
import { obj, rejection, type StoreFixture } from './store-contract.js';
import { waitFor } from './helpers/wait.js';

const T = '2026-01-01T00:00:00.000Z';
const key = (name: string) => ({ kind: 'Dashboard', project: 'p', name });

export function describeEventsContract(current: () => Store, fixture: () => StoreFixture): void {
  it('snapshot: a list and the revision it reflects, taken together while writes go on', async () => {
    const store = current();
    await store.create(obj('Dashboard', 'p', 'before'));
    const quiet = await store.snapshot({ kind: 'Dashboard' });
    expect(quiet.revision).to.equal(await store.revision());
    expect(quiet.items).to.deep.equal(await store.list({ kind: 'Dashboard' }));
    // 20 creates racing 10 snapshots: each snapshot holds exactly the creates up to its revision
    const creates = Array.from({ length: 20 }, (_, i) =>
      store.create(obj('Dashboard', 'p', `d${String(i).padStart(2, '0')}`)).then((r) => ({ name: `d${String(i).padStart(2, '0')}`, r })),
    );
    const snaps = Array.from({ length: 10 }, () => store.snapshot({ kind: 'Dashboard', project: 'p' }));
    const made = await Promise.all(creates);
    for (const s of await Promise.all(snaps)) {
      const expected = ['before', ...made.filter((m) => m.r <= s.revision).map((m) => m.name)].sort();
      expect(
        s.items.map((o) => o.metadata.name),
        `snapshot at ${s.revision}`,
      ).to.deep.equal(expected);
    }
    const some = await store.snapshot({ kind: 'Dashboard', project: 'p', namePrefix: 'd1', limit: 3 });
    expect(some.items.map((o) => o.metadata.name)).to.deep.equal(['d10', 'd11', 'd12']);
  });

  it('onEvent: every event, synchronously and in revision order, before the write resolves; removed listeners hear nothing more', async () => {
    const store = current();
    const heard: StoreEvent[] = [];
    const off = store.onEvent((e) => heard.push(e));
    const r1 = await store.create(obj('Project', '', 'p'), { also: [obj('Role', 'p', 'owner')] });
    expect(
      heard.map((e) => `${e.type} ${e.object.kind} ${e.revision}`),
      'heard before the create resolved',
    ).to.deep.equal([`ADDED Project ${r1 - 1}`, `ADDED Role ${r1}`]);
    await store.create(obj('Dashboard', 'p', 'a'));
    const r3 = await store.update(obj('Dashboard', 'p', 'a', 1), { expectedVersion: 0 });
    expect(heard.at(-1)).to.deep.include({ type: 'MODIFIED', revision: r3 });
    const r4 = await store.delete(
      { kind: 'Project', project: '', name: 'p' },
      { children: { project: 'p', kinds: ['Dashboard', 'Role'] } },
    );
    expect(heard.slice(-3).map((e) => `${e.type} ${e.object.kind}`)).to.deep.equal([
      'DELETED Dashboard',
      'DELETED Role',
      'DELETED Project',
    ]);
    expect(heard.at(-1)!.revision).to.equal(r4);
    expect(
      heard.map((e) => e.revision),
      'each revision once, in order',
    ).to.deep.equal(Array.from({ length: heard.length }, (_, i) => r1 - 1 + i));
    // a failed write is heard by nobody
    await rejection(store.update(obj('Dashboard', 'p', 'gone', 1), { expectedVersion: 0 }));
    expect(heard.at(-1)!.revision).to.equal(r4);
    off();
    await store.create(obj('Dashboard', 'q', 'after'));
    expect(heard.at(-1)!.revision, 'nothing after off()').to.equal(r4);
  });

  it('sync: once it resolves, every event committed before the call (by any replica) has reached the listeners', async () => {
    const store = current();
    const heard = new Set<number>();
    store.onEvent((e) => heard.add(e.revision));
    await store.sync();
    const r = await store.create(obj('Dashboard', 'p', 'x'));
    await store.sync();
    expect(heard.has(r)).to.equal(true);
    const peer = await fixture().peer?.();
    if (!peer) return; // one process owns the data: its own commits are all there is
    const peerHeard = new Set<number>();
    peer.onEvent((e) => peerHeard.add(e.revision));
    for (let i = 0; i < 10; i++) {
      const rev = await store.create(obj('Dashboard', 'p', `s${i}`));
      await peer.sync();
      expect(peerHeard.has(rev), `write ${i} reached the other replica`).to.equal(true);
    }
  });

  it('watch with a backlog: live events a consumer has not taken are bounded by count and by size; past the bound it is told once, they are dropped and its events end, while one that keeps up goes on; one write of many events never passes it by itself', async () => {
    const store = current();
    const r0 = await store.create(obj('Dashboard', 'p', 'first'));
    const big = 'x'.repeat(4000);
    const watchWith = (maxEvents: number, maxBytes: number) => {
      const ac = new AbortController();
      let told = 0;
      const events = store.watch({ signal: ac.signal, backlog: { maxEvents, maxBytes, overflow: () => told++ } })[Symbol.asyncIterator]();
      return { ac, events, told: () => told };
    };
    const byCount = watchWith(3, 1_000_000);
    const bySize = watchWith(1000, 10_000);
    const keepsUp = watchWith(3, 10_000);
    const taken: number[] = [];
    const reading = (async () => {
      for (;;) {
        const n = await keepsUp.events.next();
        if (n.done) return;
        taken.push(n.value.revision);
        if (taken.length === 6) keepsUp.ac.abort();
      }
    })();
    // each write waits for the reader to take the one before: it keeps up
    let last = r0;
    for (let i = 0; i < 6; i++) {
      last = await store.create(obj('Dashboard', 'p', `b${i}`, 0, { big }));
      await waitFor(`the reader to take write ${i}`, () => taken.length === i + 1, 5_000, 2);
    }
    await reading;
    expect(taken, 'the reader that keeps up took every event').to.deep.equal(Array.from({ length: 6 }, (_, i) => r0 + 1 + i));
    expect(keepsUp.told()).to.equal(0);
    expect(last).to.equal(r0 + 6);
    // 6 events waited for the others: past 3 events, and past 10,000 bytes (three objects of 4 KB), each was told once
    expect(byCount.told()).to.equal(1);
    expect(bySize.told()).to.equal(1);
    // what waited was dropped: their events end at once (a consumer resumes from the log with since)
    for (const w of [byCount, bySize]) {
      expect(await w.events.next()).to.deep.equal({ done: true, value: undefined });
      w.ac.abort();
    }
    // one write of more events than the bound (a project deleted with its objects) does not pass it by itself
    await store.create(obj('Project', '', 'burst'));
    for (let i = 0; i < 6; i++) await store.create(obj('Dashboard', 'burst', `d${i}`, 0, { big }));
    const burst = watchWith(3, 10_000);
    const removed = await store.delete(
      { kind: 'Project', project: '', name: 'burst' },
      { children: { project: 'burst', kinds: ['Dashboard'] } },
    );
    const got: string[] = [];
    for (let n = await burst.events.next(); !n.done; n = await burst.events.next()) {
      got.push(`${n.value.type} ${n.value.object.kind}`);
      if (n.value.revision === removed) burst.ac.abort();
    }
    expect(got).to.deep.equal([...Array.from({ length: 6 }, () => 'DELETED Dashboard'), 'DELETED Project']);
    expect(burst.told()).to.equal(0);
  });

  it('ping: resolves while the store serves; Unavailable once it is closed', async () => {
    let store = current();
    await store.ping();
    await store.close();
    const e = await store.ping().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).to.be.instanceOf(ApiError);
    expect((e as ApiError).reason).to.equal('Unavailable');
    store = await fixture().reopen();
    await store.ping();
  });

  it('preconditions: the same errors, in the same words, from every driver', async () => {
    const store = current();
    await store.create(obj('Dashboard', 'p', 'x'));
    const message = async (p: Promise<unknown>) => {
      const e = await rejection(p);
      return `${e.reason}: ${e.message}`;
    };
    expect(await message(store.create(obj('Dashboard', 'p', 'x')))).to.equal('AlreadyExists: Dashboard "x" already exists');
    expect(await message(store.create(obj('Dashboard', 'p', 'y'), { parent: { kind: 'Project', project: '', name: 'p' } }))).to.equal(
      'NotFound: Project "p" not found',
    );
    expect(await message(store.update(obj('Dashboard', 'p', 'x', 5), { expectedVersion: 4 }))).to.equal(
      'Conflict: Dashboard "x" is at version 0, not 4',
    );
    expect(await message(store.update(obj('Dashboard', 'p', 'nope', 1), { expectedVersion: 0 }))).to.equal(
      'NotFound: Dashboard "nope" not found',
    );
    expect(await message(store.delete(key('nope')))).to.equal('NotFound: Dashboard "nope" not found');
    expect(await message(store.delete(key('x'), { expectedVersion: 2 }))).to.equal('Conflict: Dashboard "x" is at version 0, not 2');
    expect(await message(store.delete(key('x'), { expectedUpdatedAt: '1999-01-01T00:00:00.000Z' }))).to.equal(
      `Conflict: Dashboard "x" was written again at ${T}`,
    );
    const r = await store.revision();
    let err: unknown;
    try {
      store.watch({ since: r + 5, signal: AbortSignal.abort() });
    } catch (e) {
      err = e;
    }
    expect(`${(err as ApiError).reason}: ${(err as ApiError).message}`).to.equal(
      `BadRequest: revision ${r + 5} is in the future (the store is at ${r})`,
    );
  });

  it('history rules: a create starts the name afresh unless it continues (with or without an entry of its own); retention keeps the max versions before the one written', async () => {
    const store = current();
    const h = (max: number, continues = false) => ({
      writer: { by: 'alice', manager: 'dashctl' },
      history: { max, ...(continues ? { continues } : {}) },
    });
    const versions = async (name: string) => (await store.listVersions(key(name))).map((e) => e.version);
    await store.create(obj('Dashboard', 'p', 'a'), h(10));
    for (let v = 1; v <= 3; v++) await store.update(obj('Dashboard', 'p', 'a', v), { expectedVersion: v - 1, ...h(10) });
    await store.delete(key('a'));
    expect(await versions('a'), 'a deleted object keeps its history').to.deep.equal([3, 2, 1, 0]);
    // a restore: continues the history, with retention
    await store.create(obj('Dashboard', 'p', 'a', 4), h(2, true));
    expect(await versions('a')).to.deep.equal([4, 3, 2]);
    await store.delete(key('a'));
    // a new object under the name, recording no history: the old one is dropped all the same
    await store.create(obj('Dashboard', 'p', 'a'));
    expect(await versions('a')).to.deep.equal([]);
    expect(await store.getVersion(key('a'), 3)).to.equal(undefined);
    // an update without `history` records nothing and keeps what is there
    await store.delete(key('a'));
    await store.create(obj('Dashboard', 'p', 'a'), h(1));
    await store.update(obj('Dashboard', 'p', 'a', 1), { expectedVersion: 0 });
    expect(await versions('a')).to.deep.equal([0]);
    await store.update(obj('Dashboard', 'p', 'a', 2), { expectedVersion: 1, ...h(1) });
    expect(await versions('a'), 'max 1: the version before the one written stays').to.deep.equal([2]);
    await store.update(obj('Dashboard', 'p', 'a', 3), { expectedVersion: 2, ...h(1) });
    expect(await versions('a')).to.deep.equal([3, 2]);
    expect((await store.listVersions(key('a')))[0]).to.deep.include({ updatedBy: 'alice', manager: 'dashctl' });
    await store.update(obj('Dashboard', 'p', 'a', 4), { expectedVersion: 3, history: { max: 5 } });
    expect((await store.listVersions(key('a')))[0], 'no writer: unknown').to.deep.include({
      version: 4,
      updatedBy: 'unknown',
      manager: 'unknown',
    });
  });
}
