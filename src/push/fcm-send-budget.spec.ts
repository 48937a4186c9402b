import { Logger } from '@nestjs/common';
import { EnvReader } from '../config/env-reader';
import { FakeClock, settle } from '../../test/support/fake-clock';
import { FcmSendBudget, LATE_SEND_ALLOWANCE_MS, QUOTA_PAUSE_MS, sendPace } from './fcm-send-budget';
import type { BudgetTake, FcmSendBudgetRepository, SendPace } from './fcm-send-budget.repository';
import { pushConfig } from './push.config';

/** The budget's table, scripted: each take answers what the test queued (granted at once by default). */
class ScriptedStore {
  takes: Array<{ messages: number; pace: SendPace }> = [];
  pauses: number[] = [];
  next: BudgetTake[] = [];
  pauseAnswer: (ms: number) => Promise<number> = (ms) => Promise.resolve(ms);

  take(messages: number, pace: SendPace): Promise<BudgetTake> {
    this.takes.push({ messages, pace });
    return Promise.resolve(this.next.shift() ?? { granted: true, waitMs: 0 });
  }
  pause(ms: number): Promise<number> {
    this.pauses.push(ms);
    return this.pauseAnswer(ms);
  }
}

describe('sendPace', () => {
  it("keeps any rolling minute within FCM's default quota, less a second spare for late sends, and sends a million in about 100 s", () => {
    const pace = sendPace(600_000, 300_000);
    const burst = pace.burstMs / pace.msPerMessage;
    expect(burst).toBeCloseTo(5_000, 6);
    // At most the burst, then the rate, in any 60 s; what a second's sends would add still fits.
    const inAnyMinute = burst + 60_000 / pace.msPerMessage;
    expect(inAnyMinute + LATE_SEND_ALLOWANCE_MS / pace.msPerMessage).toBeCloseTo(600_000, 6);
    expect(inAnyMinute).toBeLessThan(600_000);
    // A million from an idle budget: the burst at once, the rest at the rate.
    const millionMs = (1_000_000 - burst) * pace.msPerMessage;
    expect(millionMs).toBeGreaterThan(100_000);
    expect(millionMs).toBeLessThan(103_000);
    expect(pace.maxWaitMs).toBe(150_000);
  });

  it('keeps at least one sendEach batch as the burst of a small quota', () => {
    const pace = sendPace(1_000, 1_000);
    expect(pace.burstMs / pace.msPerMessage).toBeCloseTo(500, 6);
    expect(500 + 61_000 / pace.msPerMessage).toBeCloseTo(1_000, 6);
    expect(pace.maxWaitMs).toBe(500);
  });
});

describe('FcmSendBudget', () => {
  let store: ScriptedStore;
  let time: FakeClock;
  let budget: FcmSendBudget;

  beforeEach(() => {
    store = new ScriptedStore();
    time = new FakeClock();
    budget = new FcmSendBudget(
      pushConfig(new EnvReader({ PUSH_MESSAGES_PER_MINUTE: '120000', PUSH_LEASE_MS: '60000' })),
      store as unknown as FcmSendBudgetRepository,
      time,
    );
  });
  afterEach(() => jest.restoreAllMocks());

  it('asks with the pace of PUSH_MESSAGES_PER_MINUTE and the lease', async () => {
    expect(await budget.acquire(500)).toEqual({ granted: true });
    expect(store.takes).toEqual([{ messages: 500, pace: sendPace(120_000, 60_000) }]);
  });

  it('waits once, on its clock, for the moment the fleet booked, without asking again', async () => {
    store.next = [{ granted: true, waitMs: 400 }];
    let granted = false;
    const acquiring = budget.acquire(500).then((permit) => (granted = permit.granted));
    await settle();
    expect(time.pendingSleeps()).toBe(1);

    await time.elapse(399);
    expect(granted).toBe(false);
    await time.elapse(1);
    await acquiring;
    expect(granted).toBe(true);
    expect(store.takes).toHaveLength(1);
    expect(budget.blockedForMs()).toBe(0);
  });

  it('is refused while the fleet is paused, and knows it is blocked until the pause ends', async () => {
    store.next = [{ granted: false, waitMs: 30_000, paused: true }];

    expect(await budget.acquire(500)).toEqual({ granted: false, retryInMs: 30_000, reason: 'paused' });
    expect(budget.blockedForMs()).toBe(30_000);

    let unblocked = false;
    const waiting = budget.whenUnblocked().then(() => (unblocked = true));
    await time.elapse(29_999);
    expect(unblocked).toBe(false);
    await time.elapse(1);
    await waiting;
    expect(budget.blockedForMs()).toBe(0);
  });

  it('is refused, blocked for a while, when the line is booked further ahead than a batch may wait', async () => {
    store.next = [{ granted: false, waitMs: 2_000, paused: false }];

    expect(await budget.acquire(500)).toEqual({ granted: false, retryInMs: 2_000, reason: 'busy' });
    expect(budget.blockedForMs()).toBe(2_000);
    time.advance(2_000);
    expect(budget.blockedForMs()).toBe(0);
  });

  it('does not send a batch whose moment came during a pause it heard of meanwhile', async () => {
    store.next = [{ granted: true, waitMs: 1_000 }];
    const acquiring = budget.acquire(500);
    await settle();

    expect(await budget.pause()).toBe(QUOTA_PAUSE_MS);
    await time.elapse(1_000);

    expect(await acquiring).toEqual({ granted: false, retryInMs: QUOTA_PAUSE_MS - 1_000, reason: 'paused' });
  });

  it('pauses the fleet for the retry time named, a minute without one, at most the longest push backoff', async () => {
    expect(await budget.pause(20_000)).toBe(20_000);
    expect(await budget.pause()).toBe(QUOTA_PAUSE_MS);
    expect(await budget.pause(24 * 60 * 60_000)).toBe(15 * 60_000);
    expect(store.pauses).toEqual([20_000, QUOTA_PAUSE_MS, 15 * 60_000]);
  });

  it("follows the fleet's pause when it ends later than the one asked", async () => {
    store.pauseAnswer = () => Promise.resolve(45_000);

    expect(await budget.pause(10_000)).toBe(45_000);
    expect(budget.blockedForMs()).toBe(45_000);
  });

  it('pauses alone when the pause cannot be stored for the fleet', async () => {
    store.pauseAnswer = () => Promise.reject(new Error('connection terminated'));
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    expect(await budget.pause(10_000)).toBe(10_000);
    expect(budget.blockedForMs()).toBe(10_000);
    expect(warned).toHaveBeenCalledWith(expect.objectContaining({ err: expect.any(Error) }), expect.stringContaining('pauses alone'));
  });
});
