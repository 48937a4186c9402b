import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import { DisclosureMonitorService } from '../../src/disclosures/disclosure-monitor.service';
import { PushDeliveriesRepository } from '../../src/push/push-deliveries.repository';
import { PushDispatcher } from '../../src/push/push-dispatcher';
import { type PushMessage, PushSender, type PushSendResult } from '../../src/push/push-sender';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import type { SandboxCompany } from '../../local/dart-sandbox/dart-sandbox';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { FakeClock } from '../support/fake-clock';
import { createUser, createUsers } from '../support/fixtures';
import { ADMIN_KEY, eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';
import { PRODUCTION_ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** A sender double in place of FCM. */
const senderOverride = (sender: PushSender) => [{ provide: PushSender, useValue: sender }];

async function watch(db: DataSource, userId: number, corpCode: string, notify = true): Promise<void> {
  await db.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name, notify_enabled) VALUES ($1, $2, $3, $4)', [
    userId,
    corpCode,
    `company ${corpCode}`,
    notify,
  ]);
}

async function addToken(db: DataSource, userId: number, platform: 'ios' | 'android' = 'android'): Promise<string> {
  const token = `fcm-${platform}-${randomBytes(12).toString('hex')}`;
  await db.query('INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, $3)', [token, userId, platform]);
  return token;
}

/** `users` users watching `corpCode` with notifications on, two tokens each; answers the tokens. */
async function seedWatchers(db: DataSource, corpCode: string, users: number): Promise<string[]> {
  const ids = await createUsers(db, users);
  await db.query(`INSERT INTO watch_stocks (user_id, corp_code, corp_name) SELECT id, $2, 'bulk' FROM unnest($1::int[]) AS u(id)`, [
    ids,
    corpCode,
  ]);
  const tokens = await db.query<{ fcm_token: string }[]>(
    `INSERT INTO push_tokens (fcm_token, user_id, platform)
     SELECT 'bulk-' || $2::text || '-' || u.id || '-' || n, u.id, CASE n WHEN 1 THEN 'android' ELSE 'ios' END
     FROM unnest($1::int[]) AS u(id), generate_series(1, 2) AS n
     RETURNING fcm_token`,
    [ids, corpCode],
  );
  return tokens.map((row) => row.fcm_token);
}

interface DeliveryRow {
  fcm_token: string;
  user_id: number;
  status: string;
  attempts: number;
  available_at: Date | null;
  last_error: string | null;
  sent_at: Date | null;
}

/** The filing's deliveries by token (sorted here: the database's collation may order differently). */
const deliveriesOf = async (db: DataSource, rceptNo: string) =>
  (
    await db.query<DeliveryRow[]>(
      'SELECT fcm_token, user_id, status, attempts, available_at, last_error, sent_at FROM push_deliveries WHERE rcept_no = $1',
      [rceptNo],
    )
  ).sort((a, b) => (a.fcm_token < b.fcm_token ? -1 : 1));

/** Resolves once every fan-out written so far is expanded (e.g. today's filings stored before a test's watchers exist). */
const fanoutsDone = (db: DataSource) =>
  eventually(
    async () => (await db.query<{ n: number }[]>("SELECT count(*)::int AS n FROM push_fanouts WHERE status = 'PENDING'"))[0].n === 0,
  );

