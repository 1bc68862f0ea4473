import { expect } from 'chai';
import { describeStoreContract, obj } from '../../test/store-contract.js';
import { tempDir } from '../../test/helpers/server.js';
import { LevelStore } from './level-store.js';

describeStoreContract('LevelStore', async () => {
  const dir = tempDir();
  let store = new LevelStore(dir.path);
  await store.open();
  return {
    store,
    async reopen() {
      await store.close();
      store = new LevelStore(dir.path);
      await store.open();
      return store;
    },
    async destroy() {
      await store.close();
      dir.remove();
    },
  };
});

describe('LevelStore reads', () => {
  it('a get never returns an older version than the last write that resolved, with reads in flight across writes', async () => {
    const dir = tempDir();
    const store = new LevelStore(dir.path);
    await store.open();
    try {
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
    } finally {
      await store.close();
      dir.remove();
    }
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
});
