import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type Clock, SystemClock } from '../common/clock';

/** The time of the budget's statements when a test gives one; the system's clock otherwise (then the database's is used). */
export const PUSH_BUDGET_TIME = Symbol('PUSH_BUDGET_TIME');

/** How the budget's line is paced: what `FcmSendBudget` derives from PUSH_MESSAGES_PER_MINUTE. */
export interface SendPace {
  /** The line moves this far for each message granted. */
  msPerMessage: number;
  /** How far ahead of now the line may be booked and a batch still go at once: the burst, in time. */
  burstMs: number;
  /** A batch that would have to wait longer than this is refused rather than booked. */
  maxWaitMs: number;
}

/** What one take answers. */
export type BudgetTake =
  /** Booked: the batch may go after `waitMs` (0: now). */
  | { granted: true; waitMs: number }
  /** Not booked: FCM's quota is paused for `waitMs` more, or the line is booked too far ahead to wait in. */
  | { granted: false; waitMs: number; paused: boolean };

const TAKE = 'SELECT granted, wait_ms, paused FROM fcm_send_budget_take($1, $2, $3, $4, $5)';

/**
 * $1 the pause in milliseconds, $2 the time or null (the database's). A pause never shortens
 * one in force. Answers how long sending is paused from now.
 */
const PAUSE = `
INSERT INTO fcm_send_budget AS b (id, booked_until, paused_until)
SELECT 1, '-infinity', now.at + $1 * interval '1 millisecond'
FROM (SELECT coalesce($2::timestamptz, clock_timestamp()) AS at) now
ON CONFLICT (id) DO UPDATE SET paused_until = greatest(b.paused_until, excluded.paused_until)
RETURNING greatest(0, ceil(extract(epoch FROM b.paused_until - coalesce($2::timestamptz, clock_timestamp())) * 1000))::int AS paused_ms`;

/**
 * Owner of table fcm_send_budget: the only writer. The FCM send budget shared by every
 * instance: one statement books a batch (fcm_send_budget_take, migration
 * FcmSendBudget1764536000000), one records a pause after QUOTA_EXCEEDED. Timed by the
 * database's clock, one clock for the whole fleet; a test gives its FakeClock as
 * PUSH_BUDGET_TIME, whose `now()` then times the statements instead.
 */
@Injectable()
export class FcmSendBudgetRepository {
  /** The time of a statement; undefined: the database's. */
  private readonly time?: Clock;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() @Inject(PUSH_BUDGET_TIME) time?: Clock,
  ) {
    this.time = time instanceof SystemClock ? undefined : time;
  }

  /** Books `messages` on the fleet's line, paced by `pace`, unless sending is paused or the wait would be too long. */
  async take(messages: number, pace: SendPace): Promise<BudgetTake> {
    const [row] = await this.dataSource.query<{ granted: boolean; wait_ms: number; paused: boolean }[]>(TAKE, [
      messages,
      pace.msPerMessage,
      pace.burstMs,
      pace.maxWaitMs,
      this.time?.now() ?? null,
    ]);
    return row.granted ? { granted: true, waitMs: row.wait_ms } : { granted: false, waitMs: row.wait_ms, paused: row.paused };
  }

  /** No instance sends for the next `ms` (or longer, if a pause in force ends later); answers the pause from now. */
  async pause(ms: number): Promise<number> {
    const [row] = await this.dataSource.query<{ paused_ms: number }[]>(PAUSE, [Math.ceil(ms), this.time?.now() ?? null]);
    return row.paused_ms;
  }
}
