import request from 'supertest';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import { kstDate } from '../../src/common/korea-time';
import { PushDispatcher } from '../../src/push/push-dispatcher';
import { PushSender } from '../../src/push/push-sender';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { FakeClock } from '../support/fake-clock';
import { bearerFor, createUser } from '../support/fixtures';
import { eventually } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** 23:30 KST on a Tuesday. */
const LATE_EVENING = new Date('2026-11-24T14:30:00Z');
const kst = (date: string, time: string) => new Date(`${date}T${time}:00+09:00`);

let serial = 0;
/** A filing of `corpCode` as the monitor would store it now. */
function filingOf(t: TestApp, corpCode: string, corpName: string, reportName: string): DartFiling {
  const today = kstDate(t.clock.now());
  serial += 1;
  return {
    rcept_no: `${today}${String(800000 + serial).padStart(6, '0')}`,
    corp_code: corpCode,
    corp_name: corpName,
    stock_code: '',
    corp_cls: 'Y',
    report_nm: reportName,
    rcept_dt: today,
    flr_nm: corpName,
    rm: '',
  };
}

/** A user with one token, watching the companies with notifications on; answers the user and the token. */
async function watcher(t: TestApp, ...corpCodes: string[]): Promise<{ userId: number; token: string; auth: string }> {
  const userId = await createUser(t.dataSource);
  for (const corpCode of corpCodes) {
    await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [
      userId,
      corpCode,
      `company ${corpCode}`,
    ]);
  }
  const token = `prefs-token-${userId}`;
  await t.dataSource.query("INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, 'android')", [token, userId]);
  return { userId, token, auth: bearerFor(t, userId) };
}

/** Waits until the filing's fan-out is expanded; answers how many of its deliveries are held and how many went on at once. */
async function expanded(t: TestApp, rceptNo: string): Promise<{ held: number; now: number }> {
  await eventually(async () => {
    const [row] = await t.dataSource.query<{ status: string }[]>('SELECT status FROM push_fanouts WHERE rcept_no = $1', [rceptNo]);
    return row?.status === 'EXPANDED';
  });
  const [counts] = await t.dataSource.query<{ held: number; now: number }[]>(
    "SELECT count(*) FILTER (WHERE status = 'HELD')::int AS held, count(*) FILTER (WHERE status <> 'HELD')::int AS now FROM push_deliveries WHERE rcept_no = $1",
    [rceptNo],
  );
  return counts;
}

