import { expect } from 'chai';
import { Level } from 'level';
import { tempDir } from '../../test/helpers/server.js';
import { batches, each, type Nexting, readAll } from './level-read.js';

/** An iterator that records the size of each read it is asked for. */
function recorded<T>(it: Nexting<T>): { it: Nexting<T>; sizes: number[] } {
  const sizes: number[] = [];
  return {
    sizes,
    it: {
      nextv: (size) => {
        sizes.push(size);
        return it.nextv(size);
      },
      close: () => it.close(),
    },
  };
}

describe('LevelDB range reads (level-read)', () => {
  const dir = tempDir();
  const db = new Level<string, string>(dir.path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  const key = (i: number) => `k${String(i).padStart(5, '0')}`;

  before(async () => {
    await db.open();
    await db.batch(Array.from({ length: 3_000 }, (_, i) => ({ type: 'put' as const, key: key(i), value: `v${i}` })));
  });
  after(async () => {
    await db.close();
    dir.remove();
  });

  const range = (n: number) => ({ gte: key(0), lt: key(n) });

  it('reads every entry of ranges of any length, in order, as all() does', async () => {
    for (const n of [0, 1, 15, 16, 17, 128, 200, 1_500, 3_000]) {
      expect(await readAll(db.keys(range(n))), `${n} keys`).to.deep.equal(await db.keys(range(n)).all());
      expect(await readAll(db.iterator({ ...range(n), reverse: true })), `${n} entries`).to.deep.equal(
        await db.iterator({ ...range(n), reverse: true }).all(),
      );
    }
    expect(await readAll(db.values({ ...range(3_000), limit: 140 }))).to.deep.equal(Array.from({ length: 140 }, (_, i) => `v${i}`));
  });

  it('asks a short range for 16 entries, not the 1,000 classic-level reserves room for until the iterator is collected', async () => {
    const short = recorded(db.keys(range(5)));
    expect(await readAll(short.it)).to.have.length(5);
    expect(short.sizes).to.deep.equal([16, 128]);
    const long = recorded(db.keys(range(3_000)));
    expect(await readAll(long.it)).to.have.length(3_000);
    expect(long.sizes).to.deep.equal([16, 128, 1_000, 1_000, 1_000, 1_000]);
  });

  /** The message `p` rejects with. */
  const rejection = (p: Promise<unknown>) =>
    p.then(
      () => 'no rejection',
      (e: Error) => e.message,
    );

  it('closes the iterator when the reading ends early or fails', async () => {
    const it = db.keys(range(3_000));
    for await (const k of each(it)) if (k === key(20)) break;
    expect(await rejection(it.nextv(1))).to.match(/not open/i);
    const failing = db.keys(range(3_000));
    const reads = batches<string>({
      nextv: async (size) => {
        if (size > 16) throw new Error('the disk went away');
        return failing.nextv(size);
      },
      close: () => failing.close(),
    });
    const read = async () => {
      for await (const _ of reads);
    };
    expect(await rejection(read())).to.equal('the disk went away');
    expect(await rejection(failing.nextv(1))).to.match(/not open/i);
  });
});
