import { expect } from 'chai';
import { AnswerCache, type StoredAnswer } from './answer-cache.js';

const answer = (bytes: number, text = 'x'): StoredAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.alloc(bytes, text),
});

describe('AnswerCache (the query cache kept answers)', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000;
  });

  it('serves an answer for its time to live, then never again', () => {
    const c = new AnswerCache({ maxBytes: 1 << 20, maxEntries: 10, now: clock });
    const a = answer(10);
    c.set('k', a, 5_000);
    now += 4_999;
    expect(c.get('k')).to.deep.equal({ answer: a, ageMs: 4_999 });
    now += 1;
    expect(c.get('k')).to.equal(undefined);
    expect(c.size).to.equal(0);
    expect(c.bytes).to.equal(0);
  });

  it('keeps nothing with a time to live of 0, nor an answer larger than the whole cache', () => {
    const c = new AnswerCache({ maxBytes: 2_000, maxEntries: 10, now: clock });
    c.set('zero', answer(10), 0);
    c.set('huge', answer(2_000), 5_000);
    expect([c.get('zero'), c.get('huge'), c.size]).to.deep.equal([undefined, undefined, 0]);
  });

  it('is bounded by bytes: the least recently used answers go first (a hit makes one the most recent)', () => {
    const c = new AnswerCache({ maxBytes: 3_000, maxEntries: 100, now: clock });
    for (const k of ['a', 'b', 'c']) c.set(k, answer(700), 60_000);
    expect(c.get('a')).to.not.equal(undefined); // a is now the most recent
    c.set('d', answer(700), 60_000); // 4 x (700 + overhead) > 3,000: b goes
    expect(['a', 'b', 'c', 'd'].map((k) => c.get(k) !== undefined)).to.deep.equal([true, false, true, true]);
    expect(c.bytes).to.be.at.most(3_000);
  });

  it('is bounded by count', () => {
    const c = new AnswerCache({ maxBytes: 1 << 20, maxEntries: 2, now: clock });
    for (const k of ['a', 'b', 'c']) c.set(k, answer(1), 60_000);
    expect(c.size).to.equal(2);
    expect(c.get('a')).to.equal(undefined);
  });

  it('counts keys and headers, and a replaced answer once', () => {
    const c = new AnswerCache({ maxBytes: 1 << 20, maxEntries: 10, now: clock });
    c.set('k'.repeat(100), answer(10), 60_000);
    const once = c.bytes;
    expect(once).to.be.above(10 + 200 + 'content-type'.length);
    c.set('k'.repeat(100), answer(10, 'y'), 60_000);
    expect([c.bytes, c.size]).to.deep.equal([once, 1]);
  });

  it('drops expired answers at the start of the order as new ones come', () => {
    const c = new AnswerCache({ maxBytes: 1 << 20, maxEntries: 10, now: clock });
    c.set('old', answer(10), 1_000);
    now += 2_000;
    c.set('new', answer(10), 1_000);
    expect(c.size).to.equal(1);
  });

  it('evicts exactly as a least-recently-used list would, over many random gets and sets', () => {
    // the reference: an array in use order, scanned from its start on every set
    const order: { key: string; expires: number; bytes: number }[] = [];
    const bytesOf = (key: string, size: number) => size + key.length * 2 + 'content-typeapplication/json'.length + 256;
    const c = new AnswerCache({ maxBytes: 6_000, maxEntries: 8, now: clock });
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      now += random(50);
      const key = `k${random(30)}`;
      const at = order.findIndex((e) => e.key === key);
      if (random(2) === 0) {
        const got = c.get(key) !== undefined;
        const live = at >= 0 && order[at].expires > now;
        expect(got, `get ${key} at step ${i}`).to.equal(live);
        if (at >= 0) {
          const [e] = order.splice(at, 1);
          if (live) order.push(e);
        }
      } else {
        const size = 100 + random(900);
        const ttl = random(10) === 0 ? 0 : 200 + random(2_000);
        c.set(key, answer(size), ttl);
        if (at >= 0) order.splice(at, 1);
        if (ttl > 0) order.push({ key, expires: now + ttl, bytes: bytesOf(key, size) });
        const used = () => order.reduce((n, e) => n + e.bytes, 0);
        while (order.length && (used() > 6_000 || order.length > 8 || order[0].expires <= now)) order.shift();
      }
      expect([c.size, c.bytes], `step ${i}`).to.deep.equal([order.length, order.reduce((n, e) => n + e.bytes, 0)]);
    }
  });
});
