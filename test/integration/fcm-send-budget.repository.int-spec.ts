import { sendPace } from '../../src/push/fcm-send-budget';
import { type BudgetTake, FcmSendBudgetRepository, type SendPace } from '../../src/push/fcm-send-budget.repository';
import { FakeClock } from '../support/fake-clock';
import { useOwnerDatabase } from '../support/owner-database';

/** One message a millisecond, a burst of 1,000, a batch waits at most 10 s: every wait is easy to read. */
const EASY: SendPace = { msPerMessage: 1, burstMs: 1_000, maxWaitMs: 10_000 };

function waitOf(take: BudgetTake): number {
  if (!take.granted) throw new Error(`expected a grant, got ${JSON.stringify(take)}`);
  return take.waitMs;
}

/**
 * The statements of the fleet's FCM send budget against the real database: two repositories
 * on two pools stand for two instances sharing the budget. Their time is one FakeClock (what
 * PUSH_BUDGET_TIME gives them in tests), so every wait is exact.
 */
describe('FcmSendBudgetRepository', () => {
  const db = useOwnerDatabase({ poolSize: 10 });
  const clock = new FakeClock();
  let budget: FcmSendBudgetRepository;
  let other: FcmSendBudgetRepository;

  beforeAll(async () => {
    budget = new FcmSendBudgetRepository(db.dataSource, clock);
    other = new FcmSendBudgetRepository(await db.openPool(10), clock);
  });
  beforeEach(async () => {
    await db.dataSource.query('DELETE FROM fcm_send_budget');
  });

  it('lets a burst go at once, then books each batch its share of time after the one before', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) waits.push(waitOf(await budget.take(500, EASY)));

    // 1,000 messages of burst, then 500 ms for each batch of 500.
    expect(waits).toEqual([0, 0, 500, 1_000, 1_500]);
    expect(await db.dataSource.query('SELECT count(*)::int AS n FROM fcm_send_budget')).toEqual([{ n: 1 }]);
  });

  it('refills as time passes, never beyond the burst', async () => {
    for (let i = 0; i < 4; i++) await budget.take(500, EASY);
    // Booked 2,000 ms ahead: 1,000 ms later, a batch waits 500 ms (its 500 on top of the 1,000 still booked, less the burst).
    clock.advance(1_000);
    expect(waitOf(await budget.take(500, EASY))).toBe(500);

    clock.advance(60_000);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) waits.push(waitOf(await budget.take(500, EASY)));
    expect(waits).toEqual([0, 0, 500]);
  });

  it('refuses a batch that would wait longer than its limit, books nothing, and says when to ask again', async () => {
    const short: SendPace = { ...EASY, maxWaitMs: 1_000 };
    for (let i = 0; i < 4; i++) await budget.take(500, short);

    // The next would wait 1,500 ms: 500 ms too long.
    expect(await budget.take(500, short)).toEqual({ granted: false, waitMs: 500, paused: false });
    clock.advance(500);
    expect(await budget.take(500, short)).toEqual({ granted: true, waitMs: 1_000 });
  });

  it('refuses every batch while paused, never shortens a pause, and gives a full burst when it ends', async () => {
    for (let i = 0; i < 4; i++) await budget.take(500, EASY);
    expect(await budget.pause(30_000)).toBe(30_000);
    expect(await other.take(500, EASY)).toEqual({ granted: false, waitMs: 30_000, paused: true });

    clock.advance(10_000);
    expect(await other.take(500, EASY)).toEqual({ granted: false, waitMs: 20_000, paused: true });
    // A shorter pause asked meanwhile leaves the longer one in force.
    expect(await other.pause(5_000)).toBe(20_000);
    expect(await budget.pause(25_000)).toBe(25_000);

    clock.advance(25_000);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) waits.push(waitOf(await other.take(500, EASY)));
    expect(waits).toEqual([0, 0, 500]);
  });

  it('is one line for two instances asking at once: no two batches get the same moment', async () => {
    const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? budget : other).take(500, EASY)));

    const waits = takes.map(waitOf).sort((a, b) => a - b);
    expect(waits).toEqual([0, 0, ...Array.from({ length: 18 }, (_, i) => 500 * (i + 1))]);
  });

  it("keeps every rolling minute of a million messages within FCM's default quota, sent in about 100 s", async () => {
    const pace = sendPace(600_000, 300_000);
    // Four batch slots on each of two instances: each books its next batch as soon as it sent the last.
    const start = clock.monotonicMs();
    const slots = Array.from({ length: 8 }, (_, i) => ({ repository: i < 4 ? budget : other, nextAt: start }));
    const sends: Array<{ at: number; messages: number }> = [];
    let booked = 0;
    while (booked < 1_000_000) {
      const slot = slots.reduce((first, candidate) => (candidate.nextAt < first.nextAt ? candidate : first));
      clock.advance(slot.nextAt - clock.monotonicMs());
      const messages = Math.min(500, 1_000_000 - booked);
      const wait = waitOf(await slot.repository.take(messages, pace));
      booked += messages;
      sends.push({ at: clock.monotonicMs() - start + wait, messages });
      // Claiming the next batch takes a little while.
      slot.nextAt = clock.monotonicMs() + wait + 20;
    }

    sends.sort((a, b) => a.at - b.at);
    let most = 0;
    let inWindow = 0;
    for (let first = 0, last = 0; last < sends.length; last++) {
      inWindow += sends[last].messages;
      while (sends[first].at <= sends[last].at - 60_000) inWindow -= sends[first++].messages;
      most = Math.max(most, inWindow);
    }
    expect(most).toBeLessThanOrEqual(600_000 - Math.floor(1_000 / pace.msPerMessage));
    expect(most).toBeGreaterThan(580_000);
    expect(sends.at(-1)!.at).toBeGreaterThan(100_000);
    expect(sends.at(-1)!.at).toBeLessThan(103_000);
  });
});
