import { expect } from 'chai';
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describeServiceContract } from '../../test/service-contract.js';
import { creationScenario, describeStoreContract, obj, type StoreFixture } from '../../test/store-contract.js';
import { describeSearchContract, SEARCH_KINDS } from '../../test/store-contract-search.js';
import { searchIndexProblems } from '../../test/helpers/search-index.js';
import { wordTerms } from '../lib/search-terms.js';
import { tempDir } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait.js';
import { Level } from 'level';
import { LevelStore } from './level-store.js';
import type { ApiError } from '../errors.js';
import type { StoreEvent } from './store.js';

/** A store on a new directory. */
async function fixture(): Promise<StoreFixture> {
  const dir = tempDir();
  let store = new LevelStore(dir.path, { searchKinds: SEARCH_KINDS });
  await store.open();
  return {
    store,
    async reopen() {
      await store.close();
      store = new LevelStore(dir.path, { searchKinds: SEARCH_KINDS });
      await store.open();
      return store;
    },
    async destroy() {
      await store.close();
      dir.remove();
    },
  };
}
describeStoreContract('LevelStore', fixture);
describeServiceContract('LevelStore', fixture);

/** The search contract again with each plan taken whatever the estimates say (a small store is always read whole). */
for (const plan of ['records', 'whole', 'lazy'] as const) {
  describe(`LevelStore search plan: ${plan}`, () => {
    let fx: StoreFixture;
    beforeEach(async () => {
      const dir = tempDir();
      let store = new LevelStore(dir.path, { searchKinds: SEARCH_KINDS, searchPlan: plan });
      await store.open();
      fx = {
        get store() {
          return store;
        },
        async reopen() {
          await store.close();
          store = new LevelStore(dir.path, { searchKinds: SEARCH_KINDS, searchPlan: plan });
          await store.open();
          return store;
        },
        async destroy() {
          await store.close();
          dir.remove();
        },
      };
    });
    afterEach(async () => fx.destroy());
    describeSearchContract(
      () => fx.store,
      () => fx,
    );

    // each iterator costs native memory until collected (level-read.ts, IteratorPool); one per range
    // read opened 2-3 (records), 12-32 (whole) and 12-142 (lazy) for these queries
    it('a search opens as many iterators as it reads ranges at once, not one per range', async () => {
      // the lazy plan's cursors of one combination read together ('b' of team-b stands for several terms)
      const most = plan === 'lazy' ? 12 : 2;
      const T = '2026-01-01T00:00:00.000Z';
      const words = ['cpu usage', 'memory pressure', 'node latency', 'disk io'];
      for (const p of ['team-a', 'team-b', 'ops']) {
        await fx.store.create({ kind: 'Project', metadata: { name: p, createdAt: T, updatedAt: T, version: 0 }, spec: {} });
        for (let i = 0; i < 12; i++)
          await fx.store.create({
            kind: 'Dashboard',
            metadata: { name: `d${i}`, project: p, createdAt: T, updatedAt: T, version: 0, tags: [`t${i % 3}`] },
            spec: { display: { name: words[i % words.length] }, panels: {}, notes: `${words[(i + 1) % words.length]} rate` },
          });
      }
      const opened = { n: 0 };
      const proto = Level.prototype as unknown as Record<'keys' | 'iterator' | 'values', (...a: unknown[]) => unknown>;
      const originals = { keys: proto.keys, iterator: proto.iterator, values: proto.values };
      for (const m of ['keys', 'iterator', 'values'] as const)
        proto[m] = function (this: unknown, ...a: unknown[]) {
          opened.n++;
          return originals[m].apply(this, a);
        };
      try {
        const scopes = [
          SEARCH_KINDS.map((kind) => ({ kind })),
          [
            { kind: 'Dashboard', projects: ['team-a', 'ops'] },
            { kind: 'Project', names: ['ops'] },
          ],
        ];
        for (const query of ['cpu', 'cpu usage', 'memory node rate', 'tag:t1 disk', 'lat', 'zzz', 'team-b usage'])
          for (const scope of scopes) {
            opened.n = 0;
            const found = await fx.store.search({
              words: query.split(' ').map((word) => ({ word, terms: wordTerms(word) })),
              scopes: scope,
            });
            for await (const _ of found!);
            expect(opened.n, `${query} in ${JSON.stringify(scope)}`).to.be.at.most(most);
          }
      } finally {
        Object.assign(proto, originals);
      }
    });
  });
}

