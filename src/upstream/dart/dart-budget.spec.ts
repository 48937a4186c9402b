import { DART_PRIORITIES, LocalDartBudget, PUBLIC_READ_MAX_WAIT_MS, upstreamBusy } from './dart-budget';
import { DartError } from './dart.types';
import { FakeClock, settle } from '../../../test/support/fake-clock';
import { rejectionOf } from '../../../local/doubles/rejection';

const MINUTE = 60_000;
/** 12:00 in Korea. */
const NOON_KST = new Date('2026-03-10T03:00:00Z');
const NEXT_KST_MIDNIGHT = new Date('2026-03-10T15:00:00Z');

const refusalOf = (promise: Promise<unknown>) => rejectionOf(promise, DartError);

describe('LocalDartBudget', () => {
  let time: FakeClock;
  let wall: Date;
  const budgetOf = (requestsPerMinute: number, requestsPerDay: number, maxWaiting?: number) =>
    new LocalDartBudget({ requestsPerMinute, requestsPerDay, maxWaiting }, () => wall, time);

  beforeEach(() => {
    time = new FakeClock();
    wall = NOON_KST;
  });

  it('serves monitor, admin fetch, analysis documents, backfill, stock sync, then company reads', async () => {
    const budget = budgetOf(1, 100);
    await budget.acquire('monitor');
    const served: string[] = [];
    // Queued in the reverse of their priority; company reads would give up after 2 s, so none is queued here.
    const waiting = [...DART_PRIORITIES]
      .filter((priority) => priority !== 'companyRead')
      .reverse()
      .map((priority) => budget.acquire(priority).then(() => void served.push(priority)));
    await settle();
    for (let minute = 1; minute <= waiting.length; minute++) await time.elapseUntil(minute * MINUTE);
    await Promise.all(waiting);
    expect(served).toEqual(['monitor', 'adminFetch', 'analysisDocument', 'backfill', 'stockSync']);
  });

  it(`answers a company read that waits ${PUBLIC_READ_MAX_WAIT_MS} ms with BUSY and a retry hint; jobs keep waiting`, async () => {
    const budget = budgetOf(1, 100);
    await budget.acquire('monitor');
    const job = budget.acquire('stockSync');
    const read = refusalOf(budget.acquire('companyRead'));
    await time.elapse(PUBLIC_READ_MAX_WAIT_MS);
    const refusal = await read;
    expect(refusal).toMatchObject({ kind: 'budget', status: 'BUSY' });
    expect(refusal.retryAfterMs).toBeGreaterThan(0);
    expect(refusal.retryAfterMs).toBeLessThanOrEqual(2 * MINUTE);
    expect(budget.status().waiting).toBe(1);

    const answer = upstreamBusy(refusal);
    expect(answer).toMatchObject({ code: 'UPSTREAM_BUSY', status: 503 });
    expect(answer.retryAfterSeconds).toBe(Math.ceil(refusal.retryAfterMs! / 1000));

    await time.elapseUntil(MINUTE);
    await job;
  });

  it('refuses every priority at once when the day is spent, without queueing, until the next KST midnight', async () => {
    const budget = budgetOf(1000, 2);
    await budget.acquire('backfill');
    await budget.acquire('backfill');
    for (const priority of DART_PRIORITIES) {
      const refusal = await refusalOf(budget.acquire(priority));
      expect(refusal).toMatchObject({
        kind: 'budget',
        status: 'DAILY_LIMIT',
        retryAfterMs: NEXT_KST_MIDNIGHT.getTime() - NOON_KST.getTime(),
      });
    }
    expect(budget.status()).toEqual({
      dailyLimit: 2,
      usedToday: 2,
      exhaustedUntil: NEXT_KST_MIDNIGHT.toISOString(),
      minuteLimit: 1000,
      usedLastMinute: 2,
      waiting: 0,
    });
    wall = NEXT_KST_MIDNIGHT;
    await budget.acquire('companyRead');
    expect(budget.status()).toMatchObject({ usedToday: 1, exhaustedUntil: null });
  });

  it('lets company reads use a quarter of the day at most, keeping the rest for the jobs', async () => {
    const budget = budgetOf(1000, 8);
    await budget.acquire('companyRead');
    await budget.acquire('companyRead');
    expect(await refusalOf(budget.acquire('companyRead'))).toMatchObject({ kind: 'budget', status: 'DAILY_LIMIT' });
    expect(budget.status()).toMatchObject({ usedToday: 2, exhaustedUntil: null });
    for (let i = 0; i < 6; i++) await budget.acquire('stockSync');
    expect(budget.status()).toMatchObject({ usedToday: 8, exhaustedUntil: NEXT_KST_MIDNIGHT.toISOString() });
  });

  it('after a 020 refuses even callers that were already waiting for a minute slot', async () => {
    const budget = budgetOf(1, 20_000);
    await budget.acquire('monitor');
    const waiting = refusalOf(budget.acquire('analysisDocument'));
    await settle();
    budget.reportLimitReached();
    await time.elapseUntil(MINUTE);
    expect(await waiting).toMatchObject({ kind: 'budget', status: 'DAILY_LIMIT' });
    expect(budget.status()).toMatchObject({ usedToday: 1, exhaustedUntil: NEXT_KST_MIDNIGHT.toISOString() });
  });
});
