import type { DataSource } from 'typeorm';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { DisclosureIngestService } from '../../src/disclosures/disclosure-ingest.service';
import { QUOTA_PAUSE_MS } from '../../src/push/fcm-send-budget';
import { PUSH_BUDGET_TIME } from '../../src/push/fcm-send-budget.repository';
import { PushDispatcher } from '../../src/push/push-dispatcher';
import { PushSender, type PushSendResult } from '../../src/push/push-sender';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { eventually } from '../support/eventually';
import { FakeClock } from '../support/fake-clock';
import { createUsers } from '../support/fixtures';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const CORP_CODE = '09999997';

interface Row {
  fcm_token: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

const deliveries = (db: DataSource, rceptNo: string) =>
  db.query<Row[]>('SELECT fcm_token, status, attempts, last_error FROM push_deliveries WHERE rcept_no = $1', [rceptNo]);

/**
 * FCM's quota through the whole service, on two instances sharing one database: a
 * QUOTA_EXCEEDED answer spends no attempt (PUSH_MAX_ATTEMPTS=1 would otherwise end the
 * deliveries FAILED) and pauses the sending of every instance, stored with the budget; once
 * the pause ends, each token gets its message once. The budget's time (PUSH_BUDGET_TIME) is
 * one FakeClock for both, apart from each app's Clock, which judges when deliveries are due.
 */
describe('the FCM send budget across the fleet', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const budgetTime = new FakeClock();

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
  });

  const start = async (sender: PushSender) => {
    const app = await startTestApp({
      database,
      env: { PUSH_MAX_ATTEMPTS: '1' },
      overrides: [
        { provide: PushSender, useValue: sender },
        { provide: PUSH_BUDGET_TIME, useValue: budgetTime },
      ],
    });
    apps.push(app);
    return app;
  };

  it('pauses every instance after QUOTA_EXCEEDED and sends each message once when the pause ends, attempts unspent', async () => {
    // The first call is refused for the quota, as FCM does past its minute's quota (no retry time); then all goes.
    const accepted = new Map<string, number>();
    const answer = (sender: PushSenderDouble, refuseFirst: boolean) =>
      sender.answerEach((message, call): PushSendResult => {
        if (refuseFirst && call === 1) return { ok: false, failure: 'transient', error: 'messaging/message-rate-exceeded: Quota exceeded' };
        accepted.set(message.token, (accepted.get(message.token) ?? 0) + 1);
        return { ok: true };
      });
    const first = new PushSenderDouble();
    answer(first, true);
    const a = await start(first);
    const ids = await createUsers(a.dataSource, 3);
    await a.dataSource.query(
      `INSERT INTO watch_stocks (user_id, corp_code, corp_name) SELECT id, $2, 'quota' FROM unnest($1::int[]) AS u(id)`,
      [ids, CORP_CODE],
    );
    const tokens = (
      await a.dataSource.query<{ fcm_token: string }[]>(
        `INSERT INTO push_tokens (fcm_token, user_id, platform)
         SELECT 'quota-' || u.id || '-' || n, u.id, 'android' FROM unnest($1::int[]) AS u(id), generate_series(1, 2) AS n
         RETURNING fcm_token`,
        [ids],
      )
    ).map((row) => row.fcm_token);
    const today = a.clock.now().toISOString().slice(0, 10).replace(/-/g, '');
    const filing: DartFiling = {
      rcept_no: `${today}900011`,
      corp_code: CORP_CODE,
      corp_name: '쿼터상사',
      stock_code: '999970',
      corp_cls: 'Y',
      report_nm: '분기보고서',
      rcept_dt: today,
      flr_nm: '쿼터상사',
      rm: '',
    };

    await a.app.get(DisclosureIngestService).saveNew([filing], 'monitor');

    // Refused: back to PENDING, the attempt given back, not FAILED although PUSH_MAX_ATTEMPTS is 1.
    const refused = await eventually(async () => {
      const rows = await deliveries(a.dataSource, filing.rcept_no);
      return rows.length === tokens.length && rows.every((row) => row.last_error !== null) ? rows : null;
    });
    expect(
      refused.every(
        (row) => row.status === 'PENDING' && row.attempts === 0 && row.last_error!.startsWith('messaging/message-rate-exceeded'),
      ),
    ).toBe(true);
    expect(first.calls).toHaveLength(1);
    const [stored] = await a.dataSource.query<{ paused_until: Date }[]>('SELECT paused_until FROM fcm_send_budget');
    expect(stored.paused_until.getTime()).toBe(budgetTime.nowMs() + QUOTA_PAUSE_MS);

    // Another instance, started now, learns the pause from the database: it holds the due batch back, unsent.
    const second = new PushSenderDouble();
    answer(second, false);
    const b = await start(second);
    for (const app of apps) app.clock.advance(QUOTA_PAUSE_MS + 1_000);
    b.app.get(PushDispatcher).wake();
    a.app.get(PushDispatcher).wake();
    const held = await eventually(async () => {
      const rows = await deliveries(b.dataSource, filing.rcept_no);
      return rows.every((row) => row.last_error?.startsWith('not sent: FCM answered QUOTA_EXCEEDED')) ? rows : null;
    });
    expect(held.every((row) => row.status === 'PENDING' && row.attempts === 0)).toBe(true);
    await Promise.all(apps.map((app) => app.app.get(PushDispatcher).drain()));
    expect(second.calls).toHaveLength(0);
    expect(first.calls).toHaveLength(1);

    // The pause ends: both instances are woken by themselves, and every token gets its message once.
    for (const app of apps) app.clock.advance(QUOTA_PAUSE_MS + 1_000);
    budgetTime.advance(QUOTA_PAUSE_MS);
    const sent = await eventually(async () => {
      const rows = await deliveries(a.dataSource, filing.rcept_no);
      return rows.every((row) => row.status === 'SENT') ? rows : null;
    });
    expect(sent.every((row) => row.attempts === 1)).toBe(true);
    expect([...accepted.keys()].sort()).toEqual([...tokens].sort());
    expect([...accepted.values()].every((n) => n === 1)).toBe(true);
  });
});