/** A LevelStore on a new directory for `fn`, closed and removed after. */
async function withStore(fn: (store: LevelStore) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const store = new LevelStore(dir.path);
  await store.open();
  try {
    await fn(store);
  } finally {
    await store.close();
    dir.remove();
  }
}

describe('LevelStore reads', () => {
  it('a get never returns an older version than the last write that resolved, with reads in flight across writes', async () => {
    await withStore(async (store) => {
      const key = { kind: 'Dashboard', project: 'p', name: 'd' };
      await store.create(obj('Dashboard', 'p', 'd', 0, { n: 0 }));
      for (let v = 1; v <= 300; v++) {
        const inFlight = [store.get(key), store.getText(key), store.get(key)];
        await store.update(obj('Dashboard', 'p', 'd', v, { n: v, pad: 'x'.repeat(v * 37) }), { expectedVersion: v - 1 });
        expect((await store.get(key))!.metadata.version, `after write ${v}`).to.equal(v);
        expect((await store.getText(key))!.metadata.version, `after write ${v}`).to.equal(v);
        await Promise.all(inFlight);
      }
      await store.delete(key);
      expect(await store.get(key)).to.equal(undefined);
    });
  });
});

describe('LevelStore group commit', () => {
  it('concurrent writes share batches; each gets its own outcome and revision, events in revision order', async () => {
    await withStore(async (store) => {
      await store.create(obj('Project', '', 'p'));
      await store.create(obj('Dashboard', 'p', 'taken'));
      const seen: StoreEvent[] = [];
      store.onEvent((e) => seen.push(e));
      const start = await store.revision();
      const writes = Array.from({ length: 60 }, (_, i) => {
        if (i % 10 === 3) return store.create(obj('Dashboard', 'p', 'taken')); // exists
        if (i % 10 === 5)
          return store.create(obj('Dashboard', 'q', `orphan-${i}`), { parent: { kind: 'Project', project: '', name: 'q' } }); // no parent
        if (i % 10 === 7) return store.update(obj('Dashboard', 'p', 'taken', 99), { expectedVersion: 42 }); // stale
        return store.create(obj('Dashboard', 'p', `d-${i}`), {
          parent: { kind: 'Project', project: '', name: 'p' },
          writer: { by: 'x', manager: 'test' },
          history: { max: 5 },
        });
      });
      const outcomes = await Promise.allSettled(writes);
      const reasons = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as ApiError).reason));
      outcomes.forEach((_o, i) =>
        expect(reasons[i], `write ${i}`).to.equal(
          i % 10 === 3 ? 'AlreadyExists' : i % 10 === 5 ? 'NotFound' : i % 10 === 7 ? 'Conflict' : 'ok',
        ),
      );
      const revisions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      expect(revisions).to.have.length(42);
      expect(new Set(revisions).size).to.equal(42);
      expect(await store.revision()).to.equal(start + 42);
      expect(seen.map((e) => e.revision)).to.deep.equal(Array.from({ length: 42 }, (_, i) => start + 1 + i));
      // each write's revision is that of its own event
      for (const [i, o] of outcomes.entries()) {
        if (o.status === 'fulfilled') expect(seen.find((e) => e.revision === o.value)!.object.metadata.name).to.equal(`d-${i}`);
      }
      expect(await store.list({ kind: 'Dashboard', project: 'p' })).to.have.length(43);
      expect(await store.listVersions({ kind: 'Dashboard', project: 'p', name: 'd-0' })).to.have.length(1);
    });
  });

  it('a delete and a create of a child racing it never leave the child without its parent', async () => {
    await withStore(async (store) => {
      for (let round = 0; round < 30; round++) {
        await store.create(obj('Project', '', 'p'));
        const parent = { kind: 'Project', project: '', name: 'p' };
        const racing = Array.from({ length: 8 }, (_, i) => store.create(obj('Dashboard', 'p', `c-${i}`), { parent }));
        const del = store.delete(parent, { children: { project: 'p', kinds: ['Dashboard'] } });
        racing.push(...Array.from({ length: 8 }, (_, i) => store.create(obj('Dashboard', 'p', `late-${i}`), { parent })));
        await Promise.allSettled([...racing, del]);
        expect(await store.get(parent)).to.equal(undefined);
        expect(await store.list({ kind: 'Dashboard', project: 'p' }), `round ${round}`).to.deep.equal([]);
      }
    });
  });
});

