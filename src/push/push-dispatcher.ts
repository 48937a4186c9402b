import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { DISCLOSURE_CREATED, type DisclosureCreatedEvent } from '../disclosures/disclosure-events';
import { newFilingMessage } from './new-filing-message';
import { type ClaimedDelivery, planOutcome, PushDeliveryQueue } from './push-delivery-queue';
import { MAX_MESSAGES_PER_SEND, PushSender, type PushSendResult } from './push-sender';

/** How often an idle dispatcher looks for work: other instances' filings, ended backoffs, expired leases. */
const POLL_INTERVAL_MS = 2_000;
/** Longest wait at shutdown for batches still with the provider. */
const MAX_SHUTDOWN_GRACE_MS = 10_000;

/**
 * Sends new-filing notifications from the shared queue, always running (with push
 * disabled it only closes fan-outs). A new filing wakes it at once; a short poll
 * catches the rest. Each wake-up expands pending fan-outs, abandons expired leases,
 * then keeps up to PUSH_CONCURRENCY batches of up to 500 messages with the provider.
 * Several instances may run it against one database.
 */
@Injectable()
export class PushDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PushDispatcher.name);
  /** Identifies this instance's leases. */
  readonly workerId = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private running = false;
  private pollTimer?: NodeJS.Timeout;
  /** The expansion pass in progress; wake-ups meanwhile ask for one more pass. */
  private pumping?: Promise<void>;
  private pumpAgain = false;
  /** Batch slots taken, including claims in progress, so concurrent wake-ups never exceed the limit. */
  private active = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly queue: PushDeliveryQueue,
    private readonly sender: PushSender,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.start();
  }

  /** Before the database closes: stop claiming, and let batches with the provider record their answers. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop();
    // Waiting past the lease is pointless: the deliveries are then abandoned anyway.
    const grace = Math.min(this.config.push.leaseMs, MAX_SHUTDOWN_GRACE_MS);
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.drain().then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), grace))),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.logger.warn(
        `${this.active} push batch(es) still unanswered at shutdown: their deliveries are ABANDONED when the lease expires, never resent`,
      );
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.sender.enabled) {
      this.logger.log(`push dispatcher running: up to ${this.config.push.concurrency} batches of ${MAX_MESSAGES_PER_SEND} at once`);
    }
    this.pollTimer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.pollTimer.unref();
    this.wake();
  }

  stop(): void {
    this.running = false;
    clearInterval(this.pollTimer);
  }

  /** Resolves when no expansion pass and no batch is in progress. */
  async drain(): Promise<void> {
    while (this.pumping !== undefined || this.inFlight.size > 0) {
      await Promise.allSettled([this.pumping, ...this.inFlight]);
    }
  }

  @OnEvent(DISCLOSURE_CREATED)
  onDisclosureCreated(event: DisclosureCreatedEvent): void {
    // Backfilled filings have no fan-out; everything else may.
    if (event.source !== 'backfill') this.wake();
  }

  /** Runs an expansion pass now, or right after the one in progress. */
  wake(): void {
    if (!this.running) return;
    if (this.pumping !== undefined) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.wake();
      }
    });
  }

  private async pump(): Promise<void> {
    try {
      const enabled = this.sender.enabled;
      for (let fanout = await this.queue.expandNext(enabled); fanout !== null; fanout = await this.queue.expandNext(enabled)) {
        if (enabled) this.logger.debug(`filing ${fanout.rceptNo}: ${fanout.deliveries} push deliveries`);
        // The first fan-out's batches go out while the next one expands.
        this.fill();
        if (!this.running) return;
      }
      if (!enabled) return;
      const abandoned = await this.queue.abandonExpired();
      if (abandoned > 0) this.logger.warn(`${abandoned} push deliveries abandoned: their sender's lease expired mid-send (not resent)`);
      this.fill();
    } catch (error) {
      this.logger.error(`push dispatch pass failed: ${describe(error)}`);
    }
  }

  /**
   * Takes a slot and claims a batch for it; each non-empty claim tries the next slot,
   * so a wake-up fills every free slot while deliveries are due.
   */
  private fill(): void {
    if (!this.running || !this.sender.enabled || this.active >= this.config.push.concurrency) return;
    this.active += 1;
    const run = this.runBatch().finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  }

  private async runBatch(): Promise<void> {
    let batch: ClaimedDelivery[];
    try {
      batch = await this.queue.claimBatch(this.workerId, MAX_MESSAGES_PER_SEND);
    } catch (error) {
      this.active -= 1;
      this.logger.error(`claiming push deliveries failed: ${describe(error)}`);
      return;
    }
    if (batch.length === 0) {
      this.active -= 1;
      return;
    }
    this.fill();
    try {
      await this.deliver(batch);
    } catch (error) {
      // The answer could not be recorded: the deliveries stay SENDING and are abandoned at lease expiry.
      this.logger.error(`recording ${batch.length} push results failed: ${describe(error)}`);
    } finally {
      this.active -= 1;
      this.fill();
    }
  }

  private async deliver(batch: ClaimedDelivery[]): Promise<void> {
    const messages = batch.map((delivery) => newFilingMessage(delivery.token, delivery));
    let results: PushSendResult[];
    try {
      results = await this.sender.send(messages);
      if (results.length !== messages.length) throw new Error(`${results.length} results for ${messages.length} messages`);
    } catch (error) {
      // The sender could not say what became of each message: try them all again later.
      const failed: PushSendResult = { ok: false, failure: 'transient', error: `push sender failed: ${describe(error)}` };
      results = messages.map(() => failed);
    }
    const now = this.clock.nowMs();
    const outcomes = batch.map((delivery, i) => ({
      rceptNo: delivery.rceptNo,
      token: delivery.token,
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