async function statusCounts(db: DataSource, rceptNo: string): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: number }[]>(
    'SELECT status, count(*)::int AS n FROM push_deliveries WHERE rcept_no = $1 GROUP BY status',
    [rceptNo],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

const fanoutOf = async (db: DataSource, rceptNo: string) =>
  (
    await db.query<{ status: string; deliveries: number | null }[]>('SELECT status, deliveries FROM push_fanouts WHERE rcept_no = $1', [
      rceptNo,
    ])
  )[0];

/** Waits until the filing's fan-out is expanded and none of its deliveries is still due or with a sender. */
const settled = (db: DataSource, rceptNo: string) =>
  eventually(async () => {
    const fanout = await fanoutOf(db, rceptNo);
    if (fanout?.status !== 'EXPANDED') return null;
    const rows = await deliveriesOf(db, rceptNo);
    return rows.every((row) => row.status !== 'PENDING' && row.status !== 'SENDING') ? rows : null;
  });

/** How many messages of `rceptNo` each token was handed, over every sender given. */
function sendsPerToken(rceptNo: string, ...senders: PushSenderDouble[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const sender of senders) {
    for (const [token, n] of sender.sendsPerToken(rceptNo)) counts.set(token, (counts.get(token) ?? 0) + n);
  }
  return counts;
}

const allOk = (messages: PushMessage[]): PushSendResult[] => messages.map(() => ({ ok: true }));

describe('new-filing push', () => {
  let t: SandboxedApp;
  let sender: PushSenderDouble;
  let monitor: DisclosureMonitorService;
  let dispatcher: PushDispatcher;
  let companies: SandboxCompany[];

  beforeAll(async () => {
    sender = new PushSenderDouble();
    t = await startSandboxedApp({
      sandbox: { filingsPerBusinessDay: 6 },
      app: { overrides: senderOverride(sender), env: { PUSH_MAX_ATTEMPTS: '3', PUSH_RETRY_BASE_MS: '60000' } },
    });
    monitor = t.app.get(DisclosureMonitorService);
    dispatcher = t.app.get(PushDispatcher);
    companies = [...t.sandbox.control.companiesIn('Y'), ...t.sandbox.control.companiesIn('K')];
    // Today's filings so far arrive before anyone watches anything.
    await monitor.pollOnce();
    await fanoutsDone(t.dataSource);
  });
  afterAll(() => t?.close());
  beforeEach(() => sender.answerCalls(allOk));

  const company = (() => {
    let next = 0;
    return () => companies[next++];
  })();

  /** A new filing of `corpCode` appears upstream and the monitor stores it. */
  async function newFiling(corpCode: string, reportName = '주요사항보고서(유상증자결정)'): Promise<DartFiling> {
    const filing = t.sandbox.control.publishFiling({ corp_code: corpCode, report_nm: reportName });
    expect(await monitor.pollOnce()).toEqual({ fetched: 1, saved: 1 });
    return filing;
  }

  it('reaches every token of every watcher with notifications on, once, with the filing and a Korean title and body', async () => {
    const [watched, other] = [company(), company()];
    const twoDevices = await createUser(t.dataSource);
    await watch(t.dataSource, twoDevices, watched.corpCode);
    const phone = await addToken(t.dataSource, twoDevices, 'android');
    const tablet = await addToken(t.dataSource, twoDevices, 'ios');
    const oneDevice = await createUser(t.dataSource);
    await watch(t.dataSource, oneDevice, watched.corpCode);
    const single = await addToken(t.dataSource, oneDevice, 'ios');
    // Not to be reached: notifications off, another company, no token, no watch.
    const muted = await createUser(t.dataSource);
    await watch(t.dataSource, muted, watched.corpCode, false);
    const mutedToken = await addToken(t.dataSource, muted);
    const elsewhere = await createUser(t.dataSource);
    await watch(t.dataSource, elsewhere, other.corpCode);
    const elsewhereToken = await addToken(t.dataSource, elsewhere);
    await watch(t.dataSource, await createUser(t.dataSource), watched.corpCode);
    const bystanderToken = await addToken(t.dataSource, await createUser(t.dataSource));

    const filing = await newFiling(watched.corpCode, '주요사항보고서(유상증자결정)');
    const rows = await settled(t.dataSource, filing.rcept_no);

    const reached = [phone, tablet, single].sort();
    expect(rows.map((row) => [row.fcm_token, row.status, row.attempts])).toEqual(reached.map((token) => [token, 'SENT', 1]));
    expect(rows.every((row) => row.sent_at !== null && row.last_error === null)).toBe(true);
    expect(Object.fromEntries(rows.map((row) => [row.fcm_token, row.user_id]))).toEqual({
      [phone]: twoDevices,
      [tablet]: twoDevices,
      [single]: oneDevice,
    });
    expect(await fanoutOf(t.dataSource, filing.rcept_no)).toEqual({ status: 'EXPANDED', deliveries: 3 });
    const messages = sender.messages().filter((message) => message.data.rcept_no === filing.rcept_no);
    expect(messages.map((message) => message.token).sort()).toEqual(reached);
    for (const message of messages) {
      expect(message).toEqual({
        token: message.token,
        title: filing.corp_name.trim(),
        body: '새 공시: 주요사항보고서(유상증자결정)',
        data: { rcept_no: filing.rcept_no, corp_code: watched.corpCode },
        collapseKey: filing.rcept_no,
      });
    }
    const unreached = new Set([mutedToken, elsewhereToken, bystanderToken]);
    expect(sender.messages().filter((message) => unreached.has(message.token))).toEqual([]);

    // Another pass finds nothing more to send.
    dispatcher.wake();
    await dispatcher.drain();
    expect([...sender.sendsPerToken(filing.rcept_no).values()]).toEqual([1, 1, 1]);
  });

  it('notifies of filings that an admin fetch finds for today, never of backfilled or past ones', async () => {
    const watched = company();
    const user = await createUser(t.dataSource);
    await watch(t.dataSource, user, watched.corpCode);
    const token = await addToken(t.dataSource, user);
    const today = t.sandbox.control.today();
    const pastDays = [...new Set(t.sandbox.control.filings().map((f) => f.rcept_dt))].filter((day) => day < today);
    const [fetchDay, backfillDay] = pastDays;
    const admin = (path: string) => request(t.http).post(`/api/v1/admin/${path}`).set('X-Admin-Key', ADMIN_KEY);

    const pastFetched = t.sandbox.control.publishFiling({ corp_code: watched.corpCode, rcept_dt: fetchDay, report_nm: '감사보고서' });
    const fetched = await admin('disclosures/fetch')
      .query({ beginDate: fetchDay, endDate: fetchDay, corpCode: watched.corpCode })
      .expect(201);
    expect(fetched.body.saved).toBeGreaterThanOrEqual(1);

    const backfilled = t.sandbox.control.publishFiling({ corp_code: watched.corpCode, rcept_dt: backfillDay, report_nm: '사업보고서' });
    await admin('backfill').query({ fromDate: backfillDay, toDate: backfillDay, delayMs: 0 }).expect(202);
    await eventually(async () => {
      const status = await request(t.http).get('/api/v1/admin/backfill/status').set('X-Admin-Key', ADMIN_KEY).expect(200);
      return status.body.status === 'completed';
    });

    const todays = t.sandbox.control.publishFiling({ corp_code: watched.corpCode, report_nm: '현금ㆍ현물배당결정' });
    await admin('disclosures/fetch').query({ beginDate: today, endDate: today, corpCode: watched.corpCode }).expect(201);
    await settled(t.dataSource, todays.rcept_no);
    expect(sender.sendsPerToken(todays.rcept_no)).toEqual(new Map([[token, 1]]));

    const stored = await t.dataSource.query<{ rcept_no: string }[]>('SELECT rcept_no FROM disclosures WHERE rcept_no = ANY($1)', [
      [pastFetched.rcept_no, backfilled.rcept_no],
    ]);
    expect(stored).toHaveLength(2);
    for (const old of [pastFetched, backfilled]) {
      expect(await fanoutOf(t.dataSource, old.rcept_no)).toBeUndefined();
      expect(await deliveriesOf(t.dataSource, old.rcept_no)).toEqual([]);
      expect(sender.sendsPerToken(old.rcept_no).size).toBe(0);
    }
  });

  it('deletes only a token reported UNREGISTERED; invalid-argument and sender-mismatch errors keep theirs, without retrying', async () => {
    const watched = company();
    const user = await createUser(t.dataSource);
    await watch(t.dataSource, user, watched.corpCode);
    const [gone, invalid, working] = [
      await addToken(t.dataSource, user),
      await addToken(t.dataSource, user),
      await addToken(t.dataSource, user, 'ios'),
    ];
    const otherUser = await createUser(t.dataSource);
    await watch(t.dataSource, otherUser, watched.corpCode);
    const mismatched = await addToken(t.dataSource, otherUser);
    const answers: Record<string, PushSendResult> = {
      [gone]: { ok: false, failure: 'unregistered', error: 'messaging/registration-token-not-registered: gone' },
      [invalid]: { ok: false, failure: 'rejected', error: 'messaging/invalid-argument: bad token' },
      [mismatched]: { ok: false, failure: 'rejected', error: 'messaging/mismatched-credential: SENDER_ID_MISMATCH' },
    };
    sender.answerEach((message) => answers[message.token] ?? { ok: true });

    const filing = await newFiling(watched.corpCode);
    const rows = await settled(t.dataSource, filing.rcept_no);

    expect(Object.fromEntries(rows.map((row) => [row.fcm_token, [row.status, row.last_error]]))).toEqual({
      [gone]: ['UNREGISTERED', 'messaging/registration-token-not-registered: gone'],
      [invalid]: ['FAILED', 'messaging/invalid-argument: bad token'],
      [mismatched]: ['FAILED', 'messaging/mismatched-credential: SENDER_ID_MISMATCH'],
      [working]: ['SENT', null],
    });
    const kept = await t.dataSource.query<{ fcm_token: string }[]>('SELECT fcm_token FROM push_tokens WHERE user_id = ANY($1)', [
      [user, otherUser],
    ]);
    expect(kept.map((row) => row.fcm_token).sort()).toEqual([invalid, working, mismatched].sort());

    // A refusal is final: much later, nothing is sent again.
    t.clock.advance(60 * 60_000);
    dispatcher.wake();
    await dispatcher.drain();
    expect(sender.sendsPerToken(filing.rcept_no)).toEqual(new Map([gone, invalid, mismatched, working].map((token) => [token, 1])));
  });

  it('hands a fan-out of 1,200 tokens to the sender in batches of at most 500, each token once', async () => {
    const watched = company();
    const tokens = await seedWatchers(t.dataSource, watched.corpCode, 600);

    const filing = await newFiling(watched.corpCode);
    const rows = await settled(t.dataSource, filing.rcept_no);

    expect(rows).toHaveLength(1200);
    expect(rows.every((row) => row.status === 'SENT')).toBe(true);
    const calls = sender.calls.filter((call) => call.some((message) => message.data.rcept_no === filing.rcept_no));
    // Concurrent claims may split the remainder; what holds is the ceiling of 500 per call.
    const sizes = calls.map((call) => call.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(1200);
    expect(sizes.filter((size) => size === 500).length).toBeGreaterThanOrEqual(1);
    const counts = sender.sendsPerToken(filing.rcept_no);
    expect([...counts.keys()].sort()).toEqual([...tokens].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });

  it('retries transient errors with exponential backoff, then sends; gives up after PUSH_MAX_ATTEMPTS and keeps the token', async () => {
    const watched = company();
    const user = await createUser(t.dataSource);
    await watch(t.dataSource, user, watched.corpCode);
    const [recovering, down] = [await addToken(t.dataSource, user), await addToken(t.dataSource, user, 'ios')];
    let recoveringFailures = 2;
    sender.answerEach((message) => {
      const unavailable: PushSendResult = { ok: false, failure: 'transient', error: 'messaging/server-unavailable: try later' };
      if (message.token === down) return unavailable;
      if (message.token === recovering && recoveringFailures-- > 0) return unavailable;
      return { ok: true };
    });
    const filing = await newFiling(watched.corpCode);
    const sends = () => sender.sendsPerToken(filing.rcept_no);
    const pass = async () => {
      dispatcher.wake();
      await dispatcher.drain();
    };
    const rows = async () => Object.fromEntries((await deliveriesOf(t.dataSource, filing.rcept_no)).map((row) => [row.fcm_token, row]));

    await eventually(async () => (await statusCounts(t.dataSource, filing.rcept_no)).PENDING === 2 && sends().size === 2);
    const firstTry = t.clock.nowMs();
    expect((await rows())[recovering]).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      last_error: 'messaging/server-unavailable: try later',
    });
    expect((await rows())[recovering].available_at!.getTime()).toBe(firstTry + 60_000);

    // Not before the backoff ends.
    t.clock.advance(59_000);
    await pass();
    expect(sends()).toEqual(
      new Map([
        [recovering, 1],
        [down, 1],
      ]),
    );

    t.clock.advance(1_000);
    await pass();
    expect(sends()).toEqual(
      new Map([
        [recovering, 2],
        [down, 2],
      ]),
    );
    // The second wait is twice as long.
    expect((await rows())[recovering]).toMatchObject({ status: 'PENDING', attempts: 2 });
    expect((await rows())[recovering].available_at!.getTime()).toBe(t.clock.nowMs() + 120_000);
    t.clock.advance(119_000);
    await pass();
    expect(sends().get(recovering)).toBe(2);

    t.clock.advance(1_000);
    await pass();
    expect(sends()).toEqual(
      new Map([
        [recovering, 3],
        [down, 3],
      ]),
    );
    const final = await rows();
    expect(final[recovering]).toMatchObject({ status: 'SENT', attempts: 3, last_error: null });
    expect(final[down]).toMatchObject({ status: 'FAILED', attempts: 3, last_error: 'messaging/server-unavailable: try later' });
    const tokens = await t.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM push_tokens WHERE user_id = $1', [user]);
    expect(tokens[0].n).toBe(2);

    t.clock.advance(60 * 60_000);
    await pass();
    expect(sends().get(down)).toBe(3);
  });
});

describe('new-filing push across restarts and instances', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const env = { PUSH_CONCURRENCY: '1', PUSH_LEASE_MS: '600000' };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
  });

  it('resumes a fan-out after a restart; the batch lost with a killed process is sent again once it stops beating, under its collapse key', async () => {
    const first = new PushSenderDouble();
    // The first batch is answered; during the second the process dies (no answer ever comes).
    first.answerCalls((messages, call) => (call === 1 ? allOk(messages) : new Promise<PushSendResult[]>(() => undefined)));
    const a = await startSandboxedApp({ sandbox: { filingsPerBusinessDay: 6 }, app: { database, overrides: senderOverride(first), env } });
    await a.app.get(DisclosureMonitorService).pollOnce();
    await fanoutsDone(a.dataSource);
    const corpCode = a.sandbox.control.companiesIn('Y')[0].corpCode;
    const tokens = await seedWatchers(a.dataSource, corpCode, 600);
    const filing = a.sandbox.control.publishFiling({ corp_code: corpCode, report_nm: '단일판매ㆍ공급계약체결' });
    await a.app.get(DisclosureMonitorService).pollOnce();

    await eventually(async () => first.calls.length === 2);
    expect(await statusCounts(a.dataSource, filing.rcept_no)).toEqual({ SENT: 500, SENDING: 500, PENDING: 200 });
    const deadWorker = a.app.get(PushDispatcher).workerId;
    const lostBatch = new Set(first.calls[1].map((message) => message.token));
    const [lostRow] = await a.dataSource.query<{ ref: string; fcm_token: string }[]>(
      "SELECT ctid::text AS ref, fcm_token FROM push_deliveries WHERE rcept_no = $1 AND status = 'SENDING' LIMIT 1",
      [filing.rcept_no],
    );
    await a.close();

    const second = new PushSenderDouble();
    const b = await startTestApp({ database, clock: new FakeClock(a.clock.now()), overrides: senderOverride(second), env });
    apps.push(b);
    // What was still waiting is simply sent.
    await eventually(async () => (await statusCounts(b.dataSource, filing.rcept_no)).SENT === 700);
    expect(second.messages()).toHaveLength(200);
    expect(await statusCounts(b.dataSource, filing.rcept_no)).toEqual({ SENT: 700, SENDING: 500 });

    // A clean close deleted the first process's row in fleet_instances, so its lease waits for expiry (five minutes)
    // and nothing is sent again yet. Killed with kill -9 the row stays and stops beating: once it is older than
    // LEADER_TAKEOVER_MS the batch goes again without waiting for its lease. FCM may or may not have taken it.
    b.app.get(PushDispatcher).wake();
    await b.app.get(PushDispatcher).drain();
    expect(await statusCounts(b.dataSource, filing.rcept_no)).toEqual({ SENT: 700, SENDING: 500 });
    await b.dataSource.query(
      "INSERT INTO fleet_instances (id, host, pid, heartbeat_at) VALUES ($1, 'killed', 1, now() - interval '1 minute')",
      [deadWorker],
    );
    // The second process judges others dead once its own heartbeats have gone on for LEADER_TAKEOVER_MS (30 s).
    b.clock.advance(30_000);
    b.app.get(PushDispatcher).wake();
    await b.app.get(PushDispatcher).drain();
    expect(await statusCounts(b.dataSource, filing.rcept_no)).toEqual({ SENT: 1200 });
    expect(second.messages()).toHaveLength(700);

    // Every token reached; the lost batch's twice, with the same collapse key (the device shows one).
    const counts = sendsPerToken(filing.rcept_no, first, second);
    expect([...counts.keys()].sort()).toEqual([...tokens].sort());
    expect([...counts].every(([token, n]) => n === (lostBatch.has(token) ? 2 : 1))).toBe(true);
    expect(new Set(second.messages().map((message) => message.collapseKey))).toEqual(new Set([filing.rcept_no]));

    // An answer arriving from the dead process now would be dropped.
    const late = await b.app.get(PushDeliveriesRepository).record(deadWorker, [
      {
        ref: lostRow.ref,
        rceptNo: filing.rcept_no,
        token: lostRow.fcm_token,
        status: 'UNREGISTERED',
        availableAt: null,
        error: 'late',
        title: 'late',
        body: 'late',
      },
    ]);
    expect(late).toEqual({ recorded: 0, tokensRemoved: 0 });
    expect(await statusCounts(b.dataSource, filing.rcept_no)).toEqual({ SENT: 1200 });

    // Only the instances of the next test share this database.
    apps.splice(apps.indexOf(b), 1);
    await b.close();
  });

  it('shares one fan-out between instances: every token once, sent by both', async () => {
    const senders = [new PushSenderDouble(), new PushSenderDouble()];
    // Each instance's first batch waits until the other instance sends too, so both must take part.
    let bothSending!: () => void;
    const together = new Promise<void>((resolve) => (bothSending = resolve));
    for (const sender of senders) {
      sender.answerCalls(async (messages) => {
        if (senders.every((each) => each.calls.length > 0)) bothSending();
        await together;
        return allOk(messages);
      });
    }
    const [x, y] = await Promise.all(
      senders.map((sender) => startTestApp({ database, overrides: senderOverride(sender), env: { PUSH_CONCURRENCY: '2' } })),
    );
    apps.push(x, y);
    const corpCode = '09999999';
    const tokens = await seedWatchers(x.dataSource, corpCode, 1500);
    const filing: DartFiling = {
      rcept_no: `${x.clock.now().toISOString().slice(0, 10).replace(/-/g, '')}900001`,
      corp_code: corpCode,
      corp_name: '동시상사',
      stock_code: '999990',
      corp_cls: 'Y',
      report_nm: '분기보고서',
      rcept_dt: x.clock.now().toISOString().slice(0, 10).replace(/-/g, ''),
      flr_nm: '동시상사',
      rm: '',
    };

    await x.app.get(DisclosureIngestService).saveNew([filing], 'monitor');
    y.app.get(PushDispatcher).wake();

    const rows = await settled(x.dataSource, filing.rcept_no);
    expect(rows).toHaveLength(3000);
    expect(rows.every((row) => row.status === 'SENT')).toBe(true);
    const counts = sendsPerToken(filing.rcept_no, ...senders);
    expect([...counts.keys()].sort()).toEqual([...tokens].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(senders.map((sender) => sender.messages().length).every((n) => n > 0)).toBe(true);
  });

  it('expands PUSH_EXPANSION_USERS watchers per transaction, recording each step, so a restart between steps repeats and skips no one', async () => {
    // The instances of the earlier tests would send the deliveries of the steps taken by hand (they poll every 2 s).
    for (const app of apps.splice(0)) await app.close();
    const stepped = await startTestApp({
      database,
      overrides: senderOverride(new PushSenderDouble()),
      env: { ...env, PUSH_EXPANSION_USERS: '7' },
    });
    apps.push(stepped);
    // Steps are taken by hand here: the dispatcher would take them all at once.
    stepped.app.get(PushDispatcher).stop();
    const corpCode = '09999998';
    const tokens = await seedWatchers(stepped.dataSource, corpCode, 20);
    const users = (
      await stepped.dataSource.query<{ user_id: number }[]>('SELECT user_id FROM watch_stocks WHERE corp_code = $1 ORDER BY user_id', [
        corpCode,
      ])
    ).map((row) => row.user_id);
    const today = stepped.clock.now().toISOString().slice(0, 10).replace(/-/g, '');
    const filing: DartFiling = {
      rcept_no: `${today}900002`,
      corp_code: corpCode,
      corp_name: '단계상사',
      stock_code: '999980',
      corp_cls: 'Y',
      report_nm: '분기보고서',
      rcept_dt: today,
      flr_nm: '단계상사',
      rm: '',
    };
    await stepped.app.get(DisclosureIngestService).saveNew([filing], 'monitor');

    const queue = stepped.app.get(PushDeliveriesRepository);
    expect(await queue.expandNext(true)).toEqual({ rceptNo: filing.rcept_no, deliveries: 14, held: 0, done: false });
    expect(await queue.expandNext(true)).toEqual({ rceptNo: filing.rcept_no, deliveries: 14, held: 0, done: false });
    const [progress] = await stepped.dataSource.query<{ status: string; deliveries: number; expanded_through_user: number }[]>(
      'SELECT status, deliveries, expanded_through_user FROM push_fanouts WHERE rcept_no = $1',
      [filing.rcept_no],
    );
    expect(progress).toEqual({ status: 'PENDING', deliveries: 28, expanded_through_user: users[13] });
    await stepped.close();
    apps.splice(apps.indexOf(stepped), 1);

    // The next instance goes on after user 14, and sends each token once.
    const sender = new PushSenderDouble();
    const resumed = await startTestApp({ database, overrides: senderOverride(sender), env: { ...env, PUSH_EXPANSION_USERS: '7' } });
    apps.push(resumed);
    resumed.app.get(PushDispatcher).wake();
    const rows = await settled(resumed.dataSource, filing.rcept_no);
    expect(rows.map((row) => row.fcm_token).sort()).toEqual([...tokens].sort());
    expect(rows.every((row) => row.status === 'SENT')).toBe(true);
    expect(await fanoutOf(resumed.dataSource, filing.rcept_no)).toEqual({ status: 'EXPANDED', deliveries: 40 });
    // The first instance's 28 deliveries and the rest: all sent by the one that was running.
    expect([...sendsPerToken(filing.rcept_no, sender).values()]).toEqual(tokens.map(() => 1));
  });
});