describe('LevelStore opening', () => {
  it('a second store on the same directory fails with a clear message (REL-10)', async () => {
    const dir = tempDir();
    const first = new LevelStore(dir.path);
    await first.open();
    try {
      const second = new LevelStore(dir.path);
      let message = '';
      await second.open().catch((e: Error) => (message = e.message));
      expect(message).to.match(/in use by another dashplane process/);
      expect(await first.revision()).to.equal(0);
    } finally {
      await first.close();
      dir.remove();
    }
  });

  it('a store made long before it is opened checks the directory first: a damaged one is left as it is, a new one opens (REL-11)', async () => {
    const ticks = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    // a database that lost its CURRENT file
    const damaged = tempDir();
    const fresh = tempDir();
    try {
      const made = new LevelStore(damaged.path);
      await made.open();
      await made.create(obj('Project', '', 'kept'));
      await made.close();
      unlinkSync(join(damaged.path, 'CURRENT'));
      const files = () =>
        Object.fromEntries(
          readdirSync(damaged.path)
            .filter((f) => !/^(LOG|LOG\.old|LOCK)$/.test(f))
            .map((f) => [f, readFileSync(join(damaged.path, f)).toString('base64')]),
        );
      const before = files();

      const late = new LevelStore(damaged.path);
      await ticks(); // what migrate-store did: the target made, the source opened first
      let message = '';
      await late.open().catch((e: Error) => (message = e.message));
      expect(message).to.match(/holds LevelDB files but no CURRENT file/);
      expect(files(), 'nothing created, dropped or rewritten').to.deep.equal(before);
      await late.close();

      const other = new LevelStore(fresh.path);
      await ticks();
      await other.open();
      expect(await other.revision()).to.equal(0);
      await other.close();
    } finally {
      damaged.remove();
      fresh.remove();
    }
  });
});

