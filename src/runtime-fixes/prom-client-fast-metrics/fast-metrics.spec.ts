import { AggregatorRegistry, Counter, Histogram, type Metric, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast-metrics';

const BOUNDS = [0.001, 0.01, 0.1, 1];

/**
 * How many label sets prom-client hashed while `record` ran, on a copy of prom-client of its own
 * whose `hashObject` (lib/util.js) counts; `prepare` makes the families and children first.
 */
function labelHashesOf(prepare: (promClient: typeof import('prom-client')) => () => void): number {
  let hashes = 0;
  jest.isolateModules(() => {
    jest.doMock('prom-client/lib/util', () => {
      const actual = jest.requireActual<{ hashObject: (...args: unknown[]) => string }>('prom-client/lib/util');
      return {
        ...actual,
        hashObject: (...args: unknown[]) => {
          hashes += 1;
          return actual.hashObject(...args);
        },
      };
    });
    const record = prepare(jest.requireActual<typeof import('prom-client')>('prom-client'));
    hashes = 0;
    record();
  });
  return hashes;
}

describe('FastHistogram and FastCounter', () => {
  // Checked on prom-client 15.1.3. A failure means a labelled child no longer hashes its labels on each
  // call: the fix may no longer be needed; measure again (docs/operations.md, "Runtime fixes").
  it('are needed while prom-client hashes the labels on every observe and inc, even through a labelled child', () => {
    const hashes = labelHashesOf(({ Counter: PromCounter, Histogram: PromHistogram, Registry: PromRegistry }) => {
      const registry = new PromRegistry();
      const histogram = new PromHistogram({ name: 'd_seconds', help: 'd', labelNames: ['route'], buckets: BOUNDS, registers: [registry] });
      const counter = new PromCounter({ name: 'c_total', help: 'c', labelNames: ['route'], registers: [registry] });
      const observed = histogram.labels('/a');
      const counted = counter.labels('/a');
      return () => {
        observed.observe(0.5);
        observed.observe(0.05);
        counted.inc();
        counted.inc();
      };
    });
    expect(hashes).toBe(4);
  });

  // What these families rely on in prom-client's registry (fast-metrics.ts, at the top): a failure names the part that changed.
  it('are read by prom-client’s registry through its contract for a metric: registerMetric by name, get(), reset(), aggregator', async () => {
    const values = [{ labels: { route: '/a' }, value: 3 }];
    const family = {
      name: 'probe_total',
      help: 'probe help',
      type: 'counter',
      aggregator: 'sum',
      get: jest.fn(() => Promise.resolve({ name: 'probe_total', help: 'probe help', type: 'counter', aggregator: 'sum', values })),
      reset: jest.fn(),
    };
    const registry = new Registry();
    registry.registerMetric(family as unknown as Metric);
    expect({ 'registerMetric keyed by name': registry.getSingleMetric('probe_total') }).toEqual({ 'registerMetric keyed by name': family });
    expect({ 'get() printed': await registry.metrics() }).toEqual({
      'get() printed': '# HELP probe_total probe help\n# TYPE probe_total counter\nprobe_total{route="/a"} 3\n',
    });
    registry.resetMetrics();
    expect({ 'reset() called': family.reset.mock.calls.length }).toEqual({ 'reset() called': 1 });
    const json = await registry.getMetricsAsJSON();
    const cluster = AggregatorRegistry.aggregate([json, json]);
    expect({ 'aggregator summed': await cluster.getSingleMetricAsString('probe_total') }).toEqual({
      'aggregator summed': '# HELP probe_total probe help\n# TYPE probe_total counter\nprobe_total{route="/a"} 6',
    });
  });

  it('print exactly as prom-client prints the same observations', async () => {
    const fast = new Registry();
    const reference = new Registry();
    const fastHistogram = new FastHistogram('d_seconds', 'durations', ['method', 'route'], BOUNDS, fast);
    const histogram = new Histogram({
      name: 'd_seconds',
      help: 'durations',
      labelNames: ['method', 'route'],
      buckets: BOUNDS,
      registers: [reference],
    });
    const fastCounter = new FastCounter('c_total', 'counts', ['route', 'result'], fast);
    const counter = new Counter({ name: 'c_total', help: 'counts', labelNames: ['route', 'result'], registers: [reference] });

    // On a bound (counted in it), between bounds, above every bound; label values that need escaping.
    const observations: [string, string, number][] = [
      ['GET', '/a/:id', 0.001],
      ['GET', '/a/:id', 0.0005],
      ['GET', '/a/:id', 0.05],
      ['POST', '/b "quoted"\\', 7],
      ['GET', '/a/:id', 1],
    ];
    for (const [method, route, seconds] of observations) {
      fastHistogram.series(method, route).observe(seconds);
      histogram.observe({ method, route }, seconds);
    }
    const hits = fastCounter.series('/a/:id', 'hit');
    hits.inc();
    hits.inc();
    fastCounter.series('/a/:id', 'miss').inc();
    counter.inc({ route: '/a/:id', result: 'hit' }, 2);
    counter.inc({ route: '/a/:id', result: 'miss' });

    expect(await fast.metrics()).toBe(await reference.metrics());
  });

  it('keeps one series per label values, and reset zeroes it in place for its holders', async () => {
    const registry = new Registry();
    const histogram = new FastHistogram('d_seconds', 'durations', ['route'], BOUNDS, registry);
    const series = histogram.series('/a');
    expect(histogram.series('/a')).toBe(series);
    series.observe(0.5);

    registry.resetMetrics();
    series.observe(0.005);

    const { values } = await histogram.get();
    expect(values.filter((value) => value.metricName === 'd_seconds_count')).toEqual([
      { metricName: 'd_seconds_count', labels: { route: '/a' }, value: 1 },
    ]);
    expect(values.find((value) => value.metricName === 'd_seconds_bucket' && value.labels.le === 0.1)?.value).toBe(1);
  });

  it('refuses label values that do not match its label names, and a second family of its name', () => {
    const registry = new Registry();
    const counter = new FastCounter('c_total', 'counts', ['route', 'result'], registry);
    expect(() => counter.series('/a')).toThrow('c_total takes the labels route, result');
    expect(() => new Counter({ name: 'c_total', help: 'again', registers: [registry] })).toThrow(/already been registered/);
  });
});
