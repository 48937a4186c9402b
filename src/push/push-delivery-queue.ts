import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { backoffMs } from '../common/backoff';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { deleteOlderThan } from '../database/delete-in-batches';
import { PushTokens } from '../push-tokens/push-tokens';
import type { FilingNotice } from './new-filing-message';
import { PushOutbox } from './push-outbox';
import type { PushSendResult } from './push-sender';

/** A delivery claimed for sending, with what its notification says. */
export interface ClaimedDelivery extends FilingNotice {
  token: string;
  /** Attempts including this one. */
  attempts: number;
}

/** One entry of a user's push history. */
export interface PushHistoryEntry {
  rcept_no: string;
  corp_code: string;
  corp_name: string;
  title: string | null;
  body: string | null;
  /** RFC 3339; null when no device got it. */
  sent_at: string | null;
  outcome: 'sent' | 'pending' | 'failed' | 'unregistered' | 'abandoned';
}

/** What becomes of a claimed delivery once the provider answered. */
export interface DeliveryOutcome {
  status: 'SENT' | 'UNREGISTERED' | 'FAILED' | 'PENDING';
  /** When a delivery put back (PENDING) may be claimed again. */
  availableAt: Date | null;
  error: string | null;
}

export interface RecordedOutcomes {
  /** Deliveries updated; fewer than given when the lease of some was lost meanwhile. */
  recorded: number;
  /** Tokens deleted because the provider reported them UNREGISTERED. */
  tokensRemoved: number;
}

/** Longest wait between two attempts of one message. */
const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * The provider's answer for one message, as a delivery status: sent; token gone
 * (UNREGISTERED); refused for good (FAILED, the token is kept); or, after a transient
 * failure, back to PENDING after an exponential backoff until the attempts are spent.
 */
export function planOutcome(
  result: PushSendResult,
  attempts: number,
  policy: { maxAttempts: number; retryBaseMs: number },
  nowMs: number,
): DeliveryOutcome {
  if (result.ok) return { status: 'SENT', availableAt: null, error: null };
  if (result.failure === 'unregistered') return { status: 'UNREGISTERED', availableAt: null, error: result.error };
  if (result.failure === 'rejected' || attempts >= policy.maxAttempts) return { status: 'FAILED', availableAt: null, error: result.error };
  const backoff = backoffMs(attempts, { baseMs: policy.retryBaseMs, maxMs: MAX_BACKOFF_MS });
  return { status: 'PENDING', availableAt: new Date(nowMs + backoff), error: result.error };
}

/**
 * Owner of table push_deliveries: the only writer. The delivery queue, shared by
 * every instance. A fan-out of the outbox (PushOutbox) is expanded into one delivery
 * per (filing, token) by a single INSERT … SELECT in the database; deliveries are claimed in batches with
 * `FOR UPDATE SKIP LOCKED` under a lease and finished only while that lease is held.
 * The primary key (rcept_no, fcm_token) makes a second delivery of a filing to a token
 * impossible, and a delivery whose lease expired while SENDING is ABANDONED, never resent.
 */
