import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import { JobScheduler } from '../jobs/job-scheduler';
import type { WorkerPool } from '../jobs/worker-pool';
import { InjectConfig } from '../config/config.module';
import { Metrics, type PushOutcome } from '../metrics/metrics';
import { ANALYSIS_SETTLED } from '../analysis/analysis-events';
import { DISCLOSURE_CREATED, type DisclosureCreatedEvent } from '../disclosures/disclosure-events';
import { newFilingMessage } from './new-filing-message';
import { type ClaimedDelivery, planOutcome, PushDeliveriesRepository } from './push-deliveries.repository';
import { MAX_MESSAGES_PER_SEND, PushSender, type PushSendResult } from './push-sender';
import type { PushConfig } from './push.config';

/**
 * Sends new-filing notifications from the shared queue, always running (with push
 * disabled it only closes fan-outs). A new filing wakes it at once; a short poll
 * catches the rest. Each wake-up expands pending fan-outs, releases digests, puts back
 * deliveries whose lease expired, then keeps up to PUSH_CONCURRENCY batches of up to 500
 * messages with the provider.
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
      canClaim: () => this.sender.enabled,
      prepare: () => this.expand(),
      onClaimError: (error) => this.logger.error(`claiming push deliveries failed: ${describe(error)}`),
      // The answer could not be recorded: the deliveries stay SENDING and are sent again at lease expiry.
      onWorkError: (batch, error) => this.logger.error(`recording ${batch.length} push results failed: ${describe(error)}`),
    });
  }

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
      this.logger.log(`push dispatcher running: up to ${this.config.push.concurrency} batches of ${MAX_MESSAGES_PER_SEND} at once`);
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
          `push sender's lease expired mid-send: ${resent} deliveries to send again, ${abandoned} abandoned (attempts spent)`,
        );
      }
    } catch (error) {
      this.logger.error(`push dispatch pass failed: ${describe(error)}`);
    }
  }

  private async deliver(batch: ClaimedDelivery[]): Promise<void> {
    const messages = batch.map((delivery) => newFilingMessage(delivery.token, delivery, delivery.text));
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
    const now = this.clock.nowMs();
    const outcomes = batch.map((delivery, i) => ({
      ref: delivery.ref,
      rceptNo: delivery.rceptNo,
      token: delivery.token,
      title: messages[i].title,
      body: messages[i].body,
      ...planOutcome(results[i], delivery.attempts, this.config.push, now),
    }));
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
}

function outcomeOf(result: PushSendResult): PushOutcome {
  return result.ok ? 'sent' : result.failure;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
