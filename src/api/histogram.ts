import type { Registry } from 'prom-client';

/** One label set's observations: per-bucket counts (not cumulative), sum and count. */
interface Series {
  labels: Record<string, string>;
  counts: number[];
  sum: number;
  count: number;
}

/** A value as prom-client's registry formats it: `labels` first, then the series' `sharedLabels`. */
interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
}

/**
 * A Prometheus histogram with labels for the paths every request takes: an observation is one
 * Map lookup, a bucket search and three additions. prom-client's histogram validates and hashes
 * the labels on every observation, even through a label child: 1.3 us against 0.05 us per
 * observation in-process, 2.4-2.7 % of the P1 and P4 profiles (two or three observations per
 * request). It registers in a prom-client Registry, which exports it in the same lines as a
 * prom-client histogram (`_bucket` with `le` first and cumulative counts, `+Inf`, `_sum`, `_count`).
 */
export class RequestHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** One observation for the label values, in `labelNames` order. */
  observe(values: readonly string[], seconds: number): void {
    const key = values.join('\x00');
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]])),
        counts: this.buckets.map(() => 0),
        sum: 0,
        count: 0,
      };
      this.series.set(key, s);
    }
    // the first bucket whose upper bound is at least the value (none: only +Inf counts it)
    let i = 0;
    while (i < this.buckets.length && seconds > this.buckets[i]) i++;
    if (i < this.buckets.length) s.counts[i]++;
    s.sum += seconds;
    s.count++;
  }

  /** What the registry's text export reads. */
  getForPromString(): { name: string; help: string; type: string; aggregator: string; values: ExportedValue[] } {
    const values: ExportedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ metricName: bucket, labels: { le }, sharedLabels: s.labels, value: cumulative });
      });
      values.push({ metricName: bucket, labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: {}, sharedLabels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: {}, sharedLabels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The registry's JSON export: each value's labels in one object. */
  get(): {
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { metricName: string; labels: Record<string, string | number>; value: number }[];
  } {
    const data = this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.series.clear();
  }
}
