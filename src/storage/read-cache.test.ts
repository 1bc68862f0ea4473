import { expect } from 'chai';
import { tempDir } from '../../test/helpers/server.js';
import { spyOn } from '../../test/helpers/store-spy.js';
import { obj } from '../../test/store-contract.js';
import { LevelStore } from './level-store.js';
import { ListCache, ReadCache } from './read-cache.js';
import type { Envelope, ObjectKey, Store } from './store.js';

/**
 * For each test of the describe: a LevelStore on a new directory (`store`), and the same store
 * counting its calls of `method` (`counted`, `calls`); `before` runs inside each such call before
 * it reads.
 */
function countedStore(method: 'get' | 'list') {
  const f = {
    dir: undefined as unknown as ReturnType<typeof tempDir>,
    store: undefined as unknown as LevelStore,
    counted: undefined as unknown as Store,
    calls: 0,
    before: undefined as (() => Promise<void>) | undefined,
  };
  beforeEach(async () => {
    f.dir = tempDir();
    f.store = new LevelStore(f.dir.path);
    await f.store.open();
    f.calls = 0;
    f.before = undefined;
    const counting = async (original: (...a: unknown[]) => Promise<unknown>, ...args: unknown[]) => {
      f.calls++;
      await f.before?.();
      return original(...args);
    };
    f.counted = spyOn(f.store, method, counting as never);
  });
  afterEach(async () => {
    await f.store.close();
    f.dir.remove();
  });
  return f;
}

describe('ReadCache', () => {
  const f = countedStore('get');
  const key: ObjectKey = { kind: 'Session', project: '', name: 's1' };

  it('f.calls an object once, then serves it frozen from memory until a write changes it', async () => {
    const cache = new ReadCache(f.counted, ['Session']);
    await f.store.create(obj('Session', '', 's1', 0, { user: 'a' }));
    const first = (await cache.get(key))!;
    expect((await cache.get(key))!).to.equal(first);
    expect(f.calls).to.equal(1);
    expect(Object.isFrozen((first as Envelope & { spec: object }).spec)).to.equal(true);
    await f.store.update(obj('Session', '', 's1', 1, { user: 'b' }), { expectedVersion: 0 });
    expect((await cache.get(key))!.spec).to.deep.equal({ user: 'b' });
    await f.store.delete(key);
    expect(await cache.get(key)).to.equal(undefined);
    expect(f.calls).to.equal(3);
  });

  it('a read that a write overtakes is not kept (the next read sees the write)', async () => {
    const cache = new ReadCache(f.counted, ['Session']);
    await f.store.create(obj('Session', '', 's1', 0, { user: 'a' }));
    // the write commits while the read is in flight, after the read was started
    f.before = async () => {
      f.before = undefined;
      await f.store.update(obj('Session', '', 's1', 1, { user: 'b' }), { expectedVersion: 0 });
    };
    await cache.get(key);
    expect((await cache.get(key))!.spec).to.deep.equal({ user: 'b' });
    expect(f.calls).to.equal(2);
  });

  it('other kinds are read from the store every time; misses are not cached; the size is bounded', async () => {
    const cache = new ReadCache(f.counted, ['Session'], 2);
    await f.store.create(obj('Dashboard', 'p', 'd'));
    await cache.get({ kind: 'Dashboard', project: 'p', name: 'd' });
    await cache.get({ kind: 'Dashboard', project: 'p', name: 'd' });
    expect(f.calls).to.equal(2);
    expect(await cache.get(key)).to.equal(undefined);
    await f.store.create(obj('Session', '', 's1'));
    expect(await cache.get(key)).to.not.equal(undefined);
    for (const n of ['s2', 's3']) {
      await f.store.create(obj('Session', '', n));
      await cache.get({ ...key, name: n });
    }
    f.calls = 0;
    await cache.get(key); // evicted by s2, s3
    await cache.get({ ...key, name: 's3' });
    expect(f.calls).to.equal(1);
  });
});

describe('ListCache', () => {
  const f = countedStore('list');
  const names = (items: Envelope[]) => items.map((o) => o.metadata.name);

  it('f.calls a scope once, then serves it frozen until a write of that kind in that scope', async () => {
    const cache = new ListCache(f.counted, ['Datasource', 'GlobalDatasource']);
    await f.store.create(obj('Datasource', 'p', 'a'));
    const first = await cache.list({ kind: 'Datasource', project: 'p' });
    expect(names(first)).to.deep.equal(['a']);
    expect(await cache.list({ kind: 'Datasource', project: 'p' })).to.equal(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0].metadata)).to.equal(true);
    expect(f.calls).to.equal(1);
    // another project, another kind: this scope is kept
    await f.store.create(obj('Datasource', 'q', 'b'));
    await f.store.create(obj('Dashboard', 'p', 'd'));
    expect(await cache.list({ kind: 'Datasource', project: 'p' })).to.equal(first);
    expect(f.calls).to.equal(1);
    await f.store.create(obj('Datasource', 'p', 'c'));
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['a', 'c']);
    await f.store.delete({ kind: 'Datasource', project: 'p', name: 'a' });
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['c']);
    // the global scope is a scope of its own
    await f.store.create(obj('GlobalDatasource', '', 'g'));
    expect(names(await cache.list({ kind: 'GlobalDatasource' }))).to.deep.equal(['g']);
    expect(names(await cache.list({ kind: 'GlobalDatasource' }))).to.deep.equal(['g']);
    expect(f.calls).to.equal(4);
  });

  it('a list that a write overtakes is not kept; other kinds and partial f.calls go to the store', async () => {
    const cache = new ListCache(f.counted, ['Datasource']);
    await f.store.create(obj('Datasource', 'p', 'a'));
    f.before = async () => {
      f.before = undefined;
      await f.store.create(obj('Datasource', 'p', 'b'));
    };
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['a', 'b']);
    expect(names(await cache.list({ kind: 'Datasource', project: 'p' }))).to.deep.equal(['a', 'b']);
    expect(f.calls, 'the overtaken list was not kept').to.equal(2);
    await cache.list({ kind: 'Datasource', project: 'p' });
    expect(f.calls).to.equal(2);
    await cache.list({ kind: 'Datasource', project: 'p', limit: 1 });
    await cache.list({ kind: 'Datasource', project: 'p', namePrefix: 'a' });
    await cache.list({ kind: 'Dashboard', project: 'p' });
    await cache.list({ kind: 'Dashboard', project: 'p' });
    expect(f.calls).to.equal(6);
  });
});