describe('watch entry notification filters (PATCH /api/v1/watchlist/{corpCode}/notify)', () => {
  let t: TestApp;
  let auth: string;
  const corpCode = '00126380';

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS });
    const user = await watcher(t, corpCode);
    auth = user.auth;
  });
  afterAll(async () => {
    await t?.close();
  });

  const patch = (body: unknown, code = corpCode) =>
    request(t.http)
      .patch(`/api/v1/watchlist/${code}/notify`)
      .set('Authorization', auth)
      .send(body as object);

  it('starts with no filters, shown on the entry', async () => {
    const list = await request(t.http).get('/api/v1/watchlist').set('Authorization', auth).expect(200);
    expect(list.body).toEqual([expect.objectContaining({ corp_code: corpCode, notify_enabled: true, categories: null, min_impact: null })]);
  });

  it('sets categories and min_impact, changes only the fields given, and null clears a filter', async () => {
    const set = await patch({ categories: ['major_event', 'periodic'], min_impact: 'medium' }).expect(200);
    expect(set.body).toMatchObject({ notify_enabled: true, categories: ['major_event', 'periodic'], min_impact: 'medium' });

    const off = await patch({ notify_enabled: false }).expect(200);
    expect(off.body).toMatchObject({ notify_enabled: false, categories: ['major_event', 'periodic'], min_impact: 'medium' });

    const cleared = await patch({ categories: null, notify_enabled: true }).expect(200);
    expect(cleared.body).toMatchObject({ notify_enabled: true, categories: null, min_impact: 'medium' });

    const list = await request(t.http).get('/api/v1/watchlist').set('Authorization', auth).expect(200);
    expect(list.body).toEqual([expect.objectContaining({ notify_enabled: true, categories: null, min_impact: 'medium' })]);
    await patch({ min_impact: null }).expect(200);
  });

  it.each([
    ['an empty body', {}, 'give notify_enabled'],
    ['null notify_enabled', { notify_enabled: null }, 'notify_enabled must be a boolean'],
    ['a string for notify_enabled', { notify_enabled: 'true' }, 'notify_enabled must be a boolean'],
    ['an unknown category', { categories: ['gossip'] }, 'each of categories must be one of'],
    ['no category', { categories: [] }, 'at least one category'],
    ['a repeated category', { categories: ['audit', 'audit'] }, 'must not repeat'],
    ['categories as a string', { categories: 'audit' }, 'categories must be an array'],
    ['an unknown impact', { min_impact: 'huge' }, 'min_impact must be low, medium or high'],
  ])('answers 400 for %s, changing nothing', async (_case, body, message) => {
    const response = await patch(body).expect(400);
    expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(response.body)).toContain(message);
    const list = await request(t.http).get('/api/v1/watchlist').set('Authorization', auth).expect(200);
    expect(list.body).toEqual([expect.objectContaining({ notify_enabled: true, categories: null, min_impact: null })]);
  });

  it('answers 404 for a company not on the watchlist, and 401 without a token', async () => {
    await patch({ categories: ['audit'] }, '00999999').expect(404);
    await request(t.http)
      .patch(`/api/v1/watchlist/${corpCode}/notify`)
      .send({ categories: ['audit'] })
      .expect(401);
  });
});

