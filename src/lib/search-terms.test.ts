import { expect } from 'chai';
import { eachTerm, matchesAt, MAX_TERMS, TERM_MAX, termsOf, wordTerms } from './search-terms.js';

const termList = (text: string) => {
  const out: string[] = [];
  eachTerm(text, (t) => out.push(t));
  return out;
};

describe('search terms', () => {
  it('a term starts at every word start: runs, case changes, acronyms, letters and digits', () => {
    expect(termList('node_memory_MemAvailable_bytes')).to.deep.equal(['node', 'memory', 'memavailable', 'available', 'bytes']);
    expect(termList('HTTPServer p99 5m')).to.deep.equal(['httpserver', 'server', 'p99', '99', '5m', 'm']);
    expect(termList('Überblick für Grüße')).to.deep.equal(['überblick', 'für', 'grüße']);
    expect(termList('x'.repeat(50))).to.deep.equal(['x'.repeat(TERM_MAX)]);
  });

  it('a word matches where a word of the text starts, ignoring case, and nowhere else', () => {
    expect(matchesAt('node_cpu_seconds_total', 'cpu')).to.equal(true);
    expect(matchesAt('node_memory_MemAvailable_bytes', 'avail')).to.equal(true);
    expect(matchesAt('node_memory_MemAvailable_bytes', 'memavailable')).to.equal(true);
    expect(matchesAt('node_memory_MemAvailable_bytes', 'vail')).to.equal(false);
    expect(matchesAt('latency p99', '99')).to.equal(true);
    expect(matchesAt('node_load1{job="node"}', 'job="node"')).to.equal(true);
    expect(matchesAt('node_load1{job="node"}', '="node"')).to.equal(true);
    expect(matchesAt('Load average', 'average')).to.equal(true);
    expect(matchesAt('Load average', 'verage')).to.equal(false);
    // a letter whose lowercase is longer (İ) does not shift the positions compared
    expect(matchesAt('İstanbul Load', 'load')).to.equal(true);
  });

  it('every match of a word is found through the terms: each of its runs is a prefix of a term of the text', () => {
    const texts = ['node_memory_MemAvailable_bytes', 'rate(http_requests_total{job="api"}[5m])', 'HTTPServer p99 latency', 'CPU usage (%)'];
    const words = ['memavail', 'available_bytes', 'job="api"', 'requests_total', 'server', 'p99', '99', 'usage', 'cpu', '5m'];
    for (const text of texts) {
      const terms = termList(text);
      for (const w of words) {
        if (!matchesAt(text, w)) continue;
        for (const t of wordTerms(w))
          expect(
            terms.some((x) => x.startsWith(t)),
            `${w} in ${text}: ${t}`,
          ).to.equal(true);
      }
    }
  });

  it("an object's terms keep their best place; name and title count as one word only when they are one", () => {
    const t = termsOf({
      metadata: { name: 'cpu', project: 'team-a', tags: ['infra', 'cpu'] },
      spec: { display: { name: 'CPU usage' }, panels: { a: { spec: { display: { name: 'Infra load' }, query: 'team_metric' } } } },
    });
    expect(Object.fromEntries(t.terms)).to.deep.equal({ cpu: 'a', usage: 'a', infra: 'b', team: 'p', a: 'p', load: 's', metric: 's' });
    expect(t.exact).to.deep.equal(['cpu']);
    expect(t.overflow).to.equal(false);
  });

  it('an object with more terms than kept is marked instead', () => {
    const words = Array.from({ length: MAX_TERMS + 1 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    const t = termsOf({ metadata: { name: 'big' }, spec: { text: words } });
    expect(t.overflow).to.equal(true);
    expect(t.terms.size).to.equal(0);
  });

  it('a query word is looked up by its runs (a tag: prefix aside)', () => {
    expect(wordTerms('job="node"')).to.deep.equal(['job', 'node']);
    expect(wordTerms('tag:infra')).to.deep.equal(['infra']);
    expect(wordTerms('---')).to.deep.equal([]);
  });
});
