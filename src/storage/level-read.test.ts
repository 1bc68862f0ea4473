import { expect } from 'chai';
import { Level } from 'level';
import { tempDir } from '../../test/helpers/server.js';
import { batches, each, IteratorPool, type Nexting, readAll, type Seeking } from './level-read.js';

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

  describe('IteratorPool', () => {
    /** A pool over `db`'s keys that counts the iterators it opens and those closed. */
    const counted = () => {
      const n = { opened: 0, closed: 0 };
      const pool = new IteratorPool<string>(
        () => {
          n.opened++;
          const it = db.keys();
          return {
            nextv: (size) => it.nextv(size),
            seek: (target) => it.seek(target),
            close: async () => {
              n.closed++;
              await it.close();
            },
          };
        },
        (k) => k,
      );
      return { pool, n };
    };
    const read = async (pool: IteratorPool<string>, prefix: string) => {
      const out: string[] = [];
      for await (const batch of pool.range(prefix)) out.push(...batch);
      return out;
    };
    const prefixes = ['k0', 'k00', 'k001', 'k0019', 'k00199', 'k02', 'k029', 'k1', 'k2', 'k3', 'x', ''];

    it('reads each range as a bounded iterator would, one range after another through one iterator', async () => {
      const { pool, n } = counted();
      for (const prefix of prefixes)
        expect(await read(pool, prefix), prefix).to.deep.equal(await db.keys({ gte: prefix, lt: `${prefix}\u{10ffff}` }).all());
      // backwards too: each read seeks
      expect(await read(pool, 'k02')).to.have.length(1_000);
      expect(await read(pool, 'k001')).to.have.length(100);
      expect(n.opened).to.equal(1);
      await pool.close();
      expect(n.closed).to.equal(1);
    });

    it('opens as many iterators as reads run at once, and keeps them for the next', async () => {
      const { pool, n } = counted();
      const ranges = ['k000', 'k001', 'k002'];
      // three reads interleaved batch by batch
      const gens = ranges.map((r) => pool.range(r));
      const got = ranges.map(() => [] as string[]);
      for (let live = gens.length; live > 0; ) {
        live = 0;
        for (const [i, g] of gens.entries()) {
          const r = await g.next();
          if (!r.done) {
            got[i].push(...r.value);
            live++;
          }
        }
      }
      expect(got.map((g) => g.length)).to.deep.equal([100, 100, 100]);
      expect(got[1][0]).to.equal('k00100');
      expect(n.opened).to.equal(3);
      await Promise.all(ranges.map((r) => read(pool, r)));
      expect(n.opened, 'the three kept').to.equal(3);
      await pool.close();
      expect(n.closed).to.equal(3);
      expect(() => pool.take()).to.throw(/closed/);
    });

    it('a read left early gives its iterator back; one that failed closes it', async () => {
      const { pool, n } = counted();
      for await (const batch of pool.range('k')) if (batch.length) break;
      expect(await read(pool, 'k0001')).to.have.length(10);
      expect(n.opened).to.equal(1);
      const failing = new IteratorPool<string>(
        () => {
          const it = db.keys();
          return {
            nextv: async () => {
              throw new Error('the disk went away');
            },
            seek: (target: string) => it.seek(target),
            close: async () => {
              n.closed++;
              await it.close();
            },
          } satisfies Seeking<string>;
        },
        (k) => k,
      );
      expect(await rejection(read(failing, 'k'))).to.equal('the disk went away');
      expect(n.closed).to.equal(1);
      expect(await rejection(failing.with((it) => it.nextv(1)))).to.equal('the disk went away');
      expect(n.closed).to.equal(2);
      const at = async (it: Seeking<string>) => {
        it.seek('k00042');
        return it.nextv(1);
      };
      expect(await pool.with(at)).to.deep.equal(['k00042']);
      expect(n.opened, 'with() takes the kept iterator and gives it back').to.equal(1);
      await pool.close();
      await failing.close();
      expect(n.closed).to.equal(3);
    });
  });
});