@Injectable()
export class PushDeliveryQueue {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly pushTokens: PushTokens,
    private readonly outbox: PushOutbox,
  ) {}

  /**
   * Expands the oldest pending fan-out: its deliveries (none when `createDeliveries`
   * is false, i.e. push is off) and its EXPANDED mark are one transaction, so a crash
   * leaves it either untouched or complete. Null when no pending fan-out is free.
   */
  async expandNext(createDeliveries: boolean): Promise<{ rceptNo: string; deliveries: number } | null> {
    return this.dataSource.transaction(async (manager) => {
      const fanout = await this.outbox.takeOldestReady(manager, this.config.push.summaryWaitMs);
      if (!fanout) return null;
      let deliveries = 0;
      if (createDeliveries) {
        // The watchers never leave the database: 10,000 of them are one statement.
        const [{ n }] = await manager.query<{ n: number }[]>(
          `WITH created AS (
             INSERT INTO push_deliveries (rcept_no, fcm_token, user_id)
             SELECT $1, t.fcm_token, t.user_id
             FROM watch_stocks w JOIN push_tokens t ON t.user_id = w.user_id
             WHERE w.corp_code = $2 AND w.notify_enabled
             ON CONFLICT DO NOTHING
             RETURNING 1
           ) SELECT count(*)::int AS n FROM created`,
          [fanout.rceptNo, fanout.corpCode],
        );
        deliveries = n;
      }
      await this.outbox.markExpanded(manager, fanout.rceptNo, deliveries, this.clock.now());
      return { rceptNo: fanout.rceptNo, deliveries };
    });
  }

  /** What is not yet handed to the sender: fan-outs to expand and deliveries pending, for the metrics. */
  async backlog(): Promise<Record<string, number>> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>("SELECT count(*)::int AS n FROM push_deliveries WHERE status = 'PENDING'");
    return { fanouts: await this.outbox.pendingCount(this.dataSource.manager), deliveries: n };
  }

  /**
   * The caller's notifications, one per filing however many devices it went to, newest
   * filing first; `before` continues after that receipt number. Only what was handed to
   * the provider at least once: `sent` when any device got it, otherwise the last outcome.
   */
  async history(userId: number, limit: number, before?: string): Promise<PushHistoryEntry[]> {
    const rows = await this.dataSource.query<PushHistoryEntry[]>(
      `SELECT p.rcept_no, d.corp_code, d.corp_name, max(p.title) AS title, max(p.body) AS body,
              min(p.sent_at) AS sent_at,
              CASE WHEN bool_or(p.status = 'SENT') THEN 'sent' ELSE lower(max(p.status)) END AS outcome
       FROM push_deliveries p JOIN disclosures d ON d.rcept_no = p.rcept_no
       WHERE p.user_id = $1 AND p.attempts > 0 AND p.status <> 'SENDING' AND ($3::text IS NULL OR p.rcept_no < $3)
       GROUP BY p.rcept_no, d.corp_code, d.corp_name
       ORDER BY p.rcept_no DESC
       LIMIT $2`,
      [userId, limit, before ?? null],
    );
    return rows.map((row) => ({ ...row, sent_at: row.sent_at === null ? null : new Date(row.sent_at).toISOString() }));
  }

  /** Deletes deliveries created before `cutoff` (the history keeps 30 days), in batches. */
  trimCreatedBefore(cutoff: Date): Promise<number> {
    return deleteOlderThan(this.dataSource, 'push_deliveries', 'created_at', cutoff);
  }

  /**
   * Claims up to `limit` deliveries that are due for `worker`: SENDING, one more
   * attempt, under a lease. New deliveries first (oldest first), then retries whose
   * backoff ended. Two passes rather than `available_at IS NULL OR available_at <= now`:
   * each pass is then an ordered scan of the claimable index that stops after `limit`
   * rows, where the OR made PostgreSQL sort every pending row on every claim.
   */
  async claimBatch(worker: string, limit: number): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const leaseExpiresAt = new Date(now.getTime() + this.config.push.leaseMs);
    const claimed = await this.claimWhere('available_at IS NULL', [worker, leaseExpiresAt, limit]);
    if (claimed.length < limit) {
      claimed.push(...(await this.claimWhere('available_at <= $4', [worker, leaseExpiresAt, limit - claimed.length, now])));
    }
    return claimed;
  }

  /** One claim pass over pending deliveries matching `due`; $1 is the worker, $2 the lease end, $3 the limit. */
  private async claimWhere(due: string, params: unknown[]): Promise<ClaimedDelivery[]> {
    const rows = await this.dataSource.query<
      { rcept_no: string; fcm_token: string; attempts: number; corp_code: string; corp_name: string; report_name: string; one_liner: string | null }[]
    >(
      `WITH next AS (
         SELECT rcept_no, fcm_token FROM push_deliveries
         WHERE status = 'PENDING' AND ${due}
         ORDER BY available_at NULLS FIRST, created_at
         LIMIT $3 FOR UPDATE SKIP LOCKED
       ),
       claimed AS (
         UPDATE push_deliveries p SET status = 'SENDING', attempts = p.attempts + 1, lease_owner = $1, lease_expires_at = $2
         FROM next WHERE p.rcept_no = next.rcept_no AND p.fcm_token = next.fcm_token
         RETURNING p.rcept_no, p.fcm_token, p.attempts
       )
       SELECT c.rcept_no, c.fcm_token, c.attempts, d.corp_code, d.corp_name, d.report_name, a.one_liner
       FROM claimed c JOIN disclosures d ON d.rcept_no = c.rcept_no
       LEFT JOIN analyses a ON a.rcept_no = c.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''`,
      params,
    );
    return rows.map((row) => ({
      rceptNo: row.rcept_no,
      token: row.fcm_token,
      attempts: row.attempts,
      corpCode: row.corp_code,
      corpName: row.corp_name,
      reportName: row.report_name,
      oneLiner: row.one_liner,
    }));
  }

  /**
   * Records the outcomes of a sent batch, each only while `worker` still holds its
   * lease (a late answer after an abandonment is dropped), and deletes the tokens whose
   * deliveries were recorded UNREGISTERED, in one transaction.
   */
  async record(
    worker: string,
    outcomes: Array<DeliveryOutcome & { rceptNo: string; token: string; title: string; body: string }>,
  ): Promise<RecordedOutcomes> {
    if (outcomes.length === 0) return { recorded: 0, tokensRemoved: 0 };
    return this.dataSource.transaction(async (manager) => {
      // Statistics taken while few rows were SENDING make PostgreSQL drive a nested loop from
      // them and rescan the outcomes for each: quadratic once thousands are in flight. A hash
      // join is linear whichever side it builds.
      await manager.query('SET LOCAL enable_nestloop = off');
      const finished = await manager.query<{ fcm_token: string; status: string }[]>(
        `WITH finished AS (
           UPDATE push_deliveries p
           SET status = o.status, available_at = o.available_at, last_error = o.error,
               sent_at = CASE WHEN o.status = 'SENT' THEN $7::timestamptz END,
               title = o.title, body = o.body,
               lease_owner = NULL, lease_expires_at = NULL
           FROM unnest($2::bpchar[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $8::text[], $9::text[])
             AS o(rcept_no, fcm_token, status, available_at, error, title, body)
           WHERE p.rcept_no = o.rcept_no AND p.fcm_token = o.fcm_token AND p.status = 'SENDING' AND p.lease_owner = $1
           RETURNING p.fcm_token, p.status
         ) SELECT fcm_token, status FROM finished`,
        [
          worker,
          outcomes.map((o) => o.rceptNo),
          outcomes.map((o) => o.token),
          outcomes.map((o) => o.status),
          outcomes.map((o) => o.availableAt?.toISOString() ?? null),
          outcomes.map((o) => o.error?.slice(0, 500) ?? null),
          this.clock.now(),
          outcomes.map((o) => o.title.slice(0, 200)),
          outcomes.map((o) => o.body.slice(0, 500)),
        ],
      );
      const gone = finished.filter((row) => row.status === 'UNREGISTERED').map((row) => row.fcm_token);
      let tokensRemoved = 0;
      if (gone.length > 0) {
        tokensRemoved = await this.pushTokens.removeUnregistered(manager, gone);
      }
      return { recorded: finished.length, tokensRemoved };
    });
  }

  /**
   * Marks ABANDONED every delivery whose SENDING lease expired: its sender died (or
   * stalled) between handing the batch to the provider and recording the answer, so
   * the message may have reached the device. At most once: it is never sent again.
   */
  async abandonExpired(): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      `WITH abandoned AS (
         UPDATE push_deliveries
         SET status = 'ABANDONED', lease_owner = NULL, lease_expires_at = NULL,
             last_error = left('lease of ' || lease_owner || ' expired while sending; not sent again', 500)
         WHERE status = 'SENDING' AND lease_expires_at < $1
         RETURNING 1
       ) SELECT count(*)::int AS n FROM abandoned`,
      [this.clock.now()],
    );
    return n;
  }
}
