import { expect } from 'chai';
import { trimRuns } from './trim-runs.js';

describe('trimRuns', () => {
  it('does what /^[c]+|[c]+$/g and /[c]+$/ replaced with "" do', () => {
    for (const text of ['', '.', '..a..', 'a.b', '-.a-.b.-', '...', 'a', '//x//y//', '-a-']) {
      expect(trimRuns(text, '.-'), text).to.equal(text.replace(/^[-.]+|[-.]+$/g, ''));
      expect(trimRuns(text, '/', { start: false }), text).to.equal(text.replace(/\/+$/, ''));
    }
  });

  it('reads a long run that is not at the end once (the expressions rescanned it from every position)', () => {
    const text = `a${'/'.repeat(1_000_000)}b`;
    expect(trimRuns(text, '/', { start: false })).to.equal(text);
    expect(trimRuns(`${'.'.repeat(1_000_000)}a`, '.')).to.equal('a');
  });
});
