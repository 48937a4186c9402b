import request from 'supertest';
import { AnalysesRepository } from '../../src/analysis/analyses.repository';
import { AnalysisSchedulerService } from '../../src/analysis/analysis-scheduler.service';
import { validAnswer } from '../../local/doubles/analysis-answers';
import { chatCompletion, type ModelServerDouble, startModelServerDouble } from '../../local/doubles/model-server-double';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { createUser, serviceTokenFor } from '../support/fixtures';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';

/** A DART-style document whose extracted text is about `chars` characters long. */
function documentXml(title: string, chars: number): string {
  const sentence = '회사는 신규 시설투자를 위하여 금 5,000,000,000원을 투자하기로 결정하였습니다. ';
  const body = sentence.repeat(Math.max(1, Math.ceil(chars / sentence.length)));
  return `<?xml version="1.0" encoding="utf-8"?><DOCUMENT><DOCUMENT-NAME>${title}</DOCUMENT-NAME><BODY><COVER><COVER-TITLE>표지</COVER-TITLE></COVER><SECTION-1><TITLE>${title}</TITLE><P>${body}</P></SECTION-1></BODY></DOCUMENT>`;
}

describe('analyses and the reveal economy', () => {
  let model: ModelServerDouble;
  let t: SandboxedApp;
  let scheduler: AnalysisSchedulerService;
  let queue: AnalysesRepository;
  let serial = 0;

  beforeAll(async () => {
    model = await startModelServerDouble();
    model.answerWith(() => chatCompletion(JSON.stringify(validAnswer())));
    t = await startSandboxedApp({
      app: {
        env: {
          AI_PROVIDER: 'openai',
          OPENAI_BASE_URL: `${model.url}/v1`,
          OPENAI_API_KEY: 'test-openai-key',
          OPENAI_MODEL: 'double-model',
          ANALYSIS_SCHEDULER_AUTO_START: 'false',
          ANALYSIS_CONCURRENCY: '3',
          ANALYSIS_MAX_ATTEMPTS: '3',
          ANALYSIS_RETRY_BASE_MS: '1',
        },
      },
    });
    scheduler = t.app.get(AnalysisSchedulerService);
    queue = t.app.get(AnalysesRepository);
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  /** Stores a new filing whose document has about `chars` characters of text (null: no document). */
  async function newFiling(chars: number | null): Promise<DartFiling> {
    serial += 1;
    const filing = t.sandbox.control.publishFiling({ report_nm: `테스트공시 ${serial}` });
    t.sandbox.control.setDocument(filing.rcept_no, chars === null ? null : documentXml(filing.report_nm, chars));
    await t.app.get(DisclosureIngestService).saveNew([filing], 'fetch');
    return filing;
  }
  const statusOf = async (rceptNo: string) =>
    (
      await t.dataSource.query(
        'SELECT status, attempts, one_liner, doc_length, provider, model, prompt_tokens, completion_tokens, truncated, completed_at, result FROM analyses WHERE rcept_no = $1',
        [rceptNo],
      )
    )[0];
  const settled = (rceptNo: string) =>
    eventually(async () => {
      const row = await statusOf(rceptNo);
      return row.status === 'COMPLETED' || row.status === 'UNAVAILABLE' ? row : null;
    });
  /** Like `settled`, moving the clock past each retry's backoff and waking the scheduler. */
  const settledThroughRetries = async (rceptNo: string) => {
    const row = await eventually(async () => {
      t.clock.advance(1000);
      scheduler.fill();
      const current = await statusOf(rceptNo);
      return current.status === 'COMPLETED' || current.status === 'UNAVAILABLE' ? current : null;
    });
    t.clock.set(new Date());
    return row;
  };
  const chatCalls = () => model.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
  async function tokenFor(tier: 'none' | 'pro' = 'none'): Promise<{ token: string; userId: number }> {
    const id = await createUser(t.dataSource, { tier, until: tier === 'none' ? null : new Date(t.clock.nowMs() + 30 * 24 * 3600_000) });
    return { token: serviceTokenFor(t, id), userId: id };
  }
  async function analysed(chars: number): Promise<DartFiling> {
    const filing = await newFiling(chars);
    scheduler.resume();
    const row = await settled(filing.rcept_no);
    expect(row.status).toBe('COMPLETED');
    return filing;
  }

  describe('the queue and the scheduler', () => {
    afterEach(async () => {
      scheduler.pause();
      await scheduler.drain();
      model.answerWith(() => chatCompletion(JSON.stringify(validAnswer())));
    });

    it('analyses a new filing once, through the real OpenAI SDK with a JSON-schema answer, woken by the event', async () => {
      scheduler.resume();
      const calls = chatCalls();
      const filing = await newFiling(5000);
      const row = await settled(filing.rcept_no);

      expect(row).toMatchObject({
        status: 'COMPLETED',
        attempts: 1,
        one_liner: validAnswer().headline,
        provider: 'openai',
        model: 'double-model',
        prompt_tokens: 1200,
        completion_tokens: 300,
        truncated: false,
      });
      expect(row.doc_length).toBeGreaterThan(4000);
      expect(row.result).toEqual(validAnswer());
      expect(chatCalls()).toBe(calls + 1);
      const sent = model.requests.at(-1)!.body as {
        response_format: { type: string; json_schema: { strict: boolean } };
        messages: { content: string }[];
      };
      expect(sent.response_format.type).toBe('json_schema');
      expect(sent.response_format.json_schema.strict).toBe(true);
      expect(JSON.stringify(sent.messages)).toContain(filing.corp_name);

      // Reads never call the model, and a completed analysis is never claimed again.
      for (let i = 0; i < 5; i++) await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200);
      scheduler.fill();
      await scheduler.drain();
      expect(chatCalls()).toBe(calls + 1);
    });

    it('retries a model that is out with backoff, without spending attempts, then completes', async () => {
      let failures = 2;
      model.answerWith(() =>
        failures-- > 0 ? { status: 503, body: { error: { message: 'overloaded' } } } : chatCompletion(JSON.stringify(validAnswer())),
      );
      const filing = await newFiling(3000);
      scheduler.resume();
      // Two outages and the answer: only the answered attempt counts (test/e2e/analysis-model-outage.e2e-spec.ts).
      expect(await settledThroughRetries(filing.rcept_no)).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    });

    it('never stores an answer outside the schema: after the last attempt the analysis is UNAVAILABLE', async () => {
      model.answerWith(() => chatCompletion(JSON.stringify({ ...validAnswer(), sentiment: 'ecstatic' })));
      const filing = await newFiling(3000);
      scheduler.resume();
      const row = await settledThroughRetries(filing.rcept_no);
      expect(row).toMatchObject({ status: 'UNAVAILABLE', attempts: 3, result: null, one_liner: null });
      const meta = await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200);
      expect(meta.body).toMatchObject({ status: 'UNAVAILABLE', result: null });
    });

    it('marks a filing without a document UNAVAILABLE at once, without calling the model', async () => {
      const calls = chatCalls();
      const filing = await newFiling(null);
      scheduler.resume();
      expect(await settled(filing.rcept_no)).toMatchObject({ status: 'UNAVAILABLE', attempts: 1 });
      expect(chatCalls()).toBe(calls);
    });

    it('takes over the lease of a crashed worker once it expires', async () => {
      const filing = await newFiling(2000);
      const claimed = await queue.claim('crashed-worker');
      expect(claimed?.rceptNo).toBe(filing.rcept_no);
      // Resumed, the scheduler tries to claim at once; once it is idle again it has claimed nothing.
      scheduler.resume();
      scheduler.fill();
      await scheduler.drain();
      expect((await statusOf(filing.rcept_no)).status).toBe('PROCESSING');

      // Leases run on the database clock: the lease's time runs out there.
      await t.dataSource.query("UPDATE analyses SET lease_expires_at = now() - interval '1 second' WHERE rcept_no = $1", [filing.rcept_no]);
      scheduler.fill();
      expect(await settled(filing.rcept_no)).toMatchObject({ status: 'COMPLETED', attempts: 2 });
      // The crashed worker coming back cannot overwrite the result.
      expect(await queue.markUnavailable('crashed-worker', filing.rcept_no, 'late')).toBe(false);
      expect((await statusOf(filing.rcept_no)).status).toBe('COMPLETED');
    });

    it('takes over the lease of an instance that stopped beating without waiting for the lease, but not of a live one', async () => {
      // Two other instances as the fleet registry sees them: one beating, one silent for longer than LEADER_TAKEOVER_MS (kill -9 leaves its row).
      await t.dataSource.query(
        `INSERT INTO fleet_instances (id, host, pid, heartbeat_at) VALUES
           ('live-host:1:aaaaaa', 'live-host', 1, now()), ('dead-host:2:bbbbbb', 'dead-host', 2, now() - interval '1 hour')`,
      );
      const live = await newFiling(2000);
      expect((await queue.claim('live-host:1:aaaaaa'))?.rceptNo).toBe(live.rcept_no);
      const dead = await newFiling(2000);
      expect((await queue.claim('dead-host:2:bbbbbb'))?.rceptNo).toBe(dead.rcept_no);

      // This instance judges others dead only once its own heartbeats have gone on for LEADER_TAKEOVER_MS (30 s).
      t.clock.advance(30_000);
      scheduler.resume();
      expect(await settled(dead.rcept_no)).toMatchObject({ status: 'COMPLETED', attempts: 2 });
      scheduler.fill();
      await scheduler.drain();
      // Both leases have ten minutes to run; only the live instance's is still its own.
      expect(await statusOf(live.rcept_no)).toMatchObject({ status: 'PROCESSING' });
      expect(await queue.markUnavailable('dead-host:2:bbbbbb', dead.rcept_no, 'late')).toBe(false);

      // The live instance goes away cleanly; its lease runs out and the filing is analysed here, leaving the queue empty.
      await t.dataSource.query("DELETE FROM fleet_instances WHERE id IN ('live-host:1:aaaaaa', 'dead-host:2:bbbbbb')");
      await t.dataSource.query("UPDATE analyses SET lease_expires_at = now() - interval '1 second' WHERE rcept_no = $1", [live.rcept_no]);
      scheduler.fill();
      expect(await settled(live.rcept_no)).toMatchObject({ status: 'COMPLETED', attempts: 2 });
    });

    it('hands each analysis to exactly one of many competing workers', async () => {
      const filings = await Promise.all(Array.from({ length: 12 }, () => newFiling(1500)));
      const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => queue.claim(`worker-${i}`)));
      const claimed = claims.filter((claim) => claim !== null).map((claim) => claim!.rceptNo);
      expect(claimed.sort()).toEqual(filings.map((filing) => filing.rcept_no).sort());
      // Give them back so later tests are not blocked by these leases.
      await t.dataSource.query(
        "UPDATE analyses SET status = 'PENDING', lease_owner = NULL, lease_expires_at = NULL, attempts = 0 WHERE status = 'PROCESSING'",
      );
    });

    it('reports its status; pause lets work finish and claims nothing new; resume claims again', async () => {
      const admin = (path: string, method: 'get' | 'post' = 'get') =>
        request(t.http)[method](`/api/v1/admin/scheduler/${path}`).set('X-Admin-Key', ADMIN_KEY);
      const schedulerStatus = async () => (await admin('status').expect(200)).body;
      scheduler.resume();
      await eventually(async () => (await queue.countQueued()) === 0);

      const paused = await admin('pause', 'post').expect(200);
      expect(paused.body).toMatchObject({ status: 'paused', concurrency: 3 });
      // Running analyses may still be finishing: wait for them to end, not for a fixed time.
      await scheduler.drain();

      const waiting = await newFiling(1200);
      // Whatever would wake a running scheduler (the new-filing event, a poll tick) claims nothing now.
      scheduler.fill();
      await scheduler.drain();
      expect((await statusOf(waiting.rcept_no)).status).toBe('PENDING');
      const before = await schedulerStatus();
      expect(before).toMatchObject({ status: 'paused', activeThreads: 0, concurrency: 3, queued: 1 });
      expect(before.totalSuccess).toEqual(expect.any(Number));
      expect(before.totalFailed).toEqual(expect.any(Number));

      expect((await admin('resume', 'post').expect(200)).body.status).toBe('running');
      expect(await settled(waiting.rcept_no)).toMatchObject({ status: 'COMPLETED' });
      scheduler.pause();
      await scheduler.drain();
      expect(await schedulerStatus()).toMatchObject({ activeThreads: 0, queued: 0, totalSuccess: before.totalSuccess + 1 });
      await request(t.http).get('/api/v1/admin/scheduler/status').expect(401);
    });
  });

  describe('GET /api/v1/ai/analyze/{rceptNo}', () => {
    it('answers PENDING before the analysis, and the one-liner without result to anonymous callers of long filings', async () => {
      const filing = await newFiling(4000);
      expect((await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200)).body).toEqual({
        status: 'PENDING',
        doc_length: null,
        is_short: false,
        already_revealed: false,
        one_liner: null,
        result: null,
      });
      scheduler.resume();
      await settled(filing.rcept_no);
      const res = await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200);
      expect(res.body).toMatchObject({
        status: 'COMPLETED',
        is_short: false,
        already_revealed: false,
        one_liner: validAnswer().headline,
        result: null,
      });
      expect(res.body.doc_length).toBeGreaterThanOrEqual(1000);
    });

    it('gives signed-in callers the result of a short filing without spending quota', async () => {
      const filing = await analysed(300);
      const { token, userId } = await tokenFor();
      const res = await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.body).toMatchObject({ status: 'COMPLETED', is_short: true, already_revealed: false, result: validAnswer() });
      expect(res.body.doc_length).toBeLessThan(1000);
      const quota = await t.dataSource.query('SELECT weekly_used FROM quota_usage WHERE user_id = $1', [userId]);
      expect(quota.map((row: { weekly_used: number }) => row.weekly_used).filter((used: number) => used !== 0)).toEqual([]);
    });

    it('gives anonymous callers the summary of a short filing without result', async () => {
      const filing = await analysed(300);
      const res = await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).expect(200);
      expect(res.body).toMatchObject({ status: 'COMPLETED', is_short: true, already_revealed: false, one_liner: validAnswer().headline });
      expect(res.body.doc_length).toBeLessThan(1000);
      expect(res.body.result ?? null).toBeNull();
    });

    it('answers 400, 404 and 401 (an invalid token is never silently anonymous)', async () => {
      await request(t.http).get('/api/v1/ai/analyze/123').expect(400);
      await request(t.http).get('/api/v1/ai/analyze/20991231000001').expect(404);
      const filing = await newFiling(1000);
      await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).set('Authorization', 'Bearer nonsense').expect(401);
      const { token } = await tokenFor();
      t.clock.advance(8 * 24 * 3600_000);
      await request(t.http).get(`/api/v1/ai/analyze/${filing.rcept_no}`).set('Authorization', `Bearer ${token}`).expect(401);
      t.clock.set(new Date());
    });
  });

  describe('POST /api/v1/ai/analyze/{rceptNo}/reveal', () => {
    const reveal = (rceptNo: string, token?: string) => {
      const req = request(t.http).post(`/api/v1/ai/analyze/${rceptNo}/reveal`);
      return token ? req.set('Authorization', `Bearer ${token}`) : req;
    };
    const usedOf = async (userId: number) =>
      (await t.dataSource.query('SELECT weekly_used FROM quota_usage WHERE user_id = $1', [userId]))[0]?.weekly_used;

    it('needs a JWT and a completed analysis', async () => {
      scheduler.pause();
      await scheduler.drain();
      const pending = await newFiling(5000);
      await reveal(pending.rcept_no).expect(401);
      const { token } = await tokenFor();
      const res = await reveal(pending.rcept_no, token).expect(409);
      expect(res.body).toMatchObject({ statusCode: 409, code: 'NOT_READY' });
      await reveal('20991231000001', token).expect(404);
    });

    it('charges one unit the first time for a long filing, and nothing on a repeat or for a short filing', async () => {
      const long = await analysed(5000);
      const short = await analysed(200);
      const { token, userId } = await tokenFor();

      const first = await reveal(long.rcept_no, token).expect(200);
      expect(first.body).toEqual({
        rcept_no: long.rcept_no,
        one_liner: validAnswer().headline,
        result: validAnswer(),
        quota: expect.objectContaining({ tier: 'none', weekly_used: 1, weekly_limit: 10, remaining: 9 }),
      });
      expect((await reveal(long.rcept_no, token).expect(200)).body.quota.weekly_used).toBe(1);
      expect((await reveal(short.rcept_no, token).expect(200)).body.quota.weekly_used).toBe(1);
      expect(await usedOf(userId)).toBe(1);

      const meta = await request(t.http).get(`/api/v1/ai/analyze/${long.rcept_no}`).set('Authorization', `Bearer ${token}`).expect(200);
      expect(meta.body).toMatchObject({ already_revealed: true, result: validAnswer() });
    });

    it('answers 429 QUOTA_EXHAUSTED with can_watch_ad when the quota is spent, and keeps nothing', async () => {
      const [revealed, fresh] = [await analysed(3000), await analysed(3000)];
      const { token, userId } = await tokenFor();
      await reveal(revealed.rcept_no, token).expect(200);
      await t.dataSource.query('UPDATE quota_usage SET weekly_used = 10 WHERE user_id = $1', [userId]);

      const res = await reveal(fresh.rcept_no, token).expect(429);
      expect(res.body).toMatchObject({ statusCode: 429, code: 'QUOTA_EXHAUSTED', can_watch_ad: true });
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM revealed_disclosures WHERE user_id = $1 AND rcept_no = $2', [
        userId,
        fresh.rcept_no,
      ]);
      expect(n).toBe(0);
      expect(await usedOf(userId)).toBe(10);
      // What was revealed before stays readable.
      await reveal(revealed.rcept_no, token).expect(200);

      // A new week (Monday 00:00 in Korea) gives the quota back.
      t.clock.advance(7 * 24 * 3600_000);
      const nextWeekToken = serviceTokenFor(t, userId);
      expect((await reveal(fresh.rcept_no, nextWeekToken).expect(200)).body.quota).toMatchObject({ weekly_used: 1, remaining: 9 });
      t.clock.set(new Date());
    });

    it('charges once for parallel reveals of one filing, and never past the limit for parallel reveals of many', async () => {
      const filings = await Promise.all(Array.from({ length: 14 }, () => newFiling(2500)));
      scheduler.resume();
      for (const filing of filings) await settled(filing.rcept_no);
      const { token, userId } = await tokenFor();

      const same = await Promise.all(Array.from({ length: 8 }, () => reveal(filings[0].rcept_no, token)));
      expect(same.map((res) => res.status)).toEqual(Array(8).fill(200));
      expect(await usedOf(userId)).toBe(1);

      const many = await Promise.all(filings.slice(1).map((filing) => reveal(filing.rcept_no, token)));
      const statuses = many.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(9);
      expect(statuses.filter((status) => status === 429)).toHaveLength(4);
      expect(await usedOf(userId)).toBe(10);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM revealed_disclosures WHERE user_id = $1', [userId]);
      expect(n).toBe(10);
    });

    it('uses the limit of the active tier', async () => {
      const filing = await analysed(3000);
      const { token, userId } = await tokenFor('pro');
      await request(t.http).get('/api/v1/quota').set('Authorization', `Bearer ${token}`).expect(200);
      await t.dataSource.query('UPDATE quota_usage SET weekly_used = 59 WHERE user_id = $1', [userId]);
      expect((await reveal(filing.rcept_no, token).expect(200)).body.quota).toMatchObject({
        tier: 'pro',
        weekly_used: 60,
        weekly_limit: 60,
        remaining: 0,
      });
    });
  });

  describe('device attestation on reveal', () => {
    let enforced: SandboxedApp;
    beforeAll(async () => {
      enforced = await startSandboxedApp({
        app: {
          database: t.database,
          env: { DEVICE_ATTESTATION: 'enforce', WEB_SECRET: 'worker-secret-for-tests', AI_PROVIDER: 'builtin' },
        },
      });
    });
    afterAll(() => enforced?.close());

    it('checks the token first (401), then the device (403), and accepts the web worker secret', async () => {
      const [row] = await t.dataSource.query("SELECT rcept_no FROM analyses WHERE status = 'COMPLETED' LIMIT 1");
      const { token } = await tokenFor();
      const path = `/api/v1/ai/analyze/${row.rcept_no}/reveal`;
      await request(enforced.http).post(path).expect(401);
      const blocked = await request(enforced.http).post(path).set('Authorization', `Bearer ${token}`).expect(403);
      expect(blocked.body.statusCode).toBe(403);
      await request(enforced.http).post(path).set('Authorization', `Bearer ${token}`).set('X-Worker-Secret', 'wrong').expect(403);
      await request(enforced.http)
        .post(path)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Worker-Secret', 'worker-secret-for-tests')
        .expect(200);
    });
  });
});
