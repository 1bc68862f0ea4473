import { expect } from 'chai';
import { alignedWindow, alignParams, formatSeconds, parseStepParam, parseTimeParam, sortedParams } from './align.js';

const aligned = (query: string, kind: 'range' | 'instant' | 'bounds', resolutionMs = 15_000) => {
  const p = new URLSearchParams(query);
  alignParams(p, kind, resolutionMs);
  return sortedParams(p);
};

describe('query alignment (the query cache)', () => {
  it('reads times as Prometheus writes them: Unix seconds with a fraction, RFC 3339; steps as seconds or durations', () => {
    expect(parseTimeParam('1700000000')).to.equal(1_700_000_000_000);
    expect(parseTimeParam('1700000000.123')).to.equal(1_700_000_000_123);
    expect(parseTimeParam('2023-11-14T22:13:20Z')).to.equal(1_700_000_000_000);
    expect(parseTimeParam('2023-11-14T23:13:20.5+01:00')).to.equal(1_700_000_000_500);
    for (const other of ['', 'now', '1.7e9', '0x10', '2023-11-14', '2023-11-14T22:13:20'])
      expect(parseTimeParam(other), other).to.equal(undefined);
    expect(parseStepParam('15')).to.equal(15_000);
    expect(parseStepParam('0.5')).to.equal(500);
    expect(parseStepParam('1m30s')).to.equal(90_000);
    expect(parseStepParam('1h')).to.equal(3_600_000);
    expect(parseStepParam('1x')).to.equal(undefined);
    expect(formatSeconds(1_700_000_010_000)).to.equal('1700000010');
    expect(formatSeconds(1_700_000_000_500)).to.equal('1700000000.5');
    expect(formatSeconds(1_700_000_000_123)).to.equal('1700000000.123');
  });

  it('range: the end up to the next multiple of the step, the start as many whole steps before it as cover the range; every end within one step gives the same query', () => {
    const seen = new Set<string>();
    for (let end = 1_699_999_995; end < 1_700_000_010; end++) seen.add(aligned(`query=up&start=${end - 3600}&end=${end}&step=15`, 'range'));
    expect([...seen]).to.deep.equal(['end=1700000010&query=up&start=1699996395&step=15']);
    // the next step's ends, the one on the multiple included, give the next query
    const next = new Set<string>();
    for (let end = 1_700_000_010; end < 1_700_000_025; end++) next.add(aligned(`query=up&start=${end - 3600}&end=${end}&step=15`, 'range'));
    expect([...next]).to.deep.equal(['end=1700000025&query=up&start=1699996410&step=15']);
    // the range only grows: by less than a step at each end, or a whole step at the end when it was on a multiple
    expect(aligned('query=up&start=1699996401&end=1700000001&step=15', 'range')).to.equal(
      'end=1700000010&query=up&start=1699996395&step=15',
    );
    expect(aligned('query=up&start=1699996410&end=1700000010&step=15', 'range')).to.equal(
      'end=1700000025&query=up&start=1699996410&step=15',
    );
    // other spellings of the same times and step: the same text
    expect(aligned('step=15s&end=2023-11-14T22:13:25Z&query=up&start=1699996405.000', 'range')).to.equal(
      'end=1700000010&query=up&start=1699996395&step=15',
    );
    expect(aligned('query=up&start=1699996401&end=1700000001&step=1m', 'range')).to.equal(
      'end=1700000040&query=up&start=1699996380&step=60',
    );
    // a length that is not a multiple of the step: the start still covers it, the same for every end of the step
    const odd = new Set<string>();
    for (let end = 1_700_000_008; end < 1_700_000_015; end++) odd.add(aligned(`query=up&start=${end - 100}&end=${end}&step=7`, 'range'));
    expect([...odd]).to.deep.equal(['end=1700000015&query=up&start=1699999903&step=7']);
  });

  it('the aligned range covers the range asked for, with at most a step more at its end and under two at its start, for any start, end and step', () => {
    for (let i = 0; i < 2_000; i++) {
      const step = [1, 7, 15, 60, 3_600][i % 5] * 1000;
      const end = 1_700_000_000_000 + Math.floor(Math.random() * 10_000_000);
      const start = end - Math.floor(Math.random() * 40 * step);
      const w = alignedWindow(start, end, step);
      expect(
        w.start <= start && w.end > end && w.start % step === 0 && w.end % step === 0,
        `${start} ${end} ${step}: ${w.start} ${w.end}`,
      ).to.equal(true);
      // an end on a multiple moves up a whole step
      expect(w.end - end <= step && start - w.start < 2 * step, `${start} ${end} ${step}: ${w.start} ${w.end}`).to.equal(true);
    }
    // ends on a multiple of the step, which random ends in milliseconds seldom are
    for (const step of [1_000, 15_000]) {
      const w = alignedWindow(1_700_000_010_000 - 3_600_000, 1_700_000_010_000, step);
      expect(w.end - 1_700_000_010_000).to.equal(step);
      expect(w.start).to.equal(1_700_000_010_000 - 3_600_000);
    }
  });

  it('instant: time up to a multiple of the resolution; bounds: start down, end up; no time, no change', () => {
    expect(aligned('query=up&time=1700000001.25', 'instant')).to.equal('query=up&time=1700000010');
    expect(aligned('query=up&time=1700000010', 'instant')).to.equal('query=up&time=1700000010');
    expect(aligned('query=up', 'instant')).to.equal('query=up');
    expect(aligned('query=up&time=1700000001', 'instant', 60_000)).to.equal('query=up&time=1700000040');
    expect(aligned('match[]=up&start=1699996401&end=1700000001', 'bounds')).to.equal('end=1700000010&match%5B%5D=up&start=1699996395');
    expect(aligned('match[]=up&end=1700000001', 'bounds')).to.equal('end=1700000010&match%5B%5D=up');
  });

  it('leaves what it cannot read as it came: unreadable or repeated times, a step of 0 or less, a missing step', () => {
    for (const q of [
      'query=up&start=now&end=1700000001&step=15',
      'query=up&start=1699996401&end=1700000001&step=0',
      'query=up&start=1699996401&end=1700000001&step=-15',
      'query=up&start=1699996401&end=1700000001',
      'query=up&start=1699996401&end=1700000001&end=1700000002&step=15',
    ]) {
      expect(aligned(q, 'range'), q).to.equal(sortedParams(new URLSearchParams(q)));
    }
    expect(aligned('query=up&time=soon', 'instant')).to.equal('query=up&time=soon');
  });

  it('sorts by name, keeping the order of the values of one name', () => {
    expect(sortedParams(new URLSearchParams('match[]=b&end=2&match[]=a&start=1'))).to.equal('end=2&match%5B%5D=b&match%5B%5D=a&start=1');
    expect(sortedParams(new URLSearchParams('query=a+b'))).to.equal(sortedParams(new URLSearchParams('query=a%20b')));
  });
});
