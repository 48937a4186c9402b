import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { JobScheduler } from '../jobs/job-scheduler';
import type { WorkerPool } from '../jobs/worker-pool';
import { InjectConfig } from '../config/config.module';
import { Metrics, type PushOutcome } from '../metrics/metrics';
import { ANALYSIS_SETTLED } from '../analysis/analysis-events';
import { DISCLOSURE_CREATED, type DisclosureCreatedEvent } from '../disclosures/disclosure-events';
import { FcmSendBudget, type SendPermit } from './fcm-send-budget';
import { newFilingMessage } from './new-filing-message';
import { type ClaimedDelivery, type DeliveryOutcome, planOutcome, PushDeliveriesRepository } from './push-deliveries.repository';
import { isQuotaExceeded, MAX_MESSAGES_PER_SEND, type PushMessage, PushSender, type PushSendResult } from './push-sender';
import { noteFilings } from '../tracing/job-span';
import type { PushConfig } from './push.config';

/** How soon a batch held back because the send budget could not be read is claimed again. */
const BUDGET_UNAVAILABLE_RETRY_MS = 1_000;

/**
 * Sends new-filing notifications from the shared queue, always running (with push
 * disabled it only closes fan-outs). A new filing wakes it at once; a short poll
 * catches the rest. Each wake-up expands pending fan-outs, releases digests, puts back
 * deliveries whose lease expired, then keeps up to PUSH_CONCURRENCY batches of up to 500
 * messages with the provider. Each batch first waits for its turn in the fleet's FCM send
 * budget (FcmSendBudget); while the budget is paused after QUOTA_EXCEEDED nothing is claimed.
 * Several instances may run it against one database.
 */
