import { Logger } from '@nestjs/common';
import { version } from '../../package.json';
import { Metrics } from './metrics';

/** The value of the sample `name{labels}` in the exposition, or undefined. */
function sampleOf(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Metrics', () => {
  afterEach(() => jest.restoreAllMocks());

  it('keeps a registry per instance: two side by side declare the same families and count apart', async () => {
    const first = new Metrics();
    const second = new Metrics();
    first.countCacheRequest('/a', true);
    first.countCacheRequest('/a', true);
    second.countCacheRequest('/a', false);

    const one = await first.registry.metrics();
    const two = await second.registry.metrics();
    expect(sampleOf(one, 'http_cache_requests_total', '{route="/a",result="hit"}')).toBe(2);
    expect(sampleOf(one, 'http_cache_requests_total', '{route="/a",result="miss"}')).toBe(0);
    expect(sampleOf(two, 'http_cache_requests_total', '{route="/a",result="hit"}')).toBe(0);
    expect(sampleOf(two, 'http_cache_requests_total', '{route="/a",result="miss"}')).toBe(1);
  });

  it('scrapes without any source: the gauges they feed stay empty, the process defaults are there', async () => {
    const text = await new Metrics().registry.metrics();
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE analysis_queue_depth gauge');
    expect(text).not.toMatch(/^(analysis_queue_depth|push_outbox_backlog|db_pool_connections|dart_budget_remaining)[{ ]/m);
  });

  it('reads the sources when scraped, and drops a status that is no longer answered', async () => {
    const metrics = new Metrics();
    let depths: Record<string, number> = { PENDING: 4, PROCESSING: 2, FAILED_OLD: 1 };
    metrics.sources.analysisQueue = () => Promise.resolve(depths);
    metrics.sources.databasePool = () => ({ inUse: 3, idle: 7, waiting: 1 });
    metrics.sources.dartBudget = () => ({ minuteLeft: 90, dayLeft: 9_000 });

    let text = await metrics.registry.metrics();
    expect(sampleOf(text, 'analysis_queue_depth', '{status="FAILED_OLD"}')).toBe(1);
    expect(sampleOf(text, 'db_pool_connections', '{state="in_use"}')).toBe(3);
    expect(sampleOf(text, 'db_pool_connections', '{state="idle"}')).toBe(7);
    expect(sampleOf(text, 'db_pool_waiting_requests')).toBe(1);
    expect(sampleOf(text, 'dart_budget_remaining', '{window="minute"}')).toBe(90);
    expect(sampleOf(text, 'dart_budget_remaining', '{window="day"}')).toBe(9_000);

    depths = { PENDING: 0, PROCESSING: 1 };
    text = await metrics.registry.metrics();
    expect(sampleOf(text, 'analysis_queue_depth', '{status="PENDING"}')).toBe(0);
    expect(sampleOf(text, 'analysis_queue_depth', '{status="FAILED_OLD"}')).toBeUndefined();
  });

  it("reports the build, the singleton jobs this instance holds, and each job's last success", async () => {
    const metrics = new Metrics();
    metrics.sources.singletonJobs = () => ({ 'disclosure-monitor': true, retention: false });
    metrics.sources.jobLastSuccess = () => Promise.resolve({ retention: 1_767_225_600.5 });

    const text = await metrics.registry.metrics();
    expect(sampleOf(text, 'app_build_info', `{version="${version}",node_version="${process.versions.node}"}`)).toBe(1);
    expect(sampleOf(text, 'singleton_job_held', '{job_name="disclosure-monitor"}')).toBe(1);
    expect(sampleOf(text, 'singleton_job_held', '{job_name="retention"}')).toBe(0);
    expect(sampleOf(text, 'job_last_success_timestamp_seconds', '{job_name="retention"}')).toBe(1_767_225_600.5);
    expect(text).not.toMatch(/^job_last_success_timestamp_seconds\{job_name="disclosure-monitor"\}/m);
  });

  it("reads the oldest pending analysis's age, 0 included, and leaves it out without a source", async () => {
    const metrics = new Metrics();
    expect(await metrics.registry.metrics()).not.toMatch(/^analysis_oldest_pending_age_seconds[{ ]/m);

    let age = 42.5;
    metrics.sources.analysisOldestPending = () => Promise.resolve(age);
    expect(sampleOf(await metrics.registry.metrics(), 'analysis_oldest_pending_age_seconds')).toBe(42.5);
    age = 0;
    expect(sampleOf(await metrics.registry.metrics(), 'analysis_oldest_pending_age_seconds')).toBe(0);
  });

  it('says whether the database answers: 1, 0 when the ping fails, nothing without a database', async () => {
    const metrics = new Metrics();
    expect(await metrics.registry.metrics()).not.toMatch(/^database_up[{ ]/m);

    let answers = true;
    metrics.sources.databasePing = () => (answers ? Promise.resolve([{ '?column?': 1 }]) : Promise.reject(new Error('ECONNREFUSED')));
    expect(sampleOf(await metrics.registry.metrics(), 'database_up')).toBe(1);
    answers = false;
    expect(sampleOf(await metrics.registry.metrics(), 'database_up')).toBe(0);
    answers = true;
    expect(sampleOf(await metrics.registry.metrics(), 'database_up')).toBe(1);
  });

  it('leaves out the default gauges named like counters, keeping the gauges by type they add up', async () => {
    const text = await new Metrics().registry.metrics();
    for (const name of ['nodejs_active_handles', 'nodejs_active_requests', 'nodejs_active_resources']) {
      expect(text).toContain(`# TYPE ${name} gauge`);
      expect(text).not.toContain(`${name}_total`);
    }
  });

  it('still answers the scrape when a source fails (the database is down): that gauge is left empty', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const metrics = new Metrics();
    metrics.sources.analysisQueue = () => Promise.resolve({ PENDING: 5 });
    metrics.sources.pushBacklog = () => Promise.reject(new Error('connection terminated'));
    metrics.sources.analysisOldestPending = () => Promise.reject(new Error('connection terminated'));
    metrics.sources.jobLastSuccess = () => Promise.reject(new Error('connection terminated'));
    metrics.sources.databasePool = () => ({ inUse: 0, idle: 0, waiting: 0 });

    const text = await metrics.registry.metrics();
    expect(sampleOf(text, 'analysis_queue_depth', '{status="PENDING"}')).toBe(5);
    expect(text).not.toMatch(/^(push_outbox_backlog|analysis_oldest_pending_age_seconds|job_last_success_timestamp_seconds)[{ ]/m);
    expect(sampleOf(text, 'db_pool_waiting_requests')).toBe(0);
    expect(warn).toHaveBeenCalledWith(
      { err: expect.objectContaining({ message: 'connection terminated' }) },
      'push_outbox_backlog left out of the scrape',
    );
  });
});
