import { Metrics } from '../metrics/metrics';
import { Logger } from '@nestjs/common';
import { EnvReader } from '../config/env-reader';
import { DisabledPushSender } from './disabled-push-sender';
import { FcmSendBudget, QUOTA_PAUSE_MS } from './fcm-send-budget';
import type { BudgetTake, FcmSendBudgetRepository } from './fcm-send-budget.repository';
import type { ClaimedDelivery, DeliveryOutcome, PushDeliveriesRepository } from './push-deliveries.repository';
import { PushDispatcher } from './push-dispatcher';
import type { PushMessage, PushSendResult } from './push-sender';
import { pushConfig } from './push.config';
import { PushSenderDouble } from '../../local/doubles/push-sender-double';
import { eventually } from '../../test/support/eventually';
import { FakeClock, settle } from '../../test/support/fake-clock';
import { queueOnlyJobScheduler } from '../../test/support/queue-only-job-scheduler';

type Recorded = DeliveryOutcome & { rceptNo: string; token: string };

/** The budget's table in memory: answers each take as told (granted at once by default), records the pauses. */
class ScriptedBudgetStore {
  takes: number[] = [];
  pauses: number[] = [];
  next: Array<BudgetTake | Error> = [];
  /** What a pause answers: the pause asked for, unless a test says the fleet's ends later. */
  fleetPauseMs?: number;

  take(messages: number): Promise<BudgetTake> {
    this.takes.push(messages);
    const answer = this.next.shift() ?? { granted: true, waitMs: 0 };
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }
  pause(ms: number): Promise<number> {
    this.pauses.push(ms);
    return Promise.resolve(this.fleetPauseMs ?? ms);
  }
}

/** The queue's contract in memory: pending fan-outs, due deliveries, recorded outcomes. */
class InMemoryQueue {
  fanouts: string[] = [];
  due: ClaimedDelivery[] = [];
  recorded: Recorded[] = [];
  expandCalls: boolean[] = [];
  claims: number[] = [];

  expandNext(createDeliveries: boolean) {
    this.expandCalls.push(createDeliveries);
    const rceptNo = this.fanouts.shift();
    return Promise.resolve(rceptNo === undefined ? null : { rceptNo, deliveries: 0, held: 0, done: true });
  }
  claimBatch(_worker: string, limit: number) {
    this.claims.push(limit);
    return Promise.resolve(this.due.splice(0, limit));
  }
  record(_worker: string, outcomes: Recorded[]) {
    this.recorded.push(...outcomes);
    return Promise.resolve({ recorded: outcomes.length, tokensRemoved: 0 });
  }
  releaseDueDigests() {
    return Promise.resolve(0);
  }
  /** What the next reclaim of expired leases answers; then nothing. */
  expired = { resent: 0, abandoned: 0 };
  reclaims = 0;
  reclaimExpired() {
    this.reclaims += 1;
    const expired = this.expired;
    this.expired = { resent: 0, abandoned: 0 };
    return Promise.resolve(expired);
  }
}

function deliveries(count: number): ClaimedDelivery[] {
  return Array.from({ length: count }, (_, i) => ({
    rceptNo: '20261120000123',
    corpCode: '00126380',
    corpName: '삼성전자',
    reportName: '분기보고서',
    oneLiner: null,
    ref: `(0,${i + 1})`,
    token: `token-${i}`,
    attempts: 1,
    text: null,
  }));
}

