import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { maxBackoffMs } from '../jobs/job-catalog';
import { FcmSendBudgetRepository, PUSH_BUDGET_TIME, type SendPace } from './fcm-send-budget.repository';
import { MAX_MESSAGES_PER_SEND } from './push-sender';
import type { PushConfig } from './push.config';

/** FCM's quota is counted per minute (minutes not aligned to the clock, so any rolling minute may be the one counted). */
const WINDOW_MS = 60_000;

/**
 * Time left spare in every minute: a send that leaves a little after its moment (a busy event loop,
 * a slower connection than the previous batch's) must still fall inside the quota.
 */
export const LATE_SEND_ALLOWANCE_MS = 1_000;

/**
 * How long every instance holds off after QUOTA_EXCEEDED when the answer named no retry time
 * (firebase-admin keeps neither FCM's Retry-After header nor the body's details): FCM refuses
 * "until the quota is refilled in the following minute", and its minutes are not aligned to
 * ours, so a minute is the only wait known to be enough.
 */
export const QUOTA_PAUSE_MS = WINDOW_MS;

/** A retry time FCM names is followed up to this long (the longest backoff of a push). */
const LONGEST_PAUSE_MS = maxBackoffMs('push');

/**
 * The budget's pace for a quota of `messagesPerMinute`: a burst of half a second's quota (at
 * least one sendEach batch) at once, then the rest of the minute, less the late-send
 * allowance, spread evenly. Any rolling minute then holds at most burst + rate × (60 s) =
 * the quota less the allowance's share. `leaseMs`: a claimed batch never waits for its turn
 * longer than half its lease.
 */
export function sendPace(messagesPerMinute: number, leaseMs: number): SendPace {
  const burst = Math.max(MAX_MESSAGES_PER_SEND, Math.floor(messagesPerMinute / 120));
  const msPerMessage = (WINDOW_MS + LATE_SEND_ALLOWANCE_MS) / (messagesPerMinute - burst);
  return { msPerMessage, burstMs: burst * msPerMessage, maxWaitMs: leaseMs / 2 };
}

/** The budget's answer to a batch: go now (its wait is over), or not now. */
export type SendPermit =
  | { granted: true }
  | {
      granted: false;
      /** When asking again makes sense. */
      retryInMs: number;
      /** `paused`: FCM answered QUOTA_EXCEEDED; `busy`: the fleet's line is booked further ahead than a batch may wait. */
      reason: 'paused' | 'busy';
    };

/**
 * The FCM send budget of the whole fleet: PUSH_MESSAGES_PER_MINUTE messages in any rolling
 * minute, however many instances send. Before each sendEach batch the dispatcher asks
 * `acquire`, which books the batch on the fleet's line in PostgreSQL (one statement,
 * FcmSendBudgetRepository) and then sleeps, once, until the booked moment: no polling, and
 * waiting batches of every instance go in the order they asked. After QUOTA_EXCEEDED,
 * `pause` stops every instance's sending until the quota refills (stored with the budget;
 * the other instances learn it at their next take). `blockedForMs` is what this instance
 * already knows, so it claims no deliveries it could not send.
 *
 * Its time (PUSH_BUDGET_TIME) is the system's clock, even when a test moves the app's Clock.
 */
@Injectable()
export class FcmSendBudget {
  private readonly logger = new Logger('PushBudget');
  private readonly pace: SendPace;
  /** Monotonic moments (of `time`) before which this instance knows it may not send. */
  private pausedUntil = 0;
  private busyUntil = 0;

  constructor(
    @InjectConfig() config: PushConfig,
    private readonly store: FcmSendBudgetRepository,
    @Inject(PUSH_BUDGET_TIME) private readonly time: Clock,
  ) {
    this.pace = sendPace(config.push.messagesPerMinute, config.push.leaseMs);
  }

  /** How long this instance knows no batch may go: a pause, or a line booked too far ahead; 0 when one may. */
  blockedForMs(): number {
    return Math.max(0, Math.max(this.pausedUntil, this.busyUntil) - this.time.monotonicMs());
  }

  /** Resolves once `blockedForMs()` is 0 (at once when it is). */
  async whenUnblocked(): Promise<void> {
    for (let left = this.blockedForMs(); left > 0; left = this.blockedForMs()) await this.time.sleep(left);
  }

  /**
   * Books `messages` for one batch and resolves when they may go; refused when sending is
   * paused or the wait would be too long (nothing is booked then). Throws when the database
   * does not answer.
   */
  async acquire(messages: number): Promise<SendPermit> {
    const answer = await this.store.take(messages, this.pace);
    const now = this.time.monotonicMs();
    if (!answer.granted) {
      if (answer.paused) this.pausedUntil = Math.max(this.pausedUntil, now + answer.waitMs);
      else this.busyUntil = Math.max(this.busyUntil, now + answer.waitMs);
      return { granted: false, retryInMs: answer.waitMs, reason: answer.paused ? 'paused' : 'busy' };
    }
    if (answer.waitMs > 0) await this.time.sleep(answer.waitMs);
    // A pause heard while the batch waited for its moment: FCM would refuse it as well (its booking is left unused).
    const paused = this.pausedUntil - this.time.monotonicMs();
    if (paused > 0) return { granted: false, retryInMs: paused, reason: 'paused' };
    return { granted: true };
  }

  /**
   * FCM answered QUOTA_EXCEEDED: every instance holds off for `retryAfterMs` (the answer's retry
   * time) or, without one, QUOTA_PAUSE_MS. Answers how long sending is paused from now, the
   * fleet's pause when it ends later. Never throws: without the database this instance still
   * pauses, and the others learn from their own refusals.
   */
  async pause(retryAfterMs?: number): Promise<number> {
    const asked = Math.min(Math.max(retryAfterMs ?? QUOTA_PAUSE_MS, 1), LONGEST_PAUSE_MS);
    const start = this.time.monotonicMs();
    this.pausedUntil = Math.max(this.pausedUntil, start + asked);
    try {
      const fleet = await this.store.pause(asked);
      this.pausedUntil = Math.max(this.pausedUntil, start + fleet);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not store the FCM pause for the fleet; this instance pauses alone');
    }
    return Math.max(0, this.pausedUntil - this.time.monotonicMs());
  }
}
