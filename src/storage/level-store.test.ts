import { expect } from 'chai';
import { describeStoreContract } from '../../test/store-contract.js';
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
