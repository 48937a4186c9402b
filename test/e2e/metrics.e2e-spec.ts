import { OAuth2Client } from 'google-auth-library';
import request from 'supertest';
import { version } from '../../package.json';
import { AnalysisSchedulerService } from '../../src/analysis/analysis-scheduler.service';
import { DisclosureMonitorService } from '../../src/disclosures/disclosure-monitor.service';
import { JobStatesRepository } from '../../src/jobs/job-states.repository';
import { Metrics } from '../../src/metrics/metrics';
import { PushSender } from '../../src/push/push-sender';
import { GOOGLE_PLAY_AUTH } from '../../src/subscriptions/stores/google-play.client';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { bearerFor, createUser, insertAnalyses, insertFilings } from '../support/fixtures';
import { sendJson, startHttpDouble } from '../support/http-double';
import { eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';
import { startTestApp, type TestApp } from '../support/test-app';

const METRICS_TOKEN = 'a-metrics-token-of-at-least-32-characters';

/** One sample line of the exposition: `name{labels} value`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inside = /\{([^}]*)\}/.exec(line)?.[1].split(',') ?? [];
    if (wanted.every((pair) => inside.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics in local and dev', () => {
  let t: SandboxedApp;
  const sender = new PushSenderDouble();

  beforeAll(async () => {
    t = await startSandboxedApp({
      sandbox: { filingsPerBusinessDay: 6 },
      app: { env: { APP_ENV: 'dev' }, overrides: [{ provide: PushSender, useValue: sender }] },
    });
  });
  afterAll(() => t?.close());

  const scrape = async () => {
    const response = await request(t.http).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return response.text;
  };

  it('serves the Prometheus text format without a token, with the process defaults and the pool', async () => {
    const text = await scrape();
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
    expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_pool_waiting_requests', {})).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'dart_budget_remaining', { window: 'day' })).toBeGreaterThan(0);
  });

  it('times requests by route template and status, and counts cache hits and misses by route', async () => {
    const rceptNo = '20261124999999';
    await request(t.http).get(`/api/v1/disclosures/${rceptNo}`).expect(404);
    await request(t.http).get('/api/v1/disclosures/recent?limit=2').expect(200);
    await request(t.http).get('/api/v1/disclosures/recent?limit=2').expect(200);
    await request(t.http).get('/no/such/route').expect(404);

    const text = await scrape();
    expect(text).not.toContain(rceptNo);
    expect(
      sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/disclosures/:rceptNo', status_code: '404' }),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/disclosures/recent', status_code: '200' }),
    ).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: 'none', status_code: '404' })).toBe(1);
    expect(sample(text, 'http_cache_requests_total', { route: '/api/v1/disclosures/recent', result: 'miss' })).toBe(1);
    expect(sample(text, 'http_cache_requests_total', { route: '/api/v1/disclosures/recent', result: 'hit' })).toBe(1);
  });

  it('counts upstream calls, analyses by outcome and analyzer with their duration, the queue, and push outcomes', async () => {
    const corpCode = t.sandbox.control.companiesIn('Y')[0].corpCode;
    const user = await createUser(t.dataSource);
    await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [user, corpCode, 'watched']);
    await t.dataSource.query("INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ('metrics-token-1', $1, 'android')", [user]);
    sender.answerEach(() => ({ ok: true }));
    t.sandbox.control.publishFiling({ corp_code: corpCode });
    const { saved } = await t.app.get(DisclosureMonitorService).pollOnce();
    expect(saved).toBeGreaterThan(0);

    const queued = await scrape();
    expect(sample(queued, 'analysis_queue_depth', { status: 'PENDING' })).toBe(saved);
    expect(sample(queued, 'upstream_requests_total', { upstream: 'dart', endpoint: 'list.json', result: 'ok' })).toBeGreaterThanOrEqual(1);

    await eventually(async () => sample(await scrape(), 'push_messages_total', { outcome: 'sent' }) === 1);

    t.app.get(AnalysisSchedulerService).resume();
    await eventually(async () => sample(await scrape(), 'analysis_queue_depth', { status: 'PENDING' }) === 0, 30_000);
    await t.app.get(AnalysisSchedulerService).drain();
    const done = await scrape();
    const completed = sample(done, 'analyses_total', { outcome: 'completed', analyzer: 'builtin' }) ?? 0;
    const unavailable = sample(done, 'analyses_total', { outcome: 'unavailable', analyzer: 'builtin' }) ?? 0;
    expect(completed + unavailable).toBe(saved);
    expect(completed).toBeGreaterThan(0);
    expect(sample(done, 'analysis_duration_seconds_count', { analyzer: 'builtin' })).toBe(completed);
    expect(sample(done, 'push_outbox_backlog', { kind: 'deliveries' })).toBe(0);
  });

  it('keeps one registry per application: a second app in the same process starts and counts on its own', async () => {
    const second = await startTestApp({ env: { APP_ENV: 'local' } });
    try {
      expect(second.app.get(Metrics)).not.toBe(t.app.get(Metrics));
      await request(second.http).get('/api/v1/disclosures/recent').expect(200);
      const text = (await request(second.http).get('/metrics').expect(200)).text;
      expect(
        sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/disclosures/recent', status_code: '200' }),
      ).toBe(1);
    } finally {
      await second.close();
    }
  });
});

describe('the metrics the alert rules read (deploy/prometheus/rules.yml)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { APP_ENV: 'local' } });
  });
  afterAll(() => t?.close());

  const scrape = async () => (await request(t.http).get('/metrics').expect(200)).text;

  it('reports the build, the database as up, and the singleton jobs this one instance holds', async () => {
    const text = await scrape();
    expect(sample(text, 'app_build_info', { version, node_version: process.versions.node })).toBe(1);
    expect(sample(text, 'database_up', {})).toBe(1);
    // Alone, the instance leads every singleton job registered (backfill always is).
    expect(sample(text, 'singleton_job_held', { job_name: 'backfill' })).toBe(1);
    // Switched off in tests: not registered, so not reported.
    expect(sample(text, 'singleton_job_held', { job_name: 'disclosure-monitor' })).toBeUndefined();
  });

  it("reads each job's last success from job_states, leaving out a job whose runs all failed", async () => {
    const states = t.app.get(JobStatesRepository);
    const startedAt = new Date('2026-03-02T00:00:00.000Z');
    await states.finished('backfill', 'another-instance', { startedAt, finishedAt: new Date('2026-03-02T00:00:01.250Z'), error: 'boom' });
    expect(sample(await scrape(), 'job_last_success_timestamp_seconds', { job_name: 'backfill' })).toBeUndefined();

    await states.finished('backfill', 'another-instance', { startedAt, finishedAt: new Date('2026-03-02T00:05:00.250Z') });
    expect(sample(await scrape(), 'job_last_success_timestamp_seconds', { job_name: 'backfill' })).toBe(
      Date.parse('2026-03-02T00:05:00.250Z') / 1000,
    );
  });

  it('ages the oldest pending analysis by the database clock, retries included, and says 0 once none waits', async () => {
    expect(sample(await scrape(), 'analysis_oldest_pending_age_seconds', {})).toBe(0);
    await insertFilings(t.dataSource, [
      { rcept_no: '20260302000101', corp_code: '00000101' },
      { rcept_no: '20260302000102', corp_code: '00000102' },
      { rcept_no: '20260302000103', corp_code: '00000103' },
    ]);
    await insertAnalyses(t.dataSource, [
      { rcept_no: '20260302000101', status: 'PENDING' },
      { rcept_no: '20260302000102', status: 'PENDING' },
      { rcept_no: '20260302000103', status: 'COMPLETED' },
    ]);
    // One new, waiting 10 minutes; one retry in its backoff, enqueued an hour ago; a completed one, older still.
    await t.dataSource.query(
      `UPDATE analyses SET created_at = now() - CASE rcept_no
         WHEN '20260302000101' THEN interval '10 minutes' WHEN '20260302000102' THEN interval '1 hour' ELSE interval '1 day' END,
         available_at = CASE WHEN rcept_no = '20260302000102' THEN now() + interval '5 minutes' END
       WHERE rcept_no LIKE '202603020001%'`,
    );
    const age = sample(await scrape(), 'analysis_oldest_pending_age_seconds', {});
    expect(age).toBeGreaterThanOrEqual(3600);
    expect(age).toBeLessThan(3600 + 60);

    await t.dataSource.query("DELETE FROM analyses WHERE status = 'PENDING'");
    expect(sample(await scrape(), 'analysis_oldest_pending_age_seconds', {})).toBe(0);
  });
});

describe('upstream_requests_total of the stores', () => {
  it('counts the Play Developer API calls of a purchase verification by result', async () => {
    const play = await startHttpDouble((req, res) =>
      (req.url ?? '').includes('unknown-token')
        ? sendJson(res, 404, { error: { code: 404 } })
        : sendJson(res, 200, { subscriptionState: 'SUBSCRIPTION_STATE_EXPIRED', lineItems: [] }),
    );
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'play-access-token', expiry_date: Date.now() + 3_600_000 });
    const t = await startTestApp({
      env: { APP_ENV: 'local', GOOGLE_PLAY_PACKAGE_NAME: 'com.example.briefing', GOOGLE_PLAY_API_BASE_URL: `${play.url}/` },
      overrides: [{ provide: GOOGLE_PLAY_AUTH, useValue: auth }],
    });
    try {
      const user = await createUser(t.dataSource);
      for (const token of ['known-token', 'unknown-token']) {
        await request(t.http)
          .post('/api/v1/subscription/verify')
          .set('Authorization', bearerFor(t, user))
          .send({ platform: 'android', token, product_id: 'service.pro.monthly' });
      }
      const text = (await request(t.http).get('/metrics').expect(200)).text;
      const endpoint = 'purchases.subscriptionsv2.get';
      expect(sample(text, 'upstream_requests_total', { upstream: 'google_play', endpoint, result: 'ok' })).toBe(1);
      expect(sample(text, 'upstream_requests_total', { upstream: 'google_play', endpoint, result: 'invalid' })).toBe(1);
    } finally {
      await t.close();
      await play.close();
    }
  });
});

describe('GET /metrics in production', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('does not exist while METRICS_TOKEN is unset: the answer of an unknown route', async () => {
    const t = await startTestApp({ env: { APP_ENV: 'production' } });
    apps.push(t);
    const response = await request(t.http).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /metrics', code: 'NOT_FOUND' });
  });

  it('needs the bearer token when it is set', async () => {
    const t = await startTestApp({ env: { APP_ENV: 'production', METRICS_TOKEN } });
    apps.push(t);
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${METRICS_TOKEN}`, METRICS_TOKEN]) {
      const call = request(t.http).get('/metrics');
      const response = await (authorization === undefined ? call : call.set('Authorization', authorization));
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHORIZED');
    }
    const scraped = await request(t.http).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE http_request_duration_seconds histogram');
  });
});
