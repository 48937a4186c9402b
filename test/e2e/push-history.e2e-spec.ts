import request from 'supertest';
import { DisclosureMonitorService } from '../../src/disclosures/disclosure-monitor.service';
import { PushSender } from '../../src/push/push-sender';
import { RetentionService } from '../../src/retention/retention.service';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { bearerFor, createUser } from '../support/fixtures';
import { eventually, type SandboxedApp, startSandboxedApp } from '../support/sandboxed-app';
import { RELAXED_RATE_LIMITS } from '../support/test-app';

interface HistoryEntry {
  rcept_no: string;
  corp_code: string;
  title: string | null;
  body: string | null;
  sent_at: string | null;
  outcome: string;
}

describe('push history and retention', () => {
  const sender = new PushSenderDouble();
  let t: SandboxedApp;
  let alice: number;
  let corpCode: string;
  const published: string[] = [];

  beforeAll(async () => {
    t = await startSandboxedApp({
      sandbox: { filingsPerBusinessDay: 4 },
      app: { rateLimits: RELAXED_RATE_LIMITS, overrides: [{ provide: PushSender, useValue: sender }] },
    });
    await t.app.get(DisclosureMonitorService).pollOnce();
    corpCode = t.sandbox.control.companiesIn('Y')[1].corpCode;
    alice = await createUser(t.dataSource);
    await t.dataSource.query('INSERT INTO watch_stocks (user_id, corp_code, corp_name) VALUES ($1, $2, $3)', [alice, corpCode, 'watched']);
    // Two devices, one of which FCM refuses: each filing is still one entry, `sent`.
    await t.dataSource.query(
      "INSERT INTO push_tokens (fcm_token, user_id, platform) VALUES ('alice-phone', $1, 'ios'), ('alice-tablet', $1, 'android')",
      [alice],
    );
    sender.answerEach((message) =>
      message.token === 'alice-tablet' ? { ok: false, failure: 'rejected', error: 'SENDER_ID_MISMATCH' } : { ok: true },
    );
    for (let i = 0; i < 3; i++) {
      const filing = t.sandbox.control.publishFiling({ corp_code: corpCode });
      published.push(filing.rcept_no);
      await t.app.get(DisclosureMonitorService).pollOnce();
      await eventually(async () => sender.messages().filter((m) => m.data.rcept_no === filing.rcept_no).length === 2);
    }
    await eventually(async () => {
      const [{ n }] = await t.dataSource.query<{ n: number }[]>(
        "SELECT count(*)::int AS n FROM push_deliveries WHERE status IN ('PENDING', 'SENDING')",
      );
      return n === 0;
    });
  });
  afterAll(() => t?.close());

  const history = (userId: number, query = '') =>
    request(t.http).get(`/api/v1/push/history${query}`).set('Authorization', bearerFor(t, userId));

  it("lists the caller's notifications, one per filing whatever the devices, newest first, with what they said", async () => {
    const entries = (await history(alice).expect(200)).body as HistoryEntry[];
    expect(entries.map((entry) => entry.rcept_no)).toEqual([...published].reverse());
    const sent = sender.messages().find((message) => message.data.rcept_no === published[2] && message.token === 'alice-phone')!;
    expect(entries[0]).toMatchObject({ corp_code: corpCode, title: sent.title, body: sent.body, outcome: 'sent' });
    expect(Date.parse(entries[0].sent_at!)).not.toBeNaN();
  });

  it('pages by cursor, and shows nobody else', async () => {
    const first = (await history(alice, '?limit=2').expect(200)).body as HistoryEntry[];
    const rest = (await history(alice, `?limit=2&before=${first[1].rcept_no}`).expect(200)).body as HistoryEntry[];
    expect([...first, ...rest].map((entry) => entry.rcept_no)).toEqual([...published].reverse());
    const bob = await createUser(t.dataSource);
    expect((await history(bob).expect(200)).body).toEqual([]);
    expect((await history(alice, '?before=abc')).status).toBe(400);
    expect((await request(t.http).get('/api/v1/push/history')).status).toBe(401);
  });

  it('trims deliveries, store notifications and ad-reward records past 30 days, and keeps the rest', async () => {
    await t.dataSource.query("UPDATE push_deliveries SET created_at = now() - interval '31 days' WHERE rcept_no = $1", [published[0]]);
    await t.dataSource.query(
      `INSERT INTO store_notifications (platform, notification_id, received_at)
       VALUES ('ios', 'old', now() - interval '31 days'), ('ios', 'fresh', now())`,
    );
    await t.dataSource.query(
      `INSERT INTO ad_reward_transactions (transaction_id, user_id, granted_at)
       SELECT 'old-' || n, $1, now() - interval '40 days' FROM generate_series(1, 12000) AS n`,
      [alice],
    );
    await t.dataSource.query("INSERT INTO ad_reward_transactions (transaction_id, user_id) VALUES ('fresh', $1)", [alice]);

    const run = await t.app.get(RetentionService).runOnce();
    expect(run).toEqual({ pushDeliveries: 2, storeNotifications: 1, adRewardTransactions: 12000 });
    expect(((await history(alice).expect(200)).body as HistoryEntry[]).map((entry) => entry.rcept_no)).toEqual([
      published[2],
      published[1],
    ]);
    expect(await t.dataSource.query('SELECT notification_id FROM store_notifications')).toEqual([{ notification_id: 'fresh' }]);
    expect(await t.dataSource.query('SELECT transaction_id FROM ad_reward_transactions')).toEqual([{ transaction_id: 'fresh' }]);
    expect(await t.app.get(RetentionService).runOnce()).toEqual({ pushDeliveries: 0, storeNotifications: 0, adRewardTransactions: 0 });
  });
});
