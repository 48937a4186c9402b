import { Counter, Histogram, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast-metrics';

const BOUNDS = [0.001, 0.01, 0.1, 1];

describe('FastHistogram and FastCounter', () => {
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
