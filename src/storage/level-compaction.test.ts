import { expect } from 'chai';
import { waitFor } from '../../test/helpers/wait.js';
import { LevelCompaction, SLICES } from './level-compaction.js';

/** A database whose compactions wait while `held` (each call's range recorded). */
function gated() {
  const calls: [string, string][] = [];
  const waiting: (() => void)[] = [];
  const g = {
    held: true,
    calls,
    db: {
      compactRange: async (start: string, end: string) => {
        calls.push([start, end]);
        if (g.held) await new Promise<void>((r) => waiting.push(r));
      },
    },
    release() {
      g.held = false;
      for (const r of waiting.splice(0)) r();
    },
    /** How many compactions began (each starts at the first slice). */
    begun: () => calls.filter(([start]) => start === SLICES[0]).length,
  };
  return g;
}

describe('LevelCompaction (after large deletes)', () => {
  it('starts past the threshold, slice by slice over the whole key space, and once more for the deletes made meanwhile', async () => {
    const g = gated();
    const lines: string[] = [];
    const c = new LevelCompaction({ db: () => g.db, log: (_l, msg) => lines.push(msg), threshold: 100 });
    c.deleted(60);
    expect(g.begun()).to.equal(0);
    c.deleted(60);
    expect(g.begun(), 'two writes, 120 keys').to.equal(1);
    c.deleted(150);
    c.deleted(10);
    expect(g.calls, 'one at a time').to.have.length(1);
    g.release();
    await waitFor('both compactions', () => lines.length === 2);
    expect(lines[0]).to.match(/^compacted the database after 120 keys were deleted/);
    expect(lines[1]).to.match(/after 160 keys/);
    expect(g.begun()).to.equal(2);
    // every slice, in order, covering the key space from end to end
    const one = g.calls.slice(0, SLICES.length - 1);
    expect(one[0][0]).to.equal('\u0000');
    expect(one[one.length - 1][1]).to.equal('\xff\xff');
    for (let i = 1; i < one.length; i++) expect(one[i][0]).to.equal(one[i - 1][1]);
    c.deleted(99);
    expect(g.begun()).to.equal(2);
  });

  it('stop ends the running compaction after its slice and starts no other; a failure is a warning', async () => {
    const g = gated();
    const lines: string[] = [];
    const c = new LevelCompaction({ db: () => g.db, log: (level, msg) => lines.push(`${level}: ${msg}`), threshold: 10 });
    c.deleted(10);
    c.deleted(10);
    let stopped = false;
    const stopping = c.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped, 'a slice is being compacted').to.equal(false);
    g.release();
    await stopping;
    expect(g.calls, 'no slice after stop, no compaction after it').to.have.length(1);
    expect(lines).to.deep.equal([]);
    const failing = new LevelCompaction({
      db: () => ({ compactRange: async () => Promise.reject(new Error('disk full')) }),
      log: (level, msg) => lines.push(`${level}: ${msg}`),
      threshold: 10,
    });
    failing.deleted(10);
    await failing.stop();
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^warn: the database was not compacted after 10 keys/);
  });
});