describe('the fan-out follows the watch entry filters', () => {
  let sender: PushSenderDouble;
  let t: TestApp;

  beforeAll(async () => {
    sender = new PushSenderDouble();
    // Fan-outs wait for the analysis, which the test settles by hand with the impact it needs.
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      env: { PUSH_SUMMARY_WAIT_MS: '600000' },
      overrides: [{ provide: PushSender, useValue: sender }],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Stores a filing, settles its analysis with `impact` (null: unavailable), and answers who got it. */
  async function publish(filing: DartFiling, impact: 'low' | 'medium' | 'high' | null): Promise<string[]> {
    await t.app.get(DisclosureIngestService).saveNew([filing], 'monitor');
    if (impact === null) {
      await t.dataSource.query("UPDATE analyses SET status = 'UNAVAILABLE' WHERE rcept_no = $1", [filing.rcept_no]);
    } else {
      await t.dataSource.query(
        `UPDATE analyses SET status = 'COMPLETED', one_liner = $2, doc_length = 100, result = $3 WHERE rcept_no = $1`,
        [filing.rcept_no, `${filing.corp_name} 한 줄`, JSON.stringify({ impact: { level: impact, direction: 'up', reason: '-' } })],
      );
    }
    t.app.get(PushDispatcher).wake();
    await expanded(t, filing.rcept_no);
    await eventually(
      async () =>
        (await t.dataSource.query<unknown[]>("SELECT 1 FROM push_deliveries WHERE rcept_no = $1 AND status <> 'SENT'", [filing.rcept_no]))
          .length === 0,
    );
    return sender
      .messages()
      .filter((message) => message.data.rcept_no === filing.rcept_no)
      .map((message) => message.token)
      .sort();
  }

  it('sends a filing only to the entries whose categories include its category and whose min_impact it reaches', async () => {
    const corpCode = '00500001';
    const all = await watcher(t, corpCode);
    const majorOnly = await watcher(t, corpCode);
    const periodicOnly = await watcher(t, corpCode);
    const highOnly = await watcher(t, corpCode);
    const mediumUp = await watcher(t, corpCode);
    const setFilters = (user: { auth: string }, body: object) =>
      request(t.http).patch(`/api/v1/watchlist/${corpCode}/notify`).set('Authorization', user.auth).send(body).expect(200);
    await setFilters(majorOnly, { categories: ['major_event'] });
    await setFilters(periodicOnly, { categories: ['periodic', 'audit'] });
    await setFilters(highOnly, { min_impact: 'high' });
    await setFilters(mediumUp, { min_impact: 'medium', categories: ['major_event', 'periodic'] });

    const tokens = (...users: { token: string }[]) => users.map((user) => user.token).sort();
    // A major event judged medium: not the periodic-only entry, not the high-only entry.
    expect(await publish(filingOf(t, corpCode, '필터전자', '주요사항보고서(유상증자결정)'), 'medium')).toEqual(
      tokens(all, majorOnly, mediumUp),
    );
    // A quarterly report judged high, filed as a correction: its category is still periodic.
    expect(await publish(filingOf(t, corpCode, '필터전자', '[기재정정]분기보고서 (2026.09)'), 'high')).toEqual(
      tokens(all, periodicOnly, highOnly, mediumUp),
    );
    // A low-impact exchange notice: only the entry without filters.
    expect(await publish(filingOf(t, corpCode, '필터전자', '단일판매ㆍ공급계약체결'), 'low')).toEqual(tokens(all));
    // No analysis when the push goes: it passes every impact filter, not the category filters.
    expect(await publish(filingOf(t, corpCode, '필터전자', '단일판매ㆍ공급계약체결'), null)).toEqual(tokens(all, highOnly));
  });
});

describe('quiet hours (PUT /api/v1/push/preferences) with a moved clock', () => {
  let sender: PushSenderDouble;
  let t: TestApp;
  const clock = new FakeClock(LATE_EVENING);

  beforeAll(async () => {
    sender = new PushSenderDouble();
    t = await startTestApp({ rateLimits: RELAXED_RATE_LIMITS, clock, overrides: [{ provide: PushSender, useValue: sender }] });
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    clock.set(LATE_EVENING);
  });

  const put = (auth: string, body: unknown) =>
    request(t.http)
      .put('/api/v1/push/preferences')
      .set('Authorization', auth)
      .send(body as object);
  const sentTo = (token: string) => sender.messages().filter((message) => message.token === token);
  const release = async (at: Date) => {
    clock.set(at);
    t.app.get(PushDispatcher).wake();
    await t.app.get(PushDispatcher).drain();
  };

  it('reads back what was set, null when none, and answers 400 for what is not a window', async () => {
    const user = await watcher(t);
    expect((await request(t.http).get('/api/v1/push/preferences').set('Authorization', user.auth).expect(200)).body).toEqual({
      quiet_start: null,
      quiet_end: null,
      time_zone: 'Asia/Seoul',
    });
    expect((await put(user.auth, { quiet_start: '22:00', quiet_end: '07:00' }).expect(200)).body).toEqual({
      quiet_start: '22:00',
      quiet_end: '07:00',
      time_zone: 'Asia/Seoul',
    });
    for (const body of [
      {},
      { quiet_start: '22:00' },
      { quiet_start: '22:00', quiet_end: null },
      { quiet_start: '24:00', quiet_end: '07:00' },
      { quiet_start: '7:00', quiet_end: '08:00' },
      { quiet_start: '22:00:00', quiet_end: '07:00' },
      { quiet_start: 2200, quiet_end: '07:00' },
      { quiet_start: '22:00', quiet_end: '22:00' },
    ]) {
      const response = await put(user.auth, body).expect(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect((await request(t.http).get('/api/v1/push/preferences').set('Authorization', user.auth).expect(200)).body).toMatchObject({
      quiet_start: '22:00',
      quiet_end: '07:00',
    });
    await put(user.auth, { quiet_start: null, quiet_end: null }).expect(200);
    expect((await request(t.http).get('/api/v1/push/preferences').set('Authorization', user.auth).expect(200)).body).toMatchObject({
      quiet_start: null,
      quiet_end: null,
    });
    await request(t.http).put('/api/v1/push/preferences').send({ quiet_start: null, quiet_end: null }).expect(401);
  });

  it('holds pushes in the window and sends one digest per device when it ends; users without quiet hours get theirs at once', async () => {
    const [a, b] = ['00600001', '00600002'];
    const sleeper = await watcher(t, a, b);
    const awake = await watcher(t, a);
    await put(sleeper.auth, { quiet_start: '22:00', quiet_end: '07:00' }).expect(200);

    const ingest = t.app.get(DisclosureIngestService);
    const first = filingOf(t, a, '가나전자', '분기보고서 (2026.09)');
    const second = filingOf(t, b, '다라화학', '주요사항보고서(자기주식취득결정)');
    const third = filingOf(t, a, '가나전자', '단일판매ㆍ공급계약체결');
    for (const filing of [first, second, third]) {
      await ingest.saveNew([filing], 'monitor');
      expect(await expanded(t, filing.rcept_no)).toEqual({ held: 1, now: filing.corp_code === a ? 1 : 0 });
    }
    await eventually(async () => sentTo(awake.token).length === 2);
    expect(sentTo(sleeper.token)).toEqual([]);

    // A minute before the end, still nothing.
    await release(kst('2026-11-25', '06:59'));
    expect(sentTo(sleeper.token)).toEqual([]);

    await release(kst('2026-11-25', '07:00'));
    await eventually(async () => sentTo(sleeper.token).length > 0);
    await t.app.get(PushDispatcher).drain();
    expect(sentTo(sleeper.token)).toEqual([
      {
        token: sleeper.token,
        title: '관심 기업 새 공시 3건',
        body: '가나전자, 다라화학',
        data: { rcept_no: third.rcept_no, corp_code: a },
        collapseKey: third.rcept_no,
      },
    ]);
    const statuses = await t.dataSource.query<{ rcept_no: string; status: string }[]>(
      'SELECT rcept_no, status FROM push_deliveries WHERE user_id = $1 ORDER BY rcept_no',
      [sleeper.userId],
    );
    expect(statuses).toEqual([
      { rcept_no: first.rcept_no, status: 'DIGESTED' },
      { rcept_no: second.rcept_no, status: 'DIGESTED' },
      { rcept_no: third.rcept_no, status: 'SENT' },
    ]);

    // The history shows the one notification the phone got.
    const history = await request(t.http).get('/api/v1/push/history').set('Authorization', sleeper.auth).expect(200);
    expect(history.body).toEqual([
      expect.objectContaining({ rcept_no: third.rcept_no, title: '관심 기업 새 공시 3건', body: '가나전자, 다라화학', outcome: 'sent' }),
    ]);

    // Later passes send nothing more.
    await release(kst('2026-11-25', '08:00'));
    expect(sentTo(sleeper.token)).toHaveLength(1);
  });

  it('sends a single held filing as its usual message, and a window that does not cross midnight holds only inside it', async () => {
    const corpCode = '00600003';
    const napper = await watcher(t, corpCode);
    await put(napper.auth, { quiet_start: '13:00', quiet_end: '14:30' }).expect(200);

    clock.set(kst('2026-11-25', '12:59'));
    const before = filingOf(t, corpCode, '마바전자', '분기보고서 (2026.09)');
    await t.app.get(DisclosureIngestService).saveNew([before], 'monitor');
    expect(await expanded(t, before.rcept_no)).toEqual({ held: 0, now: 1 });

    clock.set(kst('2026-11-25', '13:00'));
    const inside = filingOf(t, corpCode, '마바전자', '단일판매ㆍ공급계약체결');
    await t.app.get(DisclosureIngestService).saveNew([inside], 'monitor');
    expect(await expanded(t, inside.rcept_no)).toEqual({ held: 1, now: 0 });

    await release(kst('2026-11-25', '14:30'));
    await eventually(async () => sentTo(napper.token).length === 2);
    expect(sentTo(napper.token).map((message) => [message.data.rcept_no, message.title, message.body])).toEqual([
      [before.rcept_no, '마바전자', '새 공시: 분기보고서 (2026.09)'],
      [inside.rcept_no, '마바전자', '새 공시: 단일판매ㆍ공급계약체결'],
    ]);
  });

  it('sends what is held at once when quiet hours are turned off, and holds it until the new end when the window moves', async () => {
    const corpCode = '00600004';
    const [off, moved] = [await watcher(t, corpCode), await watcher(t, corpCode)];
    await put(off.auth, { quiet_start: '22:00', quiet_end: '07:00' }).expect(200);
    await put(moved.auth, { quiet_start: '22:00', quiet_end: '07:00' }).expect(200);
    const filing = filingOf(t, corpCode, '사아전자', '분기보고서 (2026.09)');
    await t.app.get(DisclosureIngestService).saveNew([filing], 'monitor');
    expect(await expanded(t, filing.rcept_no)).toEqual({ held: 2, now: 0 });

    await put(off.auth, { quiet_start: null, quiet_end: null }).expect(200);
    await put(moved.auth, { quiet_start: '23:00', quiet_end: '06:00' }).expect(200);
    await release(LATE_EVENING);
    await eventually(async () => sentTo(off.token).length === 1);
    expect(sentTo(moved.token)).toEqual([]);

    await release(kst('2026-11-25', '06:00'));
    await eventually(async () => sentTo(moved.token).length === 1);
    expect(sentTo(off.token)).toHaveLength(1);
  });

  it('keeps one window when the same user sets it in parallel, and two instances release one digest per device', async () => {
    const corpCode = '00600005';
    const user = await watcher(t, corpCode);
    const windows = Array.from({ length: 10 }, (_, i) => ({ quiet_start: `2${i % 4}:00`, quiet_end: `0${i % 8}:30` }));
    const answers = await Promise.all(windows.map((window) => put(user.auth, window)));
    expect(answers.map((answer) => answer.status)).toEqual(windows.map(() => 200));
    // Start and end come from the same request, whichever won.
    const { body: stored } = await request(t.http).get('/api/v1/push/preferences').set('Authorization', user.auth).expect(200);
    expect(windows).toContainEqual({ quiet_start: stored.quiet_start, quiet_end: stored.quiet_end });
    await put(user.auth, { quiet_start: '22:00', quiet_end: '07:00' }).expect(200);

    const filings = [1, 2, 3].map(() => filingOf(t, corpCode, '자차전자', '분기보고서 (2026.09)'));
    for (const filing of filings) await t.app.get(DisclosureIngestService).saveNew([filing], 'monitor');
    for (const filing of filings) expect(await expanded(t, filing.rcept_no)).toEqual({ held: 1, now: 0 });

    const other = await startTestApp({
      database: t.database,
      clock,
      rateLimits: RELAXED_RATE_LIMITS,
      overrides: [{ provide: PushSender, useValue: sender }],
    });
    try {
      clock.set(kst('2026-11-25', '07:00'));
      const dispatchers = [t, other].map((app) => app.app.get(PushDispatcher));
      for (const dispatcher of dispatchers) dispatcher.wake();
      await Promise.all(dispatchers.map((dispatcher) => dispatcher.drain()));
      await eventually(async () => sentTo(user.token).length > 0);
      await Promise.all(dispatchers.map((dispatcher) => dispatcher.drain()));
      expect(sentTo(user.token)).toEqual([
        expect.objectContaining({ title: '관심 기업 새 공시 3건', data: { rcept_no: filings[2].rcept_no, corp_code: corpCode } }),
      ]);
    } finally {
      await other.close();
    }
  });
});
