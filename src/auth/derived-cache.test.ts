import { expect } from 'chai';
import { tempDir } from '../../test/helpers/server.js';
import { spyOn } from '../../test/helpers/store-spy.js';
import { obj } from '../../test/store-contract.js';
import { LevelStore } from '../storage/level-store.js';
import type { Store } from '../storage/store.js';
import { DerivedCache } from './derived-cache.js';

describe('DerivedCache', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: LevelStore;
  let syncs: number;
  /** The real store, counting its syncs. */
  let counted: Store;

  beforeEach(async () => {
    dir = tempDir();
    store = new LevelStore(dir.path);
    await store.open();
    syncs = 0;
    counted = spyOn(store, 'sync', (sync) => {
      syncs++;
      return sync();
    });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it('syncs before answering unless the request synced already (one sync per request); computes once until a watched kind changes', async () => {
    let computed = 0;
    const cache = new DerivedCache(counted, ['Role'], async () => {
      computed++;
      return (await store.list({ kind: 'Role' })).map((r) => r.metadata.name);
    });
    expect(await cache.get()).to.deep.equal([]);
    expect(syncs, 'a caller that did not sync').to.equal(1);
    expect(await cache.get(true)).to.deep.equal([]);
    expect(syncs, 'a request that synced already').to.equal(1);
    await store.create(obj('Role', 'p', 'r1'));
    expect(await cache.get(true), 'a change of a watched kind drops the value').to.deep.equal(['r1']);
    await store.create(obj('Folder', 'p', 'f1'));
    expect(await cache.get(true)).to.deep.equal(['r1']);
    expect(computed, 'computed again only after the Role changed').to.equal(2);
    expect(syncs).to.equal(1);
  });
});