@Injectable()
export class PushDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PushDispatcher.name);
  private readonly pool: WorkerPool<ClaimedDelivery[]>;

  constructor(
    @InjectConfig() private readonly config: PushConfig,
    private readonly queue: PushDeliveriesRepository,
    private readonly sender: PushSender,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    jobs: JobScheduler,
    private readonly budget: FcmSendBudget,
  ) {
    metrics.sources.pushBacklog = () => this.queue.backlog();
    // The queue's poll (other instances' filings, ended backoffs, expired leases) is in the job catalog.
    this.pool = jobs.queue<ClaimedDelivery[]>('push', {
      concurrency: config.push.concurrency,
      claim: async (workerId) => {
        const batch = await this.queue.claimBatch(workerId, MAX_MESSAGES_PER_SEND);
        return batch.length > 0 ? batch : null;
      },
      work: (batch) => this.deliver(batch),
      canClaim: () => this.sender.enabled && this.budgetAllows(),
      prepare: () => this.expand(),
      onClaimError: (error) => this.logger.error(`claiming push deliveries failed: ${describe(error)}`),
      // The answer could not be recorded: the deliveries stay SENDING and are sent again at lease expiry.
      onWorkError: (batch, error) => this.logger.error(`recording ${batch.length} push results failed: ${describe(error)}`),
    });
  }

  /** Set while a wake-up waits for the end of the budget's block. */
  private wakeAfterBlock = false;

  /** Identifies this instance's leases. */
  get workerId(): string {
    return this.pool.workerId;
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  /** Before the database closes: stop claiming, and let batches with the provider record their answers. */
  async beforeApplicationShutdown(): Promise<void> {
    // Waiting past the lease is pointless: the deliveries are then claimed again anyway.
    const unfinished = await this.pool.shutdown(this.config.push.leaseMs);
    if (unfinished > 0) {
      this.logger.warn(`${unfinished} push batch(es) still unanswered at shutdown: their deliveries are sent again when the lease expires`);
    }
  }

  start(): void {
    if (!this.pool.start()) return;
    if (this.sender.enabled) {
      this.logger.log(
        `push dispatcher running: up to ${this.config.push.concurrency} batches of ${MAX_MESSAGES_PER_SEND} at once, ` +
          `the fleet within ${this.config.push.messagesPerMinute.toLocaleString('en-US')} messages a minute`,
      );
    }
  }

  stop(): void {
    this.pool.stop();
  }

  /** Resolves when no expansion pass and no batch is in progress. */
  async drain(): Promise<void> {
    await this.pool.drain();
  }

  @OnEvent(DISCLOSURE_CREATED)
  onDisclosureCreated(event: DisclosureCreatedEvent): void {
    // Backfilled filings have no fan-out; everything else may.
    if (event.source !== 'backfill') this.wake();
  }

  /** A fan-out waiting for this filing's one-liner may go now; a fan-out whose wait ran out is found by the poll. */
  @OnEvent(ANALYSIS_SETTLED)
  onAnalysisSettled(): void {
    this.wake();
  }

  /** Runs an expansion pass now, or right after the one in progress, then fills the batch slots. */
  wake(): void {
    this.pool.wake();
  }

  /**
   * The pass before each fill: pending fan-outs become deliveries, held deliveries whose
   * quiet hours ended become digests, deliveries whose lease expired are put back.
   */
  private async expand(): Promise<void> {
    try {
      const enabled = this.sender.enabled;
      for (let fanout = await this.queue.expandNext(enabled); fanout !== null; fanout = await this.queue.expandNext(enabled)) {
        noteFilings([fanout.rceptNo]);
        if (enabled) {
          this.logger.debug(
            `filing ${fanout.rceptNo}: ${fanout.deliveries} push deliveries, ${fanout.held} held for quiet hours${fanout.done ? '' : ', more to come'}`,
          );
        }
        // A step's batches go out while the next step expands.
        this.pool.fill();
        if (!this.pool.isRunning) return;
      }
      if (!enabled) return;
      const digests = await this.queue.releaseDueDigests();
      if (digests > 0) this.logger.log(`quiet hours ended: ${digests} device(s) get their held pushes`);
      const { resent, abandoned } = await this.queue.reclaimExpired();
      if (resent + abandoned > 0) {
        this.logger.warn(
          `push sender's lease ended mid-send (expired, or its instance died): ${resent} deliveries to send again, ${abandoned} abandoned (attempts spent)`,
        );
      }
    } catch (error) {
      this.logger.error(`push dispatch pass failed: ${describe(error)}`);
    }
  }

  /** False while the budget is known to be blocked (paused, or booked too far ahead); the pool is woken when it ends. */
  private budgetAllows(): boolean {
    if (this.budget.blockedForMs() === 0) return true;
    if (!this.wakeAfterBlock) {
      this.wakeAfterBlock = true;
      void this.budget.whenUnblocked().then(() => {
        this.wakeAfterBlock = false;
        this.wake();
      });
    }
    return false;
  }

  private async deliver(batch: ClaimedDelivery[]): Promise<void> {
    noteFilings(batch.map((delivery) => delivery.rceptNo));
    const messages = batch.map((delivery) => newFilingMessage(delivery.token, delivery, delivery.text));
    let permit: SendPermit | { granted: false; retryInMs: number; reason: 'unavailable' };
    try {
      permit = await this.budget.acquire(messages.length);
    } catch (error) {
      this.logger.error(`the FCM send budget could not be read; ${batch.length} deliveries held back: ${describe(error)}`);
      permit = { granted: false, retryInMs: BUDGET_UNAVAILABLE_RETRY_MS, reason: 'unavailable' };
    }
    if (!permit.granted) return this.holdBack(batch, messages, permit);
    let results: PushSendResult[];
    try {
      results = await this.sender.send(messages);
      if (results.length !== messages.length) throw new Error(`${results.length} results for ${messages.length} messages`);
    } catch (error) {
      // The sender could not say what became of each message: try them all again later.
      const failed: PushSendResult = { ok: false, failure: 'transient', error: `push sender failed: ${describe(error)}` };
      results = messages.map(() => failed);
    }
    for (const result of results) this.metrics.pushMessages.inc({ outcome: outcomeOf(result) });
    const pausedMs = await this.pauseForQuota(results);
    const now = this.clock.nowMs();
    const outcomes = batch.map((delivery, i) => {
      const result = results[i];
      // The project's quota, not the message: it goes again once the pause ends, without spending an attempt.
      const outcome: DeliveryOutcome = isQuotaExceeded(result)
        ? { status: 'PENDING', availableAt: new Date(now + pausedMs), error: result.error, attemptRefunded: true }
        : planOutcome(result, delivery.attempts, this.config.push, now);
      return {
        ref: delivery.ref,
        rceptNo: delivery.rceptNo,
        token: delivery.token,
        title: messages[i].title,
        body: messages[i].body,
        ...outcome,
      };
    });
    const { recorded, tokensRemoved } = await this.queue.record(this.workerId, outcomes);
    if (recorded < outcomes.length) {
      this.logger.warn(`${outcomes.length - recorded} push results arrived after their lease was lost; dropped`);
    }
    const failed = outcomes.filter((outcome) => outcome.status !== 'SENT');
    if (failed.length > 0) {
      const retried = failed.filter((outcome) => outcome.status === 'PENDING').length;
      this.logger.warn(
        `push batch of ${outcomes.length}: ${outcomes.length - failed.length} sent, ${retried} to retry, ` +
          `${failed.length - retried} failed or unregistered (${tokensRemoved} tokens removed); first error: ${failed[0].error}`,
      );
    }
  }

  /**
   * QUOTA_EXCEEDED among the answers: the fleet pauses for the longest retry time named (or
   * the default pause). Answers how long the pause lasts from now; 0 without such an answer.
   */
  private async pauseForQuota(results: PushSendResult[]): Promise<number> {
    const refused = results.filter(isQuotaExceeded);
    if (refused.length === 0) return 0;
    const named = refused.map((result) => result.retryAfterMs).filter((ms): ms is number => ms !== undefined);
    const pausedMs = await this.budget.pause(named.length > 0 ? Math.max(...named) : undefined);
    this.logger.warn(
      `FCM answered QUOTA_EXCEEDED for ${refused.length} message(s): every instance pauses sending for ${Math.ceil(pausedMs / 1000)} s`,
    );
    return pausedMs;
  }

  /**
   * A claimed batch the budget did not let go: back to PENDING with its attempt given back, due
   * when the budget expects to allow it; the text it would have said is kept, as for a retry.
   */
  private async holdBack(
    batch: ClaimedDelivery[],
    messages: PushMessage[],
    permit: { retryInMs: number; reason: 'paused' | 'busy' | 'unavailable' },
  ): Promise<void> {
    const availableAt = new Date(this.clock.nowMs() + permit.retryInMs);
    const error = `not sent: ${HELD_BACK[permit.reason]}`;
    const { recorded } = await this.queue.record(
      this.workerId,
      batch.map((delivery, i) => ({
        ref: delivery.ref,
        rceptNo: delivery.rceptNo,
        token: delivery.token,
        title: messages[i].title,
        body: messages[i].body,
        status: 'PENDING' as const,
        availableAt,
        error,
        attemptRefunded: true,
      })),
    );
    if (permit.reason === 'busy') {
      this.logger.warn(
        `${recorded} push deliveries held back ${permit.retryInMs} ms: the fleet's FCM send budget is booked further ahead than a batch may wait`,
      );
    } else {
      this.logger.debug(`${recorded} push deliveries held back ${permit.retryInMs} ms: ${HELD_BACK[permit.reason]}`);
    }
  }
}

const HELD_BACK = {
  paused: 'FCM answered QUOTA_EXCEEDED; every instance pauses sending',
  busy: "the fleet's FCM send budget is booked too far ahead",
  unavailable: 'the FCM send budget could not be read',
} as const;

function outcomeOf(result: PushSendResult): PushOutcome {
  return result.ok ? 'sent' : result.failure;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
