import { expect } from 'chai';
import { Gate } from './mutex.js';

/** A promise and the function that settles it. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('Gate (what LevelStore re-opens its database behind)', () => {
  it('exclusive waits for the readers in flight, holds new ones back while it runs, then lets them in', async () => {
    const gate = new Gate();
    const log: string[] = [];
    const slowRead = latch();
    const reading = gate.run(async () => {
      log.push('read 1 starts');
      await slowRead.promise;
      log.push('read 1 ends');
    });
    const job = latch();
    const exclusive = gate.exclusive(async () => {
      log.push('exclusive starts');
      await job.promise;
      log.push('exclusive ends');
    }, 10_000);
    const later = gate.run(async () => void log.push('read 2'));
    await new Promise((r) => setImmediate(r));
    expect(log).to.deep.equal(['read 1 starts']);
    slowRead.open();
    await reading;
    await new Promise((r) => setImmediate(r));
    expect(log).to.deep.equal(['read 1 starts', 'read 1 ends', 'exclusive starts']);
    job.open();
    await Promise.all([exclusive, later]);
    expect(log).to.deep.equal(['read 1 starts', 'read 1 ends', 'exclusive starts', 'exclusive ends', 'read 2']);
  });

  it('an iterator counts as one reader from its first item to its end; one never finished holds exclusive back only drainMs', async () => {
    const gate = new Gate();
    async function* items() {
      yield 1;
      yield 2;
    }
    const it = gate.iterate(items)[Symbol.asyncIterator]();
    expect((await it.next()).value).to.equal(1);
    const started = Date.now();
    expect(await gate.exclusive(async () => 'ran', 200)).to.equal('ran');
    expect(Date.now() - started, 'waited for the open iterator, at most drainMs').to.be.within(150, 2000);
    expect((await it.next()).value).to.equal(2);
    expect((await it.next()).done).to.equal(true);
    const quick = Date.now();
    await gate.exclusive(async () => undefined, 5_000);
    expect(Date.now() - quick, 'no reader left').to.be.below(150);
  });

  it('an error in a reader or in exclusive leaves the gate open', async () => {
    const gate = new Gate();
    await gate.run(() => Promise.reject(new Error('read'))).catch(() => undefined);
    await gate.exclusive(() => Promise.reject(new Error('job')), 100).catch(() => undefined);
    expect(await gate.run(async () => 'fine')).to.equal('fine');
  });
});
