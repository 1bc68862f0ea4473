import { expect } from 'chai';
import { FailureLimiter } from './rate-limit.js';

describe('auth/rate-limit FailureLimiter', () => {
  let now: number;
  const clock = () => now;
  beforeEach(() => (now = 1_000_000));

  it('blocks a key after max failures until its window ends, with Retry-After rounded up', () => {
    const l = new FailureLimiter(3, 10_000, clock);
    expect(l.retryAfter('k')).to.equal(0);
    l.fail('k');
    now += 1_000;
    l.fail('k');
    expect(l.retryAfter('k'), 'below max').to.equal(0);
    l.fail('k');
    // The window started at the first failure: 9 s left.
    expect(l.retryAfter('k')).to.equal(9);
    now += 4_500;
    expect(l.retryAfter('k')).to.equal(5); // 4.5 s left -> 5
    now += 4_499;
    expect(l.retryAfter('k')).to.equal(1); // 1 ms left -> 1, never 0 while blocked
    now += 1;
    expect(l.retryAfter('k'), 'the window has ended').to.equal(0);
  });

  it('a failure after the window starts a new count', () => {
    const l = new FailureLimiter(2, 5_000, clock);
    l.fail('k');
    l.fail('k');
    expect(l.retryAfter('k')).to.equal(5);
    now += 5_000;
    l.fail('k');
    expect(l.retryAfter('k'), 'one failure in the new window').to.equal(0);
    now += 1_000;
    l.fail('k');
    expect(l.retryAfter('k')).to.equal(4);
  });

  it('failures while blocked do not extend the window', () => {
    const l = new FailureLimiter(1, 10_000, clock);
    l.fail('k');
    now += 8_000;
    l.fail('k');
    l.fail('k');
    expect(l.retryAfter('k')).to.equal(2);
    now += 2_000;
    expect(l.retryAfter('k')).to.equal(0);
  });

  it('keys are independent, and reset clears one key only', () => {
    const l = new FailureLimiter(1, 10_000, clock);
    l.fail('a');
    l.fail('b');
    expect(l.retryAfter('a')).to.equal(10);
    expect(l.retryAfter('c')).to.equal(0);
    l.reset('a');
    expect(l.retryAfter('a')).to.equal(0);
    expect(l.retryAfter('b')).to.equal(10);
    l.reset('never-seen');
  });

  it('forgets expired keys when it grows large (memory stays bounded)', () => {
    const l = new FailureLimiter(1, 1_000, clock);
    for (let i = 0; i <= 100_000; i++) l.fail(`old-${i}`);
    const entries = (l as unknown as { entries: Map<string, unknown> }).entries;
    expect(entries.size).to.equal(100_001);
    now += 1_000;
    l.fail('new');
    expect(entries.size, 'expired entries swept').to.equal(1);
    expect(l.retryAfter('new')).to.equal(1);
  });
});
