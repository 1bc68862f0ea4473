import { expect } from 'chai';
import { MAX_CHECKED_CHARS, MAX_CHECKED_TOKENS, promqlError, promqlProblem } from './promql-check.js';

describe('PromQL check (lezer-promql, strict)', () => {
  it('valid queries pass: Perses unit test cases, modifiers, subqueries, UTF-8 names, comments', () => {
    for (const q of [
      'up',
      'rate(http_requests_total[5m])',
      'sum(rate(http_requests_total[5m])) by (job)',
      'histogram_quantile(0.99, sum(rate(http_request_duration_seconds_bucket[5m])) by (le))',
      'max_over_time(x[1d:5m] offset 1h @ start())',
      'x{a=~"b", c!="d"} and on(a) group_left(b) y',
      '{"my.metric", job="a"}',
      'sum by ("a.b") (x)',
      'rate(up[5m]) # a comment with $var and ) (',
      "label_replace(x, 'dst', '$1', 'src', '(.*)')",
      '  ',
    ]) {
      expect(promqlError(q), q).to.equal(undefined);
    }
  });

  it('invalid queries: the first error with its line, column and what is found there (Perses unit test cases)', () => {
    expect(promqlError('rate(up[)')).to.deep.equal({ offset: 8, line: 1, column: 9, found: '")"' });
    expect(promqlError('sum(rate(up[5m])')).to.include({ column: 17, found: 'the end of the query' });
    expect(promqlError('rate(up[5m]){')).to.include({ column: 13, found: '"{"' });
    expect(promqlError('foo(bar.baz)')).to.include({ column: 4 });
    expect(promqlError('sum(\n  rate(x[5m])\n  by (job)')).to.include({ line: 3, column: 3, found: '"by"' });
    expect(promqlProblem('rate(up[)')).to.equal('invalid PromQL at line 1, column 9: unexpected ")"');
  });

  it('a query referring to a variable ($x, ${x}, even in a string literal) is not checked, as Perses skips it (its value may be any text)', () => {
    for (const q of [
      'rate(http_requests_total{namespace="$namespace"}[5m])',
      'rate(http_requests_total{namespace="${namespace}"}[5m])',
      '$metric_name',
      'rate(x[$__rate_interval])',
      'sum by ($grouping) (rate(x[5m]))',
      'topk($k, x) > ${threshold:raw}',
      '$aggregation(rate(x[$interval:$resolution]))',
      'bottomk(3, range_last(up{job="$job"}))',
      'rate(x{job="$job"}[5m]',
    ]) {
      expect(promqlError(q), q).to.equal(undefined);
    }
    expect(promqlError('bottomk(3, range_last(up))'), 'MetricsQL without a variable is refused, as by Perses').to.include({ column: 22 });
  });

  it('hostile queries stay cheap and never overflow the stack: deep nesting, floods of tokens, long strings', () => {
    const hostile = [
      `${'('.repeat(200_000)}x${')'.repeat(200_000)}`,
      'sum('.repeat(100_000),
      '})]{[('.repeat(200_000),
      '$'.repeat(1_000_000),
      '"'.repeat(1_000_001),
      `x{a="${'a'.repeat(2_000_000)}"}`,
      Array.from({ length: 100_000 }, (_, i) => `x${i}`).join(' + '),
      `${'-'.repeat(500_000)}x`,
      Array.from({ length: 500_000 }, (_, i) => '(){}[]"\'` ,=~!+-*/^%<>@:#\nabc1.5e$'[(i * 7919) % 32]).join(''),
    ];
    const started = performance.now();
    for (const q of hostile) promqlError(q);
    expect(performance.now() - started, 'all of them, in ms').to.be.below(2000);
  });

  it('many queries cost in proportion: 10,000 real-sized ones (half a megabyte) check in a few hundred milliseconds', () => {
    const queries = Array.from({ length: 10_000 }, (_, i) => `sum by (job) (rate(http_requests_total{code="${i}"}[5m]))`);
    const started = performance.now();
    for (const q of queries) expect(promqlError(q)).to.equal(undefined);
    expect(performance.now() - started, 'in ms (about 0.3 s alone on this machine)').to.be.below(3000);
  });

  it("valid queries past lezer's own limits (deep stacks, long operator chains) are not reported as errors", () => {
    for (const q of [
      Array.from({ length: 3000 }, () => 'x').join(' or '),
      Array.from({ length: 1500 }, () => '1').join('^'),
      `${'('.repeat(3000)}1${')'.repeat(3000)}`,
      `${'-'.repeat(5000)}1`,
    ]) {
      expect(promqlError(q), q.slice(0, 40)).to.equal(undefined);
    }
  });

  it(`only the first ${MAX_CHECKED_TOKENS} tokens and ${MAX_CHECKED_CHARS} characters are checked, cut between tokens (never inside a string)`, () => {
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`).join(' + ');
    expect(promqlError(`${terms(100)} + )`), 'an error among the first tokens').to.include({ found: '")"' });
    expect(promqlError(`${terms(MAX_CHECKED_TOKENS)} + )`), 'an error past them').to.equal(undefined);
    expect(promqlError(`x{a="${'b'.repeat(MAX_CHECKED_CHARS)}"} + (`), 'the error is past the checked part').to.equal(undefined);
    expect(promqlError(`(${' '.repeat(MAX_CHECKED_CHARS)}x`)).to.equal(undefined);
    expect(promqlError(`x) + y${' '.repeat(MAX_CHECKED_CHARS)}`)).to.include({ column: 2 });
    // a cut between the two characters of an operator says nothing
    expect(promqlError(`${terms(MAX_CHECKED_TOKENS / 2 - 1)} != 1`)).to.equal(undefined);
  });
});