describe('new-filing push without FIREBASE_SERVICE_ACCOUNT in production', () => {
  let t: SandboxedApp;
  let logged: jest.SpyInstance;
  let debugged: jest.SpyInstance;

  beforeAll(async () => {
    logged = jest.spyOn(Logger.prototype, 'log');
    debugged = jest.spyOn(Logger.prototype, 'debug');
    t = await startSandboxedApp({
      sandbox: { filingsPerBusinessDay: 6 },
      app: { env: { APP_ENV: 'production', ADMIN_KEY: PRODUCTION_ADMIN_KEY } },
    });
    await t.app.get(DisclosureMonitorService).pollOnce();
    await fanoutsDone(t.dataSource);
  });
  afterAll(async () => {
    await t?.close();
    logged.mockRestore();
    debugged.mockRestore();
  });

  /** What the push loggers said (Nest's own lines, such as module and route names, have other contexts). */
  const pushLines = () =>
    logged.mock.calls
      .filter((_, i) => ['Push', PushDispatcher.name].includes((logged.mock.contexts[i] as { context?: string }).context ?? ''))
      .map(([line]) => String(line));

  it('is off: said once at start (at debug: the start summary says it at info), and a watched filing creates no deliveries', async () => {
    expect(pushLines()).toEqual([]);
    expect(debugged.mock.calls.map(([line]) => String(line))).toContain(
      'FIREBASE_SERVICE_ACCOUNT is not set: new-filing push notifications are off',
    );

    const corpCode = t.sandbox.control.companiesIn('Y')[0].corpCode;
    const user = await createUser(t.dataSource);
    await watch(t.dataSource, user, corpCode);
    await addToken(t.dataSource, user);
    const filing = t.sandbox.control.publishFiling({ corp_code: corpCode });
    expect((await t.app.get(DisclosureMonitorService).pollOnce()).saved).toBe(1);

    expect(await eventually(async () => (await fanoutOf(t.dataSource, filing.rcept_no))?.status === 'EXPANDED')).toBe(true);
    expect(await fanoutOf(t.dataSource, filing.rcept_no)).toEqual({ status: 'EXPANDED', deliveries: 0 });
    expect(await t.dataSource.query('SELECT * FROM push_deliveries')).toEqual([]);
    expect(pushLines()).toHaveLength(0);
  });

  it('has no message list: the route answers exactly as an unknown one, even with the admin key', async () => {
    const listed = await request(t.http).get('/api/v1/admin/push/messages').set('X-Admin-Key', PRODUCTION_ADMIN_KEY);
    const unknown = await request(t.http).get('/api/v1/admin/push/nothing').set('X-Admin-Key', PRODUCTION_ADMIN_KEY);
    expect(listed.status).toBe(404);
    expect(listed.body).toEqual({ ...unknown.body, message: 'Cannot GET /api/v1/admin/push/messages' });
    expect((await request(t.http).get('/api/v1/admin/push/messages')).status).toBe(404);
  });
});