describe('PushDispatcher', () => {
  const now = Date.parse('2026-11-20T01:00:00Z');
  let queue: InMemoryQueue;
  let dispatcher: PushDispatcher | undefined;
  let metrics: Metrics;
  let budgetStore: ScriptedBudgetStore;
  /** The budget's time (PUSH_BUDGET_TIME), apart from the app's clock as in the server. */
  let budgetTime: FakeClock;

  beforeEach(() => {
    queue = new InMemoryQueue();
    metrics = new Metrics();
    budgetStore = new ScriptedBudgetStore();
    budgetTime = new FakeClock(new Date(now));
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await dispatcher?.beforeApplicationShutdown();
    dispatcher = undefined;
    jest.restoreAllMocks();
  });

  function start(sender: PushSenderDouble | DisabledPushSender, env: Record<string, string> = {}): PushDispatcher {
    const config = pushConfig(new EnvReader({ PUSH_CONCURRENCY: '2', PUSH_RETRY_BASE_MS: '1000', ...env }));
    dispatcher = new PushDispatcher(
      config,
      queue as unknown as PushDeliveriesRepository,
      sender,
      new FakeClock(new Date(now)),
      metrics,
      queueOnlyJobScheduler(),
      new FcmSendBudget(config, budgetStore as unknown as FcmSendBudgetRepository, budgetTime),
    );
    dispatcher.start();
    return dispatcher;
  }

  it('sends in batches of up to 500, never more than PUSH_CONCURRENCY at once, each delivery once', async () => {
    queue.due = deliveries(1700);
    const sender = new PushSenderDouble();
    let open = 0;
    let mostOpen = 0;
    sender.answerCalls(async (messages: PushMessage[]) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      // With the provider until every continuation already due has run: the other slot's claim and send among them.
      await settle();
      open -= 1;
      return messages.map((): PushSendResult => ({ ok: true }));
    });

    await start(sender).drain();

    expect(sender.calls.map((call) => call.length).sort((a, b) => a - b)).toEqual([200, 500, 500, 500]);
    expect(mostOpen).toBe(2);
    expect(new Set(sender.messages().map((m) => m.token)).size).toBe(1700);
    expect(queue.recorded).toHaveLength(1700);
    expect(queue.recorded.every((outcome) => outcome.status === 'SENT')).toBe(true);
    expect(queue.claims.every((limit) => limit === 500)).toBe(true);
    expect((await metrics.pushMessages.get()).values).toEqual([{ labels: { outcome: 'sent' }, value: 1700 }]);
  });

  it('counts each message by the outcome the sender gave it', async () => {
    queue.due = deliveries(4);
    const sender = new PushSenderDouble();
    const failures = ['unregistered', 'transient', 'rejected'] as const;
    sender.answerEach((message) => {
      const i = Number(message.token.slice('token-'.length));
      return i === 0 ? { ok: true } : { ok: false, failure: failures[i - 1], error: failures[i - 1] };
    });
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    await start(sender).drain();

    const counted = (await metrics.pushMessages.get()).values.map(({ labels, value }) => [labels.outcome, value]);
    expect(counted.sort()).toEqual([
      ['rejected', 1],
      ['sent', 1],
      ['transient', 1],
      ['unregistered', 1],
    ]);
  });

  it('puts a whole batch back with backoff when the sender throws', async () => {
    queue.due = deliveries(3);
    const sender = new PushSenderDouble();
    sender.answerCalls(() => {
      throw new Error('socket hang up');
    });

    await start(sender).drain();

    expect(queue.recorded).toEqual(
      deliveries(3).map((d) => ({
        ref: d.ref,
        rceptNo: d.rceptNo,
        token: d.token,
        status: 'PENDING',
        availableAt: new Date(now + 1000),
        error: 'push sender failed: socket hang up',
        // What the notification says is kept with its outcome (the push history).
        title: d.corpName,
        body: `새 공시: ${d.reportName}`,
      })),
    );
  });

  it('puts back the deliveries of expired leases before claiming, and says how many go again', async () => {
    queue.expired = { resent: 3, abandoned: 1 };
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    await start(new PushSenderDouble()).drain();

    expect(queue.reclaims).toBe(1);
    expect(warned.mock.calls.map(([line]) => String(line))).toEqual([
      "push sender's lease ended mid-send (expired, or its instance died): 3 deliveries to send again, 1 abandoned (attempts spent)",
    ]);
  });

  it('with push disabled only closes fan-outs: nothing is claimed or sent', async () => {
    queue.fanouts = ['20261120000001', '20261120000002'];
    queue.due = deliveries(2);

    await start(new DisabledPushSender()).drain();

    expect(queue.expandCalls).toEqual([false, false, false]);
    expect(queue.claims).toEqual([]);
    expect(queue.reclaims).toBe(0);
    expect(queue.due).toHaveLength(2);
  });

  it('claims nothing after stop, and waits at shutdown for the batch with the provider', async () => {
    queue.due = deliveries(600);
    const sender = new PushSenderDouble();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    sender.answerCalls(async (messages) => {
      await answered;
      return messages.map((): PushSendResult => ({ ok: true }));
    });
    const running = start(sender, { PUSH_CONCURRENCY: '1' });
    await eventually(() => sender.calls.length > 0);
    await settle();
    expect(sender.calls).toHaveLength(1);

    const shutdown = running.beforeApplicationShutdown();
    release();
    await shutdown;

    expect(queue.recorded).toHaveLength(500);
    expect(sender.calls).toHaveLength(1);
    expect(queue.due).toHaveLength(100);
    running.wake();
    await running.drain();
    expect(sender.calls).toHaveLength(1);
  });

  describe('the FCM send budget', () => {
    const quotaError = 'messaging/message-rate-exceeded: Quota exceeded for quota metric';

    it('books each batch and hands it over only once its moment has come, sleeping rather than asking again', async () => {
      queue.due = deliveries(700);
      budgetStore.next = [
        { granted: true, waitMs: 0 },
        { granted: true, waitMs: 250 },
      ];
      const sender = new PushSenderDouble();
      start(sender);

      await eventually(() => sender.calls.length === 1 && budgetTime.pendingSleeps() === 1);
      budgetTime.advance(249);
      await settle();
      expect(sender.calls).toHaveLength(1);
      budgetTime.advance(1);
      await dispatcher!.drain();

      expect(sender.calls.map((call) => call.length).sort((a, b) => a - b)).toEqual([200, 500]);
      expect(budgetStore.takes.sort((a, b) => a - b)).toEqual([200, 500]);
      expect(queue.recorded.every((outcome) => outcome.status === 'SENT')).toBe(true);
    });

    it('puts messages refused for the quota back without spending their attempt, and pauses the fleet for the retry time', async () => {
      queue.due = deliveries(3).map((delivery, i) => ({ ...delivery, attempts: i + 1 }));
      const sender = new PushSenderDouble();
      sender.answerEach((message, call): PushSendResult => {
        if (message.token === 'token-0' || call > 1) return { ok: true };
        return { ok: false, failure: 'transient', error: quotaError, retryAfterMs: message.token === 'token-1' ? 20_000 : 5_000 };
      });

      await start(sender).drain();

      expect(budgetStore.pauses).toEqual([20_000]);
      const byToken = new Map(queue.recorded.map((outcome) => [outcome.token, outcome]));
      expect(byToken.get('token-0')).toMatchObject({ status: 'SENT' });
      for (const token of ['token-1', 'token-2']) {
        expect(byToken.get(token)).toMatchObject({
          status: 'PENDING',
          availableAt: new Date(now + 20_000),
          error: quotaError,
          attemptRefunded: true,
        });
      }
      // Still counted as what FCM answered.
      const counted = (await metrics.pushMessages.get()).values.map(({ labels, value }) => [labels.outcome, value]);
      expect(counted.sort()).toEqual([
        ['sent', 1],
        ['transient', 2],
      ]);

      // Nothing is claimed until the pause ends; then the pool is woken by itself.
      queue.due = deliveries(2);
      const claims = queue.claims.length;
      dispatcher!.wake();
      await dispatcher!.drain();
      expect(queue.claims).toHaveLength(claims);
      await budgetTime.elapse(20_000);
      await eventually(() => sender.calls.length === 2);
      await dispatcher!.drain();
      expect(queue.recorded.slice(-2).every((outcome) => outcome.status === 'SENT')).toBe(true);
    });

    it('pauses for a minute when QUOTA_EXCEEDED names no retry time, and for longer when the fleet already is', async () => {
      queue.due = deliveries(1);
      const sender = new PushSenderDouble();
      sender.answerEach((): PushSendResult => ({ ok: false, failure: 'transient', error: quotaError }));
      budgetStore.fleetPauseMs = 75_000;

      await start(sender).drain();

      expect(budgetStore.pauses).toEqual([QUOTA_PAUSE_MS]);
      expect(queue.recorded).toEqual([
        expect.objectContaining({ status: 'PENDING', availableAt: new Date(now + 75_000), attemptRefunded: true }),
      ]);
    });

    it("does not pause for one device's own rate", async () => {
      queue.due = deliveries(1);
      const sender = new PushSenderDouble();
      sender.answerEach((): PushSendResult => ({
        ok: false,
        failure: 'transient',
        error: 'messaging/device-message-rate-exceeded: too many',
      }));

      await start(sender).drain();

      expect(budgetStore.pauses).toEqual([]);
      expect(queue.recorded).toEqual([expect.objectContaining({ status: 'PENDING', availableAt: new Date(now + 1000) })]);
      expect(queue.recorded[0].attemptRefunded).toBeUndefined();
    });

    it('holds a claimed batch back, attempt given back, while the fleet is paused, and claims again once the pause ends', async () => {
      queue.due = deliveries(2);
      budgetStore.next = [{ granted: false, waitMs: 30_000, paused: true }];
      const debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
      const sender = new PushSenderDouble();

      await start(sender).drain();

      expect(sender.calls).toHaveLength(0);
      expect(queue.recorded).toEqual(
        deliveries(2).map((d) =>
          expect.objectContaining({
            token: d.token,
            status: 'PENDING',
            availableAt: new Date(now + 30_000),
            error: expect.stringMatching(/^not sent: FCM answered QUOTA_EXCEEDED/),
            attemptRefunded: true,
          }),
        ),
      );
      expect(debug).toHaveBeenCalled();

      queue.due = deliveries(2);
      const claims = queue.claims.length;
      dispatcher!.wake();
      await dispatcher!.drain();
      expect(queue.claims).toHaveLength(claims);
      await budgetTime.elapse(29_999);
      expect(queue.claims).toHaveLength(claims);
      await budgetTime.elapse(1);
      await eventually(() => sender.calls.length === 1);
    });

    it('holds a claimed batch back for a second when the budget cannot be read', async () => {
      queue.due = deliveries(2);
      budgetStore.next = [new Error('connection terminated')];
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const sender = new PushSenderDouble();

      await start(sender).drain();

      expect(sender.calls).toHaveLength(0);
      expect(queue.recorded).toEqual(
        deliveries(2).map(() => expect.objectContaining({ status: 'PENDING', availableAt: new Date(now + 1000), attemptRefunded: true })),
      );
      expect(logged.mock.calls.map(([line]) => String(line))).toEqual([
        'the FCM send budget could not be read; 2 deliveries held back: connection terminated',
      ]);
    });
  });
});
