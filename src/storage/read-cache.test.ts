import { expect } from 'chai';
import { tempDir } from '../../test/helpers/server.js';
import { spyOn } from '../../test/helpers/store-spy.js';
import { obj } from '../../test/store-contract.js';
import { LevelStore } from './level-store.js';
import { ListCache, ReadCache } from './read-cache.js';
import type { Envelope, ObjectKey, Store } from './store.js';

describe('ReadCache', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: LevelStore;
  let reads: number;
  /** The real store, counting its gets; `beforeGet` runs inside a get before it reads. */
  let counted: Store;
  let beforeGet: (() => Promise<void>) | undefined;
  const key: ObjectKey = { kind: 'Session', project: '', name: 's1' };

  beforeEach(async () => {
    dir = tempDir();
    store = new LevelStore(dir.path);
    await store.open();
    reads = 0;
    beforeGet = undefined;
    counted = spyOn(store, 'get', async (get, k) => {
      reads++;
      await beforeGet?.();
      return get(k);
    });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it('reads an object once, then serves it frozen from memory until a write changes it', async () => {
    const cache = new ReadCache(counted, ['Session']);
    await store.create(obj('Session', '', 's1', 0, { user: 'a' }));
    const first = (await cache.get(key))!;
    expect((await cache.get(key))!).to.equal(first);
    expect(reads).to.equal(1);
    expect(Object.isFrozen((first as Envelope & { spec: object }).spec)).to.equal(true);
    await store.update(obj('Session', '', 's1', 1, { user: 'b' }), { expectedVersion: 0 });
    expect((await cache.get(key))!.spec).to.deep.equal({ user: 'b' });
    await store.delete(key);
    expect(await cache.get(key)).to.equal(undefined);
    expect(reads).to.equal(3);
  });

  it('a read that a write overtakes is not kept (the next read sees the write)', async () => {
    const cache = new ReadCache(counted, ['Session']);
    await store.create(obj('Session', '', 's1', 0, { user: 'a' }));
    // the write commits while the read is in flight, after the read was started
    beforeGet = async () => {
      beforeGet = undefined;
      await store.update(obj('Session', '', 's1', 1, { user: 'b' }), { expectedVersion: 0 });
    };
    await cache.get(key);
    expect((await cache.get(key))!.spec).to.deep.equal({ user: 'b' });
    expect(reads).to.equal(2);
  });

  it('other kinds are read from the store every time; misses are not cached; the size is bounded', async () => {
    const cache = new ReadCache(counted, ['Session'], 2);
    await store.create(obj('Dashboard', 'p', 'd'));
    await cache.get({ kind: 'Dashboard', project: 'p', name: 'd' });
    await cache.get({ kind: 'Dashboard', project: 'p', name: 'd' });
    expect(reads).to.equal(2);
    expect(await cache.get(key)).to.equal(undefined);
    await store.create(obj('Session', '', 's1'));
    expect(await cache.get(key)).to.not.equal(undefined);
    for (const n of ['s2', 's3']) {
      await store.create(obj('Session', '', n));
      await cache.get({ ...key, name: n });
    }
    reads = 0;
    await cache.get(key); // evicted by s2, s3
    await cache.get({ ...key, name: 's3' });
    expect(reads).to.equal(1);
  });
});

describe('ListCache', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: LevelStore;
  let lists: number;
  /** The real store, counting its lists; `beforeList` runs inside a list before it reads. */
  let counted: Store;
  let beforeList: (() => Promise<void>) | undefined;
  const names = (items: Envelope[]) => items.map((o) => o.metadata.name);

  beforeEach(async () => {
    dir = tempDir();
    store = new LevelStore(dir.path);
    await store.open();
    lists = 0;
    beforeList = undefined;
    counted = spyOn(store, 'list', async (list, q) => {
      lists++;
      await beforeList?.();
      return list(q);
    });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it('lists a scope once, then serves it frozen until a write of that kind in that scope', async () => {
    const cache = new ListCache(counted, ['Datasource', 'GlobalDatasource']);
    await store.create(obj('Datasource', 'p', 'a'));
    const first = await cache.list({ kind: 'Datasource', project: 'p' });
    expect(names(first)).to.deep.equal(['a']);
    expect(await cache.list({ kind: 'Datasource', project: 'p' })).to.equal(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0].metadata)).to.equal(true);
    expect(lists).to.equal(1);
    // another project, another kind: this scope is kept
    await store.create(obj('Datasource', 'q', 'b'));
    await store.create(obj('Dashboard', 'p', 'd'));
    expect(await cache.list({ kind: 'Datasource', project: 'p' })).to.equal(first);
    expect(lists).to.equal(1);
    await store.create(obj('Datasource', 'p', 'c'));
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['a', 'c']);
    await store.delete({ kind: 'Datasource', project: 'p', name: 'a' });
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['c']);
    // the global scope is a scope of its own
    await store.create(obj('GlobalDatasource', '', 'g'));
    expect(names(await cache.list({ kind: 'GlobalDatasource' }))).to.deep.equal(['g']);
    expect(names(await cache.list({ kind: 'GlobalDatasource' }))).to.deep.equal(['g']);
    expect(lists).to.equal(4);
  });

  it('a list that a write overtakes is not kept; other kinds and partial lists go to the store', async () => {
    const cache = new ListCache(counted, ['Datasource']);
    await store.create(obj('Datasource', 'p', 'a'));
    beforeList = async () => {
      beforeList = undefined;
      await store.create(obj('Datasource', 'p', 'b'));
    };
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['a', 'b']);
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['a', 'b']);
    expect(lists, 'the overtaken list was not kept').to.equal(2);
    await cache.list({ kind: 'Datasource', project: 'p' });
    expect(lists).to.equal(2);
    await cache.list({ kind: 'Datasource', project: 'p', limit: 1 });
    await cache.list({ kind: 'Datasource', project: 'p', namePrefix: 'a' });
    await cache.list({ kind: 'Dashboard', project: 'p' });
    await cache.list({ kind: 'Dashboard', project: 'p' });
    expect(lists).to.equal(6);
  });
});
