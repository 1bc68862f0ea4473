import { expect } from 'chai';
import { Histogram, Registry } from 'prom-client';
import { RequestHistogram } from './histogram.js';

describe('RequestHistogram', () => {
  const buckets = [0.001, 0.005, 0.01, 0.25, 1];
  // values on, below, between and above the bounds, for several label sets (one with quotes and a backslash)
  const observations: [string[], number][] = [
    [['/a', 'GET', '200'], 0.0005],
    [['/a', 'GET', '200'], 0.001],
    [['/a', 'GET', '200'], 0.0049],
    [['/a', 'GET', '200'], 0.3],
    [['/a', 'GET', '200'], 7],
    [['/a', 'POST', '400'], 0.25],
    [['/b/"x"\\y', 'GET', '500'], 0],
    [['/a', 'GET', '200'], 0.01],
  ];

  it("exports exactly what prom-client's histogram exports for the same observations (text and JSON)", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const h = new RequestHistogram('x_seconds', 'Some help.', ['route', 'method', 'status'], buckets, ours);
    const reference = new Histogram({
      name: 'x_seconds',
      help: 'Some help.',
      labelNames: ['route', 'method', 'status'],
      buckets,
      registers: [theirs],
    });
    for (const [values, v] of observations) {
      h.observe(values, v);
      reference.labels(...values).observe(v);
    }
    expect(await ours.metrics()).to.equal(await theirs.metrics());
    // prom-client's values also carry an empty `exemplar`
    const withoutExemplars = (metrics: { values: object[] }[]) =>
      metrics.map((m) => ({ ...m, values: m.values.map(({ exemplar: _, ...v }: { exemplar?: unknown }) => v) }));
    expect(withoutExemplars((await ours.getMetricsAsJSON()) as never)).to.deep.equal(
      withoutExemplars((await theirs.getMetricsAsJSON()) as never),
    );
    expect(await ours.metrics()).to.include('x_seconds_bucket{le="0.005",route="/a",method="GET",status="200"} 3');
  });

  it('reset forgets every series', async () => {
    const r = new Registry();
    const h = new RequestHistogram('y_seconds', 'Help.', ['op'], buckets, r);
    h.observe(['get'], 0.002);
    h.reset();
    expect(await r.metrics()).to.not.include('y_seconds_count');
  });
});
