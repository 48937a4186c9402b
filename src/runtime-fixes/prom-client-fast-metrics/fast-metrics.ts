/*
 * Runtime fix: the two metric families recorded on every request, outside prom-client.
 *
 * Works around: prom-client validates, copies and hashes the labels on every `observe` and `inc`,
 * even through a labelled child. These families keep a series per label values, and recording is a
 * few number increments. To be scraped with prom-client's own, they reach into its registry's
 * contract for a metric: `registerMetric` takes them as they are (not prom-client `Metric`s), keyed
 * by `name`; a scrape awaits `get()` and prints `name`, `help`, `type` and each of `values`
 * (`metricName`, `labels`, `value`); `resetMetrics()` calls `reset()`; a cluster aggregates by `aggregator`.
 * Checked against: prom-client 15.1.3, on Node.js 24.21.0 and 26.10.0.
 * Measured: docs/operations.md, "Runtime fixes" (and docs/metrics.md, "Cost per request"). The spec
 * fails when prom-client stops hashing the labels of a child's calls (the fix is then no longer
 * needed) and when its registry stops reading these families as it reads its own.
 */
import type { Metric, Registry } from 'prom-client';

/** What prom-client's registry reads from a family when it is scraped. */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: { metricName?: string; labels: Record<string, string | number>; value: number }[];
}

/**
 * Families recorded on every request. prom-client's own validate, copy and hash the
 * labels on each observe or inc, even through a labelled child (about 1 µs, and
 * garbage, per call); here the caller looks a series up once, keeps it, and recording
 * is a few number increments. A scrape turns the series into prom-client's values,
 * so the registry prints them like its own families.
 */
abstract class FastMetric<Series extends { labels: Record<string, string> }> {
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  private readonly all = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values (in `labelNames` order), made on first use: keep it. */
  series(...values: string[]): Series {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes the labels ${this.labelNames.join(', ')}`);
    const key = values.join('\u0000');
    let series = this.all.get(key);
    if (series === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]));
      series = this.newSeries(labels);
      this.all.set(key, series);
    }
    return series;
  }

  // The registry's interface: get() when scraped, reset() from resetMetrics().
  get(): Promise<Exported> {
    const values: Exported['values'] = [];
    for (const series of this.all.values()) this.export(series, values);
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** Zeroes every series in place: their holders keep recording into them. */
  reset(): void {
    for (const series of this.all.values()) this.zero(series);
  }

  protected abstract newSeries(labels: Record<string, string>): Series;
  protected abstract export(series: Series, into: Exported['values']): void;
  protected abstract zero(series: Series): void;
}

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}

  inc(): void {
    this.value += 1;
  }
}

export class FastCounter extends FastMetric<CounterSeries> {
  readonly type = 'counter';

  protected newSeries(labels: Record<string, string>): CounterSeries {
    return new CounterSeries(labels);
  }

  protected export(series: CounterSeries, into: Exported['values']): void {
    into.push({ labels: series.labels, value: series.value });
  }

  protected zero(series: CounterSeries): void {
    series.value = 0;
  }
}

export class HistogramSeries {
  /** Observations per bucket, not cumulative; the last one is above every bound. */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly upperBounds: readonly number[],
  ) {
    this.buckets = new Float64Array(upperBounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.upperBounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i += 1;
    this.buckets[i] += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class FastHistogram extends FastMetric<HistogramSeries> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, labelNames, registry);
  }

  protected newSeries(labels: Record<string, string>): HistogramSeries {
    return new HistogramSeries(labels, this.upperBounds);
  }

  protected export(series: HistogramSeries, into: Exported['values']): void {
    let cumulative = 0;
    this.upperBounds.forEach((le, i) => {
      cumulative += series.buckets[i];
      into.push({ metricName: `${this.name}_bucket`, labels: { le, ...series.labels }, value: cumulative });
    });
    into.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...series.labels }, value: series.count });
    into.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
    into.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
  }

  protected zero(series: HistogramSeries): void {
    series.buckets.fill(0);
    series.sum = 0;
    series.count = 0;
  }
}
