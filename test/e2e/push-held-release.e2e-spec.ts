import request from 'supertest';
import { kstDate } from '../../src/common/korea-time';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import { toFirebaseMessage } from '../../src/push/firebase-push-sender';
import { newFilingMessage } from '../../src/push/new-filing-message';
import { PushDeliveriesRepository } from '../../src/push/push-deliveries.repository';
import { PushDispatcher } from '../../src/push/push-dispatcher';
import { type PushMessage, PushSender, type PushSendResult } from '../../src/push/push-sender';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { FakeClock } from '../support/fake-clock';
import { bearerFor, createUser } from '../support/fixtures';
import { eventually } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS, startTestApp, type TestApp } from '../support/test-app';

/** 23:30 KST on a Tuesday: inside a 22:00–07:00 window. */
const LATE_EVENING = new Date('2026-11-24T14:30:00Z');
/** 07:00 KST the next morning: the window's end. */
const MORNING = new Date('2026-11-24T22:00:00Z');
const MAX_ATTEMPTS = 3;

interface Watcher {
  userId: number;
  token: string;
  auth: string;
}

interface DeliveryRow {
  rcept_no: string;
  fcm_token: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

describe('pushes handed to the sender after they were created are re-checked; a dead sender’s batch is sent again', () => {
  const clock = new FakeClock(LATE_EVENING);
  let sender: PushSenderDouble;
  let t: TestApp;
  let serial = 0;

  beforeAll(async () => {
    sender = new PushSenderDouble();
    t = await startTestApp({
      rateLimits: RELAXED_RATE_LIMITS,
      clock,
      overrides: [{ provide: PushSender, useValue: sender }],
      env: { PUSH_MAX_ATTEMPTS: String(MAX_ATTEMPTS), PUSH_RETRY_BASE_MS: '60000' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    clock.set(LATE_EVENING);
    sender.answerEach(() => ({ ok: true }));
  });

  const dispatcher = () => t.app.get(PushDispatcher);
  const as = (user: Watcher) => ({
    put: (path: string, body: object) => request(t.http).put(path).set('Authorization', user.auth).send(body),
    post: (path: string, body: object) => request(t.http).post(path).set('Authorization', user.auth).send(body),
    patch: (path: string, body: object) => request(t.http).patch(path).set('Authorization', user.auth).send(body),
    delete: (path: string, body?: object) => request(t.http).delete(path).set('Authorization', user.auth).send(body),
    get: (path: string) => request(t.http).get(path).set('Authorization', user.auth),
  });

  /** A user with one Android token, watching the companies with notifications on. */
  async function watcher(...corpCodes: string[]): Promise<Watcher> {
    const userId = await createUser(t.dataSource);
    for (const corpCode of corpCodes) {
      await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [
        userId,
        corpCode,
        `company ${corpCode}`,
      ]);
    }
    const token = `held-release-token-${userId}`;
    await t.dataSource.query("INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, 'android')", [token, userId]);
    return { userId, token, auth: bearerFor(t, userId) };
  }

  const quietAtNight = async (user: Watcher) => {
    await as(user).put('/api/v1/push/preferences', { quiet_start: '22:00', quiet_end: '07:00' }).expect(200);
  };

  /** A filing of `corpCode` stored as the monitor stores one, now (its fan-out pending). */
  async function store(corpCode: string, corpName: string, reportName = '분기보고서 (2026.09)'): Promise<DartFiling> {
    const today = kstDate(clock.now());
    serial += 1;
    const filing: DartFiling = {
      rcept_no: `${today}${String(700000 + serial).padStart(6, '0')}`,
      corp_code: corpCode,
      corp_name: corpName,
      stock_code: '',
      corp_cls: 'Y',
      report_nm: reportName,
      rcept_dt: today,
      flr_nm: corpName,
      rm: '',
    };
    await t.app.get(DisclosureIngestService).saveNew([filing], 'monitor');
    return filing;
  }

  /** `store`, then resolves once the running dispatcher expanded the fan-out. */
  async function publish(corpCode: string, corpName: string, reportName?: string): Promise<DartFiling> {
    const filing = await store(corpCode, corpName, reportName);
    dispatcher().wake();
    await eventually(async () => {
      const [row] = await t.dataSource.query<{ status: string }[]>('SELECT status FROM push_fanouts WHERE rcept_no = $1', [
        filing.rcept_no,
      ]);
      return row?.status === 'EXPANDED';
    });
    return filing;
  }

  /** Moves the clock to `at` and has the dispatcher do what is due then, to the end (releases, claims, sends, records). */
  async function passAt(at: Date): Promise<void> {
    clock.set(at);
    dispatcher().wake();
    await dispatcher().drain();
  }

  const sentTo = (token: string): PushMessage[] => sender.messages().filter((message) => message.token === token);
  const deliveriesOf = (userId: number) =>
    t.dataSource.query<DeliveryRow[]>(
      'SELECT rcept_no, fcm_token, status, attempts, last_error FROM push_deliveries WHERE user_id = $1 ORDER BY rcept_no',
      [userId],
    );
  const historyOf = async (user: Watcher) =>
    (await as(user).get('/api/v1/push/history').expect(200)).body as Array<Record<string, unknown>>;

  it('(a) sends nothing for a held push whose token was deleted (signed out), and still releases the others’ digests', async () => {
    const [signedOut, stays] = [await watcher('00710001'), await watcher('00710001')];
    await quietAtNight(signedOut);
    await quietAtNight(stays);
    const filing = await publish('00710001', '가온전자');
    expect((await deliveriesOf(signedOut.userId)).map((row) => row.status)).toEqual(['HELD']);

    await as(signedOut).delete('/api/v1/push/fcm-token', { fcm_token: signedOut.token }).expect(204);
    await passAt(MORNING);

    expect(sentTo(signedOut.token)).toEqual([]);
    expect(await deliveriesOf(signedOut.userId)).toEqual([
      {
        rcept_no: filing.rcept_no,
        fcm_token: signedOut.token,
        status: 'TOKEN_GONE',
        attempts: 0,
        last_error: 'token deleted before it was sent',
      },
    ]);
    expect(await historyOf(signedOut)).toEqual([]);
    expect(sentTo(stays.token).map((message) => message.data.rcept_no)).toEqual([filing.rcept_no]);
  });

  it('(b) never sends a held push to the account its token moved to, nor merges it into that account’s digest', async () => {
    const previous = await watcher('00710002');
    await quietAtNight(previous);
    const previousFiling = await publish('00710002', '나래화학');

    // The phone changes hands: its token is registered by another account, which holds a filing of its own.
    const next = await watcher('00710003');
    await t.dataSource.query('DELETE FROM push_tokens WHERE user_id = $1', [next.userId]);
    await quietAtNight(next);
    await as(next).post('/api/v1/push/fcm-token', { fcm_token: previous.token, platform: 'android' }).expect(204);
    const nextFiling = await publish('00710003', '다온제약', '단일판매ㆍ공급계약체결');
    const phone = previous.token;
    expect(
      (
        await t.dataSource.query<{ user_id: number; status: string }[]>(
          'SELECT user_id, status FROM push_deliveries WHERE fcm_token = $1',
          [phone],
        )
      )
        .map((row) => [row.user_id, row.status])
        .sort(),
    ).toEqual(
      [
        [previous.userId, 'HELD'],
        [next.userId, 'HELD'],
      ].sort(),
    );

    await passAt(MORNING);

    // The new owner gets its own filing as the usual message: no digest, nothing of the other account's.
    expect(sentTo(phone)).toEqual([
      {
        token: phone,
        title: '다온제약',
        body: '새 공시: 단일판매ㆍ공급계약체결',
        data: { rcept_no: nextFiling.rcept_no, corp_code: '00710003' },
        collapseKey: nextFiling.rcept_no,
      },
    ]);
    expect(await deliveriesOf(previous.userId)).toEqual([
      {
        rcept_no: previousFiling.rcept_no,
        fcm_token: phone,
        status: 'TOKEN_GONE',
        attempts: 0,
        last_error: 'token registered to another user before it was sent',
      },
    ]);
    expect(await historyOf(previous)).toEqual([]);
    expect((await historyOf(next)).map((entry) => [entry.rcept_no, entry.title, entry.outcome])).toEqual([
      [nextFiling.rcept_no, '다온제약', 'sent'],
    ]);
  });

  it('(c) releases two users’ held pushes as two digests, each naming only its own companies', async () => {
    const [first, second] = [await watcher('00710004', '00710005'), await watcher('00710006', '00710007')];
    await quietAtNight(first);
    await quietAtNight(second);
    // Interleaved, so an ordering by device or by filing alone would mix them.
    const filings = [
      await publish('00710004', '라온전자'),
      await publish('00710006', '마루화학'),
      await publish('00710005', '바다식품'),
      await publish('00710007', '사랑건설'),
    ];

    await passAt(MORNING);

    expect(sentTo(first.token)).toEqual([
      {
        token: first.token,
        title: '관심 기업 새 공시 2건',
        body: '바다식품, 라온전자',
        data: { rcept_no: filings[2].rcept_no, corp_code: '00710005' },
        collapseKey: filings[2].rcept_no,
      },
    ]);
    expect(sentTo(second.token)).toEqual([
      {
        token: second.token,
        title: '관심 기업 새 공시 2건',
        body: '사랑건설, 마루화학',
        data: { rcept_no: filings[3].rcept_no, corp_code: '00710007' },
        collapseKey: filings[3].rcept_no,
      },
    ]);
    expect((await deliveriesOf(first.userId)).map((row) => [row.rcept_no, row.status])).toEqual([
      [filings[0].rcept_no, 'DIGESTED'],
      [filings[2].rcept_no, 'SENT'],
    ]);
    expect((await historyOf(second)).map((entry) => [entry.rcept_no, entry.title, entry.body])).toEqual([
      [filings[3].rcept_no, '관심 기업 새 공시 2건', '사랑건설, 마루화학'],
    ]);
  });

  it('(d) drops the companies unwatched or muted during the night from the digest', async () => {
    const user = await watcher('00710008', '00710009', '00710010');
    await quietAtNight(user);
    const kept = await publish('00710008', '아라전자');
    const unwatched = await publish('00710009', '자연화학');
    const muted = await publish('00710010', '차림제약');
    const keptAgain = await publish('00710008', '아라전자', '단일판매ㆍ공급계약체결');

    await as(user).delete('/api/v1/watchlist/00710009').expect(204);
    await as(user).patch('/api/v1/watchlist/00710010/notify', { notify_enabled: false }).expect(200);
    await passAt(MORNING);

    expect(sentTo(user.token)).toEqual([
      {
        token: user.token,
        title: '관심 기업 새 공시 2건',
        body: '아라전자',
        data: { rcept_no: keptAgain.rcept_no, corp_code: '00710008' },
        collapseKey: keptAgain.rcept_no,
      },
    ]);
    expect((await deliveriesOf(user.userId)).map((row) => [row.rcept_no, row.status, row.last_error])).toEqual([
      [kept.rcept_no, 'DIGESTED', null],
      [unwatched.rcept_no, 'UNWATCHED', 'company unwatched before it was sent'],
      [muted.rcept_no, 'UNWATCHED', 'notifications of the company turned off before it was sent'],
      [keptAgain.rcept_no, 'SENT', null],
    ]);
    expect((await historyOf(user)).map((entry) => [entry.rcept_no, entry.title, entry.body, entry.outcome])).toEqual([
      [keptAgain.rcept_no, '관심 기업 새 공시 2건', '아라전자', 'sent'],
    ]);
  });

  it('re-checks a backed-off retry too: a signed-out token and a muted company get no second attempt', async () => {
    clock.set(MORNING);
    const [signsOut, mutes, stays] = [await watcher('00710011'), await watcher('00710011'), await watcher('00710011')];
    const unavailable: PushSendResult = { ok: false, failure: 'transient', error: 'messaging/server-unavailable: try later' };
    sender.answerEach(() => unavailable);
    const filing = await publish('00710011', '카라전자');
    await passAt(MORNING);
    for (const user of [signsOut, mutes, stays]) {
      expect(await deliveriesOf(user.userId)).toEqual([expect.objectContaining({ status: 'PENDING', attempts: 1 })]);
      expect(sentTo(user.token)).toHaveLength(1);
    }

    sender.answerEach(() => ({ ok: true }));
    await as(signsOut).delete('/api/v1/push/fcm-token', { fcm_token: signsOut.token }).expect(204);
    await as(mutes).patch('/api/v1/watchlist/00710011/notify', { notify_enabled: false }).expect(200);
    await passAt(new Date(MORNING.getTime() + 60_000));

    expect(sentTo(signsOut.token)).toHaveLength(1);
    expect(sentTo(mutes.token)).toHaveLength(1);
    expect(sentTo(stays.token)).toHaveLength(2);
    expect((await deliveriesOf(signsOut.userId)).map((row) => [row.status, row.attempts, row.last_error])).toEqual([
      ['TOKEN_GONE', 1, 'token deleted before it was sent'],
    ]);
    expect((await deliveriesOf(mutes.userId)).map((row) => [row.status, row.attempts, row.last_error])).toEqual([
      ['UNWATCHED', 1, 'notifications of the company turned off before it was sent'],
    ]);
    expect((await deliveriesOf(stays.userId)).map((row) => [row.rcept_no, row.status, row.attempts])).toEqual([
      [filing.rcept_no, 'SENT', 2],
    ]);
    // The history lists what reached a device (or may still): the dropped retries are not there.
    expect(await historyOf(mutes)).toEqual([]);
    expect((await historyOf(stays)).map((entry) => entry.outcome)).toEqual(['sent']);
  });

  it.each([
    ['claimed moments after its fan-out', 0],
    ['that waited two minutes behind a backlog (instances down)', 2],
  ])('re-checks a delivery %s, not only held ones', async (_case, waitedMinutes) => {
    clock.set(MORNING);
    const queue = t.app.get(PushDeliveriesRepository);
    const corpCode = waitedMinutes === 0 ? '00710015' : '00710014';
    const [signedOut, stays] = [await watcher(corpCode), await watcher(corpCode)];
    dispatcher().stop();
    await dispatcher().drain();
    const filing = await store(corpCode, '하늘전자');
    expect(await queue.expandNext(true)).toEqual({ rceptNo: filing.rcept_no, deliveries: 2, held: 0, done: true });
    // created_at is on the database clock.
    await t.dataSource.query("UPDATE push_deliveries SET created_at = created_at - $2 * interval '1 minute' WHERE rcept_no = $1", [
      filing.rcept_no,
      waitedMinutes,
    ]);
    await as(signedOut).delete('/api/v1/push/fcm-token', { fcm_token: signedOut.token }).expect(204);
    dispatcher().start();
    await passAt(MORNING);

    expect(sentTo(signedOut.token)).toEqual([]);
    expect(sentTo(stays.token).map((message) => message.data.rcept_no)).toEqual([filing.rcept_no]);
    expect((await deliveriesOf(signedOut.userId)).map((row) => [row.status, row.attempts, row.last_error])).toEqual([
      ['TOKEN_GONE', 0, 'token deleted before it was sent'],
    ]);
  });

  it('(e) sends again a batch whose sender died before recording it: same collapse identity, one history entry', async () => {
    clock.set(MORNING);
    const queue = t.app.get(PushDeliveriesRepository);
    const user = await watcher('00710012');
    const tablet = `held-release-ios-${user.userId}`;
    await t.dataSource.query("INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, 'ios')", [tablet, user.userId]);
    const signedOut = await watcher('00710012');

    // The running dispatcher would claim the deliveries itself: the dead instance's part is played by hand.
    dispatcher().stop();
    await dispatcher().drain();
    const filing = await store('00710012', '타라전자');
    expect(await queue.expandNext(true)).toEqual({ rceptNo: filing.rcept_no, deliveries: 3, held: 0, done: true });
    const claimed = await queue.claimBatch('dead-instance', 500);
    expect(claimed.map((delivery) => delivery.token).sort()).toEqual([user.token, tablet, signedOut.token].sort());
    // It handed the batch to FCM, then died before recording any answer.
    await sender.send(claimed.map((delivery) => newFilingMessage(delivery.token, delivery, delivery.text)));
    await as(signedOut).delete('/api/v1/push/fcm-token', { fcm_token: signedOut.token }).expect(204);
    dispatcher().start();

    // While the lease lasts (on the database clock), nothing is sent again.
    await passAt(MORNING);
    expect(sender.sendsPerToken(filing.rcept_no)).toEqual(
      new Map([
        [user.token, 1],
        [tablet, 1],
        [signedOut.token, 1],
      ]),
    );

    await t.dataSource.query(
      "UPDATE push_deliveries SET lease_expires_at = now() - interval '1 second' WHERE rcept_no = $1 AND status = 'SENDING'",
      [filing.rcept_no],
    );
    await passAt(MORNING);

    // Handed to the provider twice each (the signed-out token once: re-checked before the resend).
    expect(sender.sendsPerToken(filing.rcept_no)).toEqual(
      new Map([
        [user.token, 2],
        [tablet, 2],
        [signedOut.token, 1],
      ]),
    );
    for (const token of [user.token, tablet]) {
      const [firstCopy, secondCopy] = sentTo(token);
      expect(secondCopy).toEqual(firstCopy);
      expect(secondCopy.collapseKey).toBe(filing.rcept_no);
      // What FCM is given: the second copy replaces the first on the device (Android tag, APNs collapse id).
      const fcm = toFirebaseMessage(secondCopy, MORNING.getTime());
      expect(fcm.android?.notification?.tag).toBe(filing.rcept_no);
      expect(fcm.apns?.headers?.['apns-collapse-id']).toBe(filing.rcept_no);
    }
    expect((await deliveriesOf(user.userId)).map((row) => [row.fcm_token, row.status, row.attempts, row.last_error]).sort()).toEqual(
      [
        [user.token, 'SENT', 2, null],
        [tablet, 'SENT', 2, null],
      ].sort(),
    );
    expect((await deliveriesOf(signedOut.userId)).map((row) => [row.status, row.last_error])).toEqual([
      ['TOKEN_GONE', 'token deleted before it was sent'],
    ]);
    // One row per device, one history entry per filing: the resend doubles neither.
    expect((await historyOf(user)).map((entry) => [entry.rcept_no, entry.outcome])).toEqual([[filing.rcept_no, 'sent']]);

    // A late answer from the dead instance finds no lease of its own and is dropped.
    const late = await queue.record(
      'dead-instance',
      claimed.map((delivery) => ({
        ref: delivery.ref,
        rceptNo: delivery.rceptNo,
        token: delivery.token,
        status: 'UNREGISTERED' as const,
        availableAt: null,
        error: 'late',
        title: 'late',
        body: 'late',
      })),
    );
    expect(late).toEqual({ recorded: 0, tokensRemoved: 0 });
  });

  it('(e) abandons, rather than sends again, a delivery whose lease expired with its attempts spent', async () => {
    clock.set(MORNING);
    const queue = t.app.get(PushDeliveriesRepository);
    const user = await watcher('00710013');
    dispatcher().stop();
    await dispatcher().drain();
    const filing = await store('00710013', '파랑전자');
    await queue.expandNext(true);
    expect(await queue.claimBatch('dead-instance', 500)).toHaveLength(1);
    await t.dataSource.query(
      "UPDATE push_deliveries SET attempts = $2, lease_expires_at = now() - interval '1 second' WHERE rcept_no = $1 AND status = 'SENDING'",
      [filing.rcept_no, MAX_ATTEMPTS],
    );
    dispatcher().start();
    await passAt(MORNING);

    expect(sentTo(user.token)).toEqual([]);
    expect((await deliveriesOf(user.userId)).map((row) => [row.status, row.attempts, row.last_error])).toEqual([
      ['ABANDONED', MAX_ATTEMPTS, 'lease of dead-instance ended while sending; attempts spent, not sent again'],
    ]);
    expect((await historyOf(user)).map((entry) => entry.outcome)).toEqual(['abandoned']);
  });
});