describe('new-filing push without FIREBASE_SERVICE_ACCOUNT in local and dev: the recording sender', () => {
  let t: SandboxedApp;
  let logged: jest.SpyInstance;

  beforeAll(async () => {
    logged = jest.spyOn(Logger.prototype, 'debug');
    t = await startSandboxedApp({ sandbox: { filingsPerBusinessDay: 6 }, app: { env: { APP_ENV: 'dev' } } });
    await t.app.get(DisclosureMonitorService).pollOnce();
    await fanoutsDone(t.dataSource);
  });
  afterAll(async () => {
    await t?.close();
    logged.mockRestore();
  });

  const list = (query = '') => request(t.http).get(`/api/v1/admin/push/messages${query}`).set('X-Admin-Key', ADMIN_KEY);

  it('says so once at start (at debug: the start summary says it at info)', () => {
    const lines = logged.mock.calls.filter((_, i) => (logged.mock.contexts[i] as { context?: string }).context === 'Push');
    expect(lines.map(([line]) => String(line))).toEqual([
      'FIREBASE_SERVICE_ACCOUNT is not set: new-filing pushes are RECORDED, not sent (GET /api/v1/admin/push/messages)',
    ]);
  });

  it('records each message of a watched filing, lists them newest first, and answers UNREGISTERED for unregistered- tokens', async () => {
    const company = t.sandbox.control.companiesIn('Y')[1];
    const user = await createUser(t.dataSource);
    await watch(t.dataSource, user, company.corpCode);
    const kept = await addToken(t.dataSource, user, 'android');
    const gone = `unregistered-${randomBytes(6).toString('hex')}`;
    await t.dataSource.query("INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ($1, $2, 'ios')", [gone, user]);

    const first = t.sandbox.control.publishFiling({ corp_code: company.corpCode });
    expect((await t.app.get(DisclosureMonitorService).pollOnce()).saved).toBe(1);
    await eventually(async () => (await statusCounts(t.dataSource, first.rcept_no)).SENT === 1);
    await eventually(async () => (await statusCounts(t.dataSource, first.rcept_no)).UNREGISTERED === 1);
    // The cleanup the recording sender lets you watch: the unregistered token is deleted, the other kept.
    const tokens = await t.dataSource.query<{ fcm_token: string }[]>('SELECT fcm_token FROM push_tokens WHERE user_id = $1', [user]);
    expect(tokens.map((row) => row.fcm_token)).toEqual([kept]);

    const second = t.sandbox.control.publishFiling({ corp_code: company.corpCode });
    expect((await t.app.get(DisclosureMonitorService).pollOnce()).saved).toBe(1);
    await eventually(async () => (await statusCounts(t.dataSource, second.rcept_no)).SENT === 1);

    const response = await list('?limit=3');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(3);
    const [newest, ...older] = response.body as Array<Record<string, unknown>>;
    expect(newest).toEqual({
      fcm_token: kept,
      platform: 'android',
      title: company.corpName,
      body: `새 공시: ${second.report_nm}`,
      data: { rcept_no: second.rcept_no, corp_code: company.corpCode },
      outcome: 'sent',
      recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(older.map((m) => [m.fcm_token, m.platform, m.outcome, (m.data as { rcept_no: string }).rcept_no]).sort()).toEqual(
      [
        [gone, 'ios', 'unregistered', first.rcept_no],
        [kept, 'android', 'sent', first.rcept_no],
      ].sort(),
    );
    expect((await list('?limit=1')).body).toEqual([newest]);
  });

  it('is an operator route: 401 without the key, 400 for a limit that is not a number', async () => {
    const anonymous = await request(t.http).get('/api/v1/admin/push/messages');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHORIZED');
    const bad = await list('?limit=many');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
  });
});