describe('LevelStore creation revisions', () => {
  it('a database written before they were kept gets them at open, from the retained event log (0 for older objects)', async () => {
    const dir = tempDir();
    let store = new LevelStore(dir.path, { eventLogSize: 3 });
    await store.open();
    try {
      const { r4, r5 } = await creationScenario(store);
      await store.close();
      // what an older dashplane left: no creation revisions, no marker
      const raw = new Level<string, string>(dir.path);
      const keys = await raw.keys({ gte: 'c\x00', lt: 'c\x00\xff' }).all();
      expect(keys).to.have.length(3);
      await raw.batch([...keys, 'm\x00creations'].map((key) => ({ type: 'del' as const, key })));
      await raw.close();
      store = new LevelStore(dir.path, { eventLogSize: 3 });
      await store.open();
      expect(await store.createdRevision({ kind: 'Project', project: '', name: 'p' })).to.equal(r4);
      expect(await store.createdRevision({ kind: 'Dashboard', project: 'p', name: 'd' })).to.equal(r5);
      expect(
        await store.createdRevision({ kind: 'Project', project: '', name: 'old' }),
        'created before the oldest retained event',
      ).to.equal(0);
      expect(await store.createdRevision({ kind: 'Project', project: '', name: 'gone' })).to.equal(undefined);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('LevelStore tombstones (a create of a new name reads no history)', () => {
  const key = { kind: 'Dashboard', project: 'p', name: 'd' };
  const h = { history: { max: 50 } };
  /** d written at versions 0 and 1 (history entries for both), then deleted. */
  async function deletedWithHistory(store: LevelStore): Promise<void> {
    await store.create(obj('Project', '', 'p'));
    await store.create(obj('Dashboard', 'p', 'd'), { ...h, parent: { kind: 'Project', project: '', name: 'p' } });
    await store.update(obj('Dashboard', 'p', 'd', 1), { expectedVersion: 0, ...h });
    await store.delete(key);
    expect((await store.listVersions(key)).map((v) => v.version)).to.deep.equal([1, 0]);
  }

  it('a delete keeps the history and marks the name; a new object there starts a new history; a restore continues the old one', async () => {
    await withStore(async (store) => {
      await deletedWithHistory(store);
      await store.create(obj('Dashboard', 'p', 'd', 0, { fresh: true }), h);
      expect((await store.listVersions(key)).map((v) => v.version)).to.deep.equal([0]);
      await store.delete(key);
      await store.create(obj('Dashboard', 'p', 'd', 1, { restored: true }), { history: { max: 50, continues: true } });
      expect((await store.listVersions(key)).map((v) => v.version)).to.deep.equal([1, 0]);
    });
  });

  it('a database written before tombstones were kept gets them at open: the old history of a deleted name is still dropped by a new create', async () => {
    const dir = tempDir();
    let store = new LevelStore(dir.path);
    await store.open();
    try {
      await deletedWithHistory(store);
      await store.create(obj('Dashboard', 'p', 'live'), h);
      await store.close();
      // what an older dashplane left: histories of deleted objects without tombstones, no marker
      const raw = new Level<string, string>(dir.path);
      const stones = await raw.keys({ gte: 't\x00', lt: 't\x00\xff' }).all();
      expect(stones).to.deep.equal(['t\x00Dashboard\x00p\x00d']);
      await raw.batch([...stones, 'm\x00tombstones'].map((k) => ({ type: 'del' as const, key: k })));
      await raw.close();
      store = new LevelStore(dir.path);
      await store.open();
      await store.create(obj('Dashboard', 'p', 'd', 0, { fresh: true }), h);
      expect(
        (await store.listVersions(key)).map((v) => v.version),
        'old versions 1 and 0 dropped',
      ).to.deep.equal([0]);
      expect((await store.getVersion(key, 0))?.spec).to.deep.equal({ fresh: true });
      expect(
        (await store.listVersions({ kind: 'Dashboard', project: 'p', name: 'live' })).length,
        'a live object gets no tombstone',
      ).to.equal(1);
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('metadata records: written and removed with their objects; a database written before them gets them at open, and metadata_only lists answer from them', async () => {
    const dir = tempDir();
    let store = new LevelStore(dir.path);
    await store.open();
    const records = async () => {
      const raw = new Level<string, string>(dir.path);
      try {
        return Object.fromEntries(await raw.iterator({ gte: 'i\x00', lt: 'i\x00\xff' }).all());
      } finally {
        await raw.close();
      }
    };
    const tagged = {
      ...obj('Dashboard', 'p', 'b', 0, { big: 'x'.repeat(5000) }),
      metadata: { ...obj('Dashboard', 'p', 'b').metadata, tags: ['"}{', 'é'] },
    };
    try {
      await store.create(obj('Project', '', 'p'));
      for (const n of ['a', 'c', 'gone']) await store.create(obj('Dashboard', 'p', n, 0, { big: 'x'.repeat(5000) }), h);
      await store.create(tagged, h);
      await store.update(obj('Dashboard', 'p', 'c', 1, { changed: true }), { expectedVersion: 0, ...h });
      await store.delete({ kind: 'Dashboard', project: 'p', name: 'gone' });
      await store.close();
      const written = await records();
      expect(Object.keys(written)).to.deep.equal([
        'i\x00Dashboard\x00p\x00a',
        'i\x00Dashboard\x00p\x00b',
        'i\x00Dashboard\x00p\x00c',
        'i\x00Project\x00\x00p',
      ]);
      expect(JSON.parse(written['i\x00Dashboard\x00p\x00b'])).to.deep.equal(tagged.metadata);
      expect(JSON.parse(written['i\x00Dashboard\x00p\x00c']).version).to.equal(1);
      // what an older dashplane left: objects without metadata records, no marker
      const raw = new Level<string, string>(dir.path);
      await raw.batch([...Object.keys(written), 'm\x00metadata'].map((k) => ({ type: 'del' as const, key: k })));
      await raw.close();
      store = new LevelStore(dir.path);
      await store.open();
      const listed = await store.list({ kind: 'Dashboard', project: 'p', metadataOnly: true });
      expect(listed).to.deep.equal(
        (await store.list({ kind: 'Dashboard', project: 'p' })).map((o) => ({ kind: o.kind, metadata: o.metadata, spec: {} })),
      );
      expect(listed.map((o) => o.metadata.name)).to.deep.equal(['a', 'b', 'c']);
      await store.close();
      expect(await records()).to.deep.equal(written);
      store = new LevelStore(dir.path);
      await store.open();
      await store.delete({ kind: 'Project', project: '', name: 'p' }, { children: { kinds: ['Dashboard'], project: 'p' } });
      await store.close();
      expect(await records(), "a project delete removes its children's records").to.deep.equal({});
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('a project delete removes the tombstones of its deleted children with their histories', async () => {
    await withStore(async (store) => {
      await deletedWithHistory(store);
      await store.delete({ kind: 'Project', project: '', name: 'p' }, { children: { kinds: ['Dashboard'], project: 'p' } });
      await store.create(obj('Project', '', 'p'));
      await store.create(obj('Dashboard', 'p', 'd'), h);
      expect((await store.listVersions(key)).map((v) => v.version)).to.deep.equal([0]);
    });
  });
});

describe('LevelStore metadata index', () => {
  it('loading a kind into the metadata index holds no write: creates and deletes made during the load end before it and are in it', async () => {
    await withStore(async (store) => {
      await store.create(obj('Project', '', 'p'));
      for (let i = 0; i < 20_000; i += 1_000)
        await Promise.all(
          Array.from({ length: 1_000 }, (_, j) => store.create(obj('Dashboard', 'p', `d${String(i + j).padStart(5, '0')}`))),
        );
      const order: string[] = [];
      const listed = store.list({ kind: 'Dashboard', project: 'p', metadataOnly: true }).then((l) => {
        order.push('list');
        return l;
      });
      const writes = (async () => {
        await store.create(obj('Dashboard', 'p', 'during'));
        await store.delete({ kind: 'Dashboard', project: 'p', name: 'd00000' });
        order.push('writes');
      })();
      await Promise.all([listed, writes]);
      expect(order, 'the writes did not wait for the load').to.deep.equal(['writes', 'list']);
      const names = (await store.list({ kind: 'Dashboard', project: 'p', metadataOnly: true })).map((o) => o.metadata.name);
      expect(names).to.deep.equal((await store.list({ kind: 'Dashboard', project: 'p' })).map((o) => o.metadata.name));
      expect(names).to.include('during').and.not.include('d00000');
    });
  });
});

describe('LevelStore metadata_only lists after a restart', () => {
  it('read the metadata of thousands of objects from their records, in several reads, each in its place', async () => {
    const dir = tempDir();
    let store = new LevelStore(dir.path);
    await store.open();
    try {
      await store.create(obj('Project', '', 'p'));
      await Promise.all(
        Array.from({ length: 2_500 }, (_, i) => store.create(obj('Dashboard', 'p', `d${String(i).padStart(4, '0')}`, 0, { n: i }))),
      );
      await store.close();
      // a new store: its index loads the records' keys, a list reads their metadata
      store = new LevelStore(dir.path);
      await store.open();
      const metadata = (await store.list({ kind: 'Dashboard', project: 'p', metadataOnly: true })).map((o) => o.metadata);
      expect(metadata).to.have.length(2_500);
      expect(metadata).to.deep.equal((await store.list({ kind: 'Dashboard', project: 'p' })).map((o) => o.metadata));
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('LevelStore search index upgrades', () => {
  const kinds = ['Project', 'Dashboard'];
  const names = async (store: LevelStore, word: string) => {
    const found = await store.search({ words: [{ word, terms: [word] }], scopes: kinds.map((kind) => ({ kind })) });
    if (!found) return undefined;
    const out: string[] = [];
    for await (const c of found) out.push(c.text.metadata.name);
    return out.sort();
  };

  it('a directory written without the index (or by a store without it, since) is indexed in the background at open; until then the store answers no candidates', async () => {
    const dir = tempDir();
    let store = new LevelStore(dir.path);
    await store.open();
    try {
      await store.create(obj('Project', '', 'p'));
      for (let i = 0; i < 450; i++)
        await store.create(obj('Dashboard', 'p', `d${i}`, 0, { display: { name: i === 7 ? 'Kafka lag' : 'Other' } }));
      await store.close();
      store = new LevelStore(dir.path, { searchKinds: kinds });
      await store.open();
      expect(await waitFor('the index', () => names(store, 'kafka'))).to.deep.equal(['d7']);
      await store.close();
      expect(await searchIndexProblems(dir.path, kinds)).to.deep.equal([]);
      // a store without the index changes an indexed object: its first write drops the marker
      store = new LevelStore(dir.path);
      await store.open();
      await store.update(obj('Dashboard', 'p', 'd8', 1, { display: { name: 'Kafka consumers' } }), { expectedVersion: 0 });
      await store.close();
      store = new LevelStore(dir.path, { searchKinds: kinds });
      await store.open();
      expect(await waitFor('the index again', () => names(store, 'kafka'))).to.deep.equal(['d7', 'd8']);
      await store.close();
      expect(await searchIndexProblems(dir.path, kinds)).to.deep.equal([]);
      // the check finds an entry gone
      const raw = new Level<string, string>(dir.path);
      await raw.del('x\u0000a\u0000kafka\u0000Dashboard\u0000p\u0000d7');
      await raw.close();
      expect(await searchIndexProblems(dir.path, kinds)).to.deep.equal(['Dashboard\u0000p\u0000d7: entry "akafka" missing']);
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('a kind made searchable by a new version is indexed in the background while searches use the index at once; a record left from when it was last searchable is made again', async () => {
    const dir = tempDir();
    const withFolders = [...kinds, 'Folder'];
    const found = async (store: LevelStore, word: string) => {
      const c = await store.search({ words: [{ word, terms: [word] }], scopes: withFolders.map((kind) => ({ kind })) });
      if (!c) return undefined;
      const out: string[] = [];
      for await (const x of c) out.push(`${x.kind}/${x.text.metadata.name}`);
      return out.sort();
    };
    let store = new LevelStore(dir.path, { searchKinds: withFolders });
    await store.open();
    try {
      await store.create(obj('Project', '', 'p'));
      await store.create(obj('Dashboard', 'p', 'd1', 0, { display: { name: 'Kafka lag' } }));
      await store.create(obj('Folder', 'p', 'f1', 0, { display: { name: 'Kafka' } }));
      await store.close();
      // a version where folders are not searchable changes the folder: its record is left as it was
      store = new LevelStore(dir.path, { searchKinds: kinds });
      await store.open();
      expect(await found(store, 'kafka'), 'answered at once, from the index').to.deep.equal(['Dashboard/d1', 'Folder/f1']);
      await store.update(obj('Folder', 'p', 'f1', 1, { display: { name: 'Streams' } }), { expectedVersion: 0 });
      await store.create(obj('Folder', 'p', 'f2', 0, { display: { name: 'Streams too' } }));
      await store.close();
      // folders searchable again: the dashboards are found at once, the folders once they are indexed
      store = new LevelStore(dir.path, { searchKinds: withFolders });
      await store.open();
      expect(await found(store, 'lag'), 'answered at once, from the index').to.deep.equal(['Dashboard/d1']);
      expect(
        await waitFor('the folders', async () => ((await found(store, 'streams'))?.length === 2 ? found(store, 'streams') : undefined)),
      ).to.deep.equal(['Folder/f1', 'Folder/f2']);
      expect(await found(store, 'kafka')).to.deep.equal(['Dashboard/d1']);
      await store.close();
      expect(await searchIndexProblems(dir.path, withFolders)).to.deep.equal([]);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});

describe('LevelStore compaction after large deletes', () => {
  it('a delete of more keys than the threshold compacts the store in the background; smaller ones do not; closing stops it', async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const store = new LevelStore(dir.path, {
      searchKinds: SEARCH_KINDS,
      log: (_level, msg) => lines.push(msg),
      compactAfterDeleted: 200,
    });
    await store.open();
    const T = '2026-01-01T00:00:00.000Z';
    const compacted = () => lines.filter((l) => l.startsWith('compacted the database after'));
    /** A project with 40 dashboards: hundreds of keys with their search index entries. */
    const fill = async (project: string) => {
      await store.create({ kind: 'Project', metadata: { name: project, createdAt: T, updatedAt: T, version: 0 }, spec: {} });
      for (let i = 0; i < 40; i++)
        await store.create({
          kind: 'Dashboard',
          metadata: { name: `d${i}`, project, createdAt: T, updatedAt: T, version: 0 },
          spec: { display: { name: `CPU usage of node ${i}` }, panels: {}, notes: 'memory pressure latency disk io' },
        });
    };
    try {
      await fill('big');
      await store.delete({ kind: 'Dashboard', project: 'big', name: 'd0' });
      expect(compacted(), 'one dashboard: a few keys').to.deep.equal([]);
      await store.delete({ kind: 'Project', project: '', name: 'big' }, { children: { project: 'big', kinds: ['Dashboard'] } });
      await waitFor('the compaction', () => compacted().length === 1);
      expect(compacted()[0]).to.match(/after \d{3,} keys were deleted/);
      expect(await store.list({ kind: 'Dashboard', project: 'big' })).to.deep.equal([]);
      // another large delete, then close at once: the compaction stops after its slice, the store closes
      await fill('big2');
      await store.delete({ kind: 'Project', project: '', name: 'big2' }, { children: { project: 'big2', kinds: ['Dashboard'] } });
      await store.close();
      const again = new LevelStore(dir.path, { searchKinds: SEARCH_KINDS, log: () => undefined });
      await again.open();
      expect(await again.list({ kind: 'Dashboard' })).to.deep.equal([]);
      expect((await again.get({ kind: 'Dashboard', project: 'big', name: 'd7' })) ?? 'gone').to.equal('gone');
      await again.close();
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
