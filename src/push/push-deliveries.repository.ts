import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { backoffMs } from '../common/backoff';
import { Clock } from '../common/clock';
import type { FleetConfig } from '../fleet/fleet.config';
import { FleetInstancesRepository } from '../fleet/fleet-instances.repository';
import { leaseOwnerIsDead } from '../fleet/lease-owners';
import { maxBackoffMs } from '../jobs/job-catalog';
import { InjectConfig } from '../config/config.module';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { deleteOlderThan } from '../database/delete-in-batches';
import { PushTokensRepository } from '../push-tokens/push-tokens.repository';
import { filingFilterKeys } from '../watchlist/notify-filters';
import { digestText, type FilingNotice, type NotificationText } from './new-filing-message';
import { PushFanoutsRepository } from './push-fanouts.repository';
import type { PushSendResult } from './push-sender';
import type { PushConfig } from './push.config';
import { quietWindowEndSql } from './quiet-hours';

/** A delivery claimed for sending, with what its notification says. */
export interface ClaimedDelivery extends FilingNotice {
  /** The row version claimed (its ctid): the outcome is recorded by it, one tuple fetch rather than an index probe. */
  ref: string;
  token: string;
  /** Attempts including this one. */
  attempts: number;
  /** The text fixed before the send (a digest, or a retry repeating what the first attempt said); null: composed from the filing. */
  text: NotificationText | null;
}

/** What one expansion step did with a fan-out. */
export interface ExpandedFanout {
  rceptNo: string;
  /** Deliveries to send now. */
  deliveries: number;
  /** Deliveries held for their users' quiet hours. */
  held: number;
  /** The fan-out is fully expanded. */
  done: boolean;
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
  /** The attempt was not the message's fault (held back by the send budget, or FCM's quota): it is given back. */
  attemptRefunded?: boolean;
}

export interface RecordedOutcomes {
  /** Deliveries updated; fewer than given when the lease of some was lost meanwhile. */
  recorded: number;
  /** Tokens deleted because the provider reported them UNREGISTERED. */
  tokensRemoved: number;
}

/** For the rest of a transaction: rows are reached by ctid only; and back to the planner's choice. */
const ONLY_TID_SCANS =
  "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true)";
const ALL_SCANS =
  "SELECT set_config('enable_seqscan', 'on', true), set_config('enable_indexscan', 'on', true), set_config('enable_bitmapscan', 'on', true)";

/** Users whose held deliveries one digest transaction takes. */
const DIGEST_USERS_PER_PASS = 500;

/**
 * SQL joined to a delivery `d` (with user_id and fcm_token) of a filing of company `corpCode`:
 * `recheck.dropped`, the terminal status of a delivery that must not go (null when it may),
 * and `recheck.why`, its last_error. What held at the fan-out may not hold any more when the
 * delivery is handed to the sender (quiet hours, a backoff, a lease that expired): the token
 * must still exist and be the user's, and the user must still watch the company with
 * notifications on. Only rows where `when` holds are checked: two probes of unique indexes
 * (push_tokens.fcm_token, watch_stocks (user_id, corp_code)), each once (OFFSET 0 keeps the
 * subquery whole, where the planner would repeat them for every reference), none when `when`
 * is false.
 */
function recheckSql(d: string, corpCode: string, when = 'true'): string {
  return `LEFT JOIN LATERAL (
    SELECT true AS checked,
           (SELECT t.user_id FROM push_tokens t WHERE t.fcm_token = ${d}.fcm_token) AS token_owner,
           (SELECT w.notify_enabled FROM watch_stocks w WHERE w.user_id = ${d}.user_id AND w.corp_code = ${corpCode}) AS notify
    WHERE ${when}
    OFFSET 0
  ) now_ ON true
  CROSS JOIN LATERAL (
    SELECT CASE WHEN now_.checked IS NULL THEN NULL
                WHEN now_.token_owner IS DISTINCT FROM ${d}.user_id THEN 'TOKEN_GONE'
                WHEN now_.notify IS NOT TRUE THEN 'UNWATCHED' END AS dropped,
           CASE WHEN now_.checked IS NULL THEN NULL
                WHEN now_.token_owner IS NULL THEN 'token deleted before it was sent'
                WHEN now_.token_owner <> ${d}.user_id THEN 'token registered to another user before it was sent'
                WHEN now_.notify IS NULL THEN 'company unwatched before it was sent'
                WHEN NOT now_.notify THEN 'notifications of the company turned off before it was sent' END AS why
  ) recheck`;
}

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
  const backoff = backoffMs(attempts, { baseMs: policy.retryBaseMs, maxMs: maxBackoffMs('push') });
  return { status: 'PENDING', availableAt: new Date(nowMs + backoff), error: result.error };
}

/**
 * Owner of table push_deliveries: the only writer. The delivery queue, shared by
 * every instance. A fan-out of the outbox (PushFanoutsRepository) is expanded into one delivery
 * per (filing, token) by a single INSERT … SELECT in the database; deliveries are claimed in batches with
 * `FOR UPDATE SKIP LOCKED` under a lease and finished only while that lease is held.
 * The primary key (rcept_no, fcm_token) keeps a filing to one row per token. Whatever is
 * handed to the sender is re-checked by the statement that takes it (recheckSql). A delivery
 * whose lease expired while SENDING is claimed again (at least once: the message's collapse
 * identity, the filing, makes a repeat replace the first on the device).
 */
@Injectable()
export class PushDeliveriesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: PushConfig & { fleet: FleetConfig },
    private readonly clock: Clock,
    private readonly pushTokens: PushTokensRepository,
    private readonly outbox: PushFanoutsRepository,
    private readonly fleet: FleetInstancesRepository,
  ) {}

  /**
   * Takes one step of the oldest pending fan-out: the next `PUSH_EXPANSION_USERS`
   * watchers (by user id) become deliveries, none when `createDeliveries` is false
   * (push is off). A delivery goes to each token of each user watching the company with
   * notifications on whose entry's category and impact filters the filing passes; it is
   * HELD until the end of the user's quiet window when now falls in one. The step's
   * deliveries and its progress in the outbox are one transaction, so a crash repeats
   * or skips no watcher, and the batches of the first step go out while the next is
   * expanded. Null when no pending fan-out is free.
   */
  async expandNext(createDeliveries: boolean): Promise<ExpandedFanout | null> {
    return this.dataSource.transaction(async (manager) => {
      const fanout = await this.outbox.takeOldestReady(manager, this.config.push.summaryWaitMs);
      if (!fanout) return null;
      const step = { users: 0, throughUser: fanout.expandedThroughUser, deliveries: 0, held: 0 };
      if (createDeliveries) {
        const filter = filingFilterKeys(fanout.reportName, fanout.impact);
        // The watchers never leave the database: a step is one statement.
        const [counts] = await manager.query<{ users: number; through_user: number | null; deliveries: number; held: number }[]>(
          `WITH watchers AS (
             SELECT w.user_id FROM watch_stocks w
             WHERE w.corp_code = $2 AND w.notify_enabled AND w.user_id > $6
               AND (w.categories IS NULL OR $3::varchar = ANY (w.categories))
               AND (w.min_impact IS NULL OR w.min_impact = ANY ($4::varchar[]))
             ORDER BY w.user_id LIMIT $7
           ), created AS (
             INSERT INTO push_deliveries (rcept_no, fcm_token, user_id, status, available_at)
             SELECT $1, t.fcm_token, t.user_id, CASE WHEN quiet.until IS NULL THEN 'PENDING' ELSE 'HELD' END, quiet.until
             FROM watchers w
             JOIN push_tokens t ON t.user_id = w.user_id
             LEFT JOIN push_preferences q ON q.user_id = w.user_id
             CROSS JOIN LATERAL (SELECT ${quietWindowEndSql('$5', 'q')} AS until) quiet
             ON CONFLICT DO NOTHING
             RETURNING status
           )
           SELECT (SELECT count(*)::int FROM watchers) AS users, (SELECT max(user_id) FROM watchers) AS through_user,
                  count(*) FILTER (WHERE status = 'PENDING')::int AS deliveries, count(*) FILTER (WHERE status = 'HELD')::int AS held
           FROM created`,
          [
            fanout.rceptNo,
            fanout.corpCode,
            filter.category,
            filter.passingMinImpacts,
            this.clock.now(),
            fanout.expandedThroughUser,
            this.config.push.expansionUsers,
          ],
        );
        step.users = counts.users;
        step.throughUser = counts.through_user ?? fanout.expandedThroughUser;
        step.deliveries = counts.deliveries;
        step.held = counts.held;
      }
      // A short step was the last: no watcher is left after it.
      const done = step.users < this.config.push.expansionUsers;
      await this.outbox.recordStep(manager, fanout.rceptNo, {
        deliveries: step.deliveries + step.held,
        throughUser: step.throughUser,
        done,
        at: this.clock.now(),
      });
      return { rceptNo: fanout.rceptNo, deliveries: step.deliveries, held: step.held, done };
    });
  }

  /**
   * Turns the held deliveries whose quiet window ended into digests. Each is re-checked first,
   * in the statement that takes it (recheckSql): those whose token is gone or moved to another
   * user, or whose company the user unwatched or muted, end TOKEN_GONE or UNWATCHED. Of the
   * rest, for each (user, device), the newest held filing's delivery becomes PENDING with a
   * text counting the filings and naming the companies (one held filing keeps its usual text),
   * and the others DIGESTED. Whole users at a time, under an advisory lock, so one device never
   * gets two digests for one window. Answers the digests released.
   */
  async releaseDueDigests(): Promise<number> {
    let released = 0;
    for (;;) {
      const pass = await this.dataSource.transaction(async (manager) => {
        const [{ locked }] = await manager.query<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
          ADVISORY_LOCKS.PUSH_DIGEST_RELEASE,
        ]);
        if (!locked) return { taken: 0, digests: 0 };
        const rows = await manager.query<
          { rcept_no: string; fcm_token: string; user_id: number; corp_name: string; dropped: string | null }[]
        >(
          `WITH due_users AS (
             SELECT DISTINCT user_id FROM push_deliveries WHERE status = 'HELD' AND available_at <= $1 ORDER BY user_id LIMIT $2
           ), due AS (
             SELECT p.ctid, p.rcept_no, p.fcm_token, p.user_id, d.corp_name, recheck.dropped, recheck.why
             FROM push_deliveries p JOIN due_users u ON u.user_id = p.user_id JOIN disclosures d ON d.rcept_no = p.rcept_no
             ${recheckSql('p', 'd.corp_code')}
             WHERE p.status = 'HELD' AND p.available_at <= $1
           ), dropped AS (
             UPDATE push_deliveries p SET status = due.dropped, available_at = NULL, last_error = due.why
             FROM due WHERE p.ctid = due.ctid AND due.dropped IS NOT NULL AND p.status = 'HELD'
             RETURNING 1
           )
           SELECT rcept_no, fcm_token, user_id, corp_name, dropped FROM due
           ORDER BY user_id, fcm_token, rcept_no DESC`,
          [this.clock.now(), DIGEST_USERS_PER_PASS],
        );
        if (rows.length === 0) return { taken: 0, digests: 0 };
        // Per (user, device), never per device alone: a device that changed hands is two users' devices.
        const byDevice = new Map<string, typeof rows>();
        for (const row of rows) {
          if (row.dropped !== null) continue;
          const key = `${row.user_id}:${row.fcm_token}`;
          const held = byDevice.get(key);
          if (held) held.push(row);
          else byDevice.set(key, [row]);
        }
        const updates = [...byDevice.values()].flatMap((held) => {
          // Newest first: the digest opens the newest filing.
          const text = held.length > 1 ? digestText(held.map((row) => ({ corpName: row.corp_name }))) : null;
          return held.map((row, i) => ({ rcept_no: row.rcept_no, fcm_token: row.fcm_token, carrier: i === 0, text }));
        });
        if (updates.length > 0) {
          await manager.query(
            `UPDATE push_deliveries p
             SET status = CASE WHEN u.carrier THEN 'PENDING' ELSE 'DIGESTED' END, available_at = NULL, title = u.title, body = u.body
             FROM unnest($1::bpchar[], $2::text[], $3::boolean[], $4::text[], $5::text[]) AS u(rcept_no, fcm_token, carrier, title, body)
             WHERE p.rcept_no = u.rcept_no AND p.fcm_token = u.fcm_token AND p.status = 'HELD'`,
            [
              updates.map((u) => u.rcept_no),
              updates.map((u) => u.fcm_token),
              updates.map((u) => u.carrier),
              updates.map((u) => (u.carrier ? (u.text?.title ?? null) : null)),
              updates.map((u) => (u.carrier ? (u.text?.body ?? null) : null)),
            ],
          );
        }
        return { taken: rows.length, digests: byDevice.size };
      });
      // A pass whose users' deliveries were all dropped still took them: go on while any were taken.
      if (pass.taken === 0) return released;
      released += pass.digests;
    }
  }

  /**
   * After the user's quiet hours changed (in `manager`'s transaction): what they hold
   * waits for the end of the new window now in force, or goes at the next pass when now
   * is outside it (or quiet hours are off).
   */
  async rescheduleHeld(manager: EntityManager, userId: number): Promise<void> {
    await manager.query(
      `UPDATE push_deliveries p
       SET available_at = coalesce((SELECT ${quietWindowEndSql('$2', 'q')} FROM push_preferences q WHERE q.user_id = $1), $2)
       WHERE p.user_id = $1 AND p.status = 'HELD'`,
      [userId, this.clock.now()],
    );
  }

  /** What is not yet handed to the sender: fan-outs to expand and deliveries pending, for the metrics. */
  async backlog(): Promise<Record<string, number>> {
    const [{ pending, held }] = await this.dataSource.query<{ pending: number; held: number }[]>(
      `SELECT count(*) FILTER (WHERE status = 'PENDING')::int AS pending, count(*) FILTER (WHERE status = 'HELD')::int AS held
       FROM push_deliveries WHERE status IN ('PENDING', 'HELD')`,
    );
    return { fanouts: await this.outbox.pendingCount(this.dataSource.manager), deliveries: pending, held };
  }

  /**
   * The caller's notifications, one per filing however many devices it went to, newest
   * filing first; `before` continues after that receipt number. Only what was handed to
   * the provider at least once: `sent` when any device got it, otherwise the most hopeful
   * outcome among the devices (to be retried, maybe delivered, refused, token gone).
   */
  async history(userId: number, limit: number, before?: string): Promise<PushHistoryEntry[]> {
    const rows = await this.dataSource.query<PushHistoryEntry[]>(
      `SELECT p.rcept_no, d.corp_code, d.corp_name, max(p.title) AS title, max(p.body) AS body,
              min(p.sent_at) AS sent_at,
              CASE WHEN bool_or(p.status = 'SENT') THEN 'sent' WHEN bool_or(p.status = 'PENDING') THEN 'pending'
                   WHEN bool_or(p.status = 'ABANDONED') THEN 'abandoned' WHEN bool_or(p.status = 'FAILED') THEN 'failed'
                   ELSE 'unregistered' END AS outcome
       FROM push_deliveries p JOIN disclosures d ON d.rcept_no = p.rcept_no
       WHERE p.user_id = $1 AND p.attempts > 0 AND p.status IN ('SENT', 'PENDING', 'ABANDONED', 'FAILED', 'UNREGISTERED') AND ($3::text IS NULL OR p.rcept_no < $3)
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
   * rows, where the OR made PostgreSQL sort every pending row on every claim. A pass whose
   * rows were partly dropped by the re-check is repeated for the rest of the limit.
   */
  async claimBatch(worker: string, limit: number): Promise<ClaimedDelivery[]> {
    const { leaseMs } = this.config.push;
    const claimed: ClaimedDelivery[] = [];
    for (const due of ['available_at IS NULL', 'available_at <= $4']) {
      for (;;) {
        const wanted = limit - claimed.length;
        if (wanted === 0) return claimed;
        const params = due === 'available_at IS NULL' ? [worker, leaseMs, wanted] : [worker, leaseMs, wanted, this.clock.now()];
        const pass = await this.claimWhere(due, params);
        claimed.push(...pass.claimed);
        // Fewer rows than asked: nothing more is due in this pass.
        if (pass.taken < wanted) break;
      }
    }
    return claimed;
  }

  /**
   * One claim pass over pending deliveries matching `due`; $1 is the worker, $2 the lease
   * in milliseconds (on the database clock), $3 the limit. The rows are locked and updated by
   * ctid: they stay locked in between. Each is re-checked in the same statement (recheckSql),
   * fresh ones too: a device can change accounts in the seconds between the fan-out and the
   * claim, and a filing must never reach the next account. One that fails ends TOKEN_GONE or
   * UNWATCHED instead of SENDING and is not answered. `taken` counts both.
   */
  private async claimWhere(due: string, params: unknown[]): Promise<{ claimed: ClaimedDelivery[]; taken: number }> {
    const rows = await this.dataSource.query<
      {
        ref: string;
        status: string;
        rcept_no: string;
        fcm_token: string;
        attempts: number;
        title: string | null;
        body: string | null;
        corp_code: string;
        corp_name: string;
        report_name: string;
        one_liner: string | null;
      }[]
    >(
      `WITH next AS (
         SELECT ctid, rcept_no, fcm_token, user_id, attempts, created_at FROM push_deliveries
         WHERE status = 'PENDING' AND ${due}
         ORDER BY available_at NULLS FIRST, created_at
         LIMIT $3 FOR UPDATE SKIP LOCKED
       ),
       judged AS (
         SELECT n.ctid, d.corp_code, d.corp_name, d.report_name, recheck.dropped, recheck.why
         FROM next n JOIN disclosures d ON d.rcept_no = n.rcept_no
         ${recheckSql('n', 'd.corp_code')}
       ),
       claimed AS (
         UPDATE push_deliveries p SET status = coalesce(j.dropped, 'SENDING'),
           attempts = CASE WHEN j.dropped IS NULL THEN p.attempts + 1 ELSE p.attempts END,
           lease_owner = CASE WHEN j.dropped IS NULL THEN $1 END,
           lease_expires_at = CASE WHEN j.dropped IS NULL THEN now() + $2 * interval '1 millisecond' END,
           last_error = CASE WHEN j.dropped IS NULL THEN p.last_error ELSE j.why END
         FROM judged j WHERE p.ctid = j.ctid
         RETURNING p.ctid::text AS ref, p.status, p.rcept_no, p.fcm_token, p.attempts, p.title, p.body, j.corp_code, j.corp_name, j.report_name
       )
       SELECT c.ref, c.status, c.rcept_no, c.fcm_token, c.attempts, c.title, c.body, c.corp_code, c.corp_name, c.report_name, a.one_liner
       FROM claimed c
       LEFT JOIN analyses a ON c.status = 'SENDING' AND a.rcept_no = c.rcept_no AND a.status = 'COMPLETED' AND a.one_liner <> ''`,
      params,
    );
    const claimed = rows
      .filter((row) => row.status === 'SENDING')
      .map((row) => ({
        ref: row.ref,
        rceptNo: row.rcept_no,
        token: row.fcm_token,
        attempts: row.attempts,
        corpCode: row.corp_code,
        corpName: row.corp_name,
        reportName: row.report_name,
        oneLiner: row.one_liner,
        text: row.title !== null && row.body !== null ? { title: row.title, body: row.body } : null,
      }));
    return { claimed, taken: rows.length };
  }

  /**
   * Records the outcomes of a sent batch, each only while `worker` still holds its
   * lease (a late answer after the lease expired is dropped), and deletes the tokens whose
   * deliveries were recorded UNREGISTERED, in one transaction. An outcome whose attempt is
   * refunded (never handed over, or refused for FCM's quota) takes back the claim's attempt.
   *
   * Each outcome finds its row by the ctid of the claim: one TID scan per outcome, whatever
   * the table's size. Left to itself the planner hashes the whole table, or, trusting
   * statistics that saw few rows SENDING, loops over the SENDING rows for every outcome
   * (quadratic): the transaction allows it nothing but the TID scan. A row changed since
   * (put back at lease expiry, or moved by a VACUUM FULL) no longer matches the ctid, key,
   * status and lease all at once, and is left as it is.
   */
  async record(
    worker: string,
    outcomes: Array<DeliveryOutcome & { ref: string; rceptNo: string; token: string; title: string; body: string }>,
  ): Promise<RecordedOutcomes> {
    if (outcomes.length === 0) return { recorded: 0, tokensRemoved: 0 };
    return this.dataSource.transaction(async (manager) => {
      await manager.query(ONLY_TID_SCANS);
      const finished = await manager.query<{ fcm_token: string; status: string }[]>(
        `WITH finished AS (
           UPDATE push_deliveries p
           SET status = o.status, available_at = o.available_at, last_error = o.error,
               sent_at = CASE WHEN o.status = 'SENT' THEN $7::timestamptz END,
               title = o.title, body = o.body,
               attempts = CASE WHEN o.refunded THEN p.attempts - 1 ELSE p.attempts END,
               lease_owner = NULL, lease_expires_at = NULL
           FROM unnest($2::bpchar[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $8::text[], $9::text[], $10::tid[], $11::boolean[])
             AS o(rcept_no, fcm_token, status, available_at, error, title, body, ref, refunded)
           WHERE p.ctid = o.ref AND p.rcept_no = o.rcept_no AND p.fcm_token = o.fcm_token
             AND p.status = 'SENDING' AND p.lease_owner = $1
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
          outcomes.map((o) => o.ref),
          outcomes.map((o) => o.attemptRefunded === true),
        ],
      );
      const gone = finished.filter((row) => row.status === 'UNREGISTERED').map((row) => row.fcm_token);
      let tokensRemoved = 0;
      if (gone.length > 0) {
        await manager.query(ALL_SCANS);
        tokensRemoved = await this.pushTokens.removeUnregistered(manager, gone);
      }
      return { recorded: finished.length, tokensRemoved };
    });
  }

  /**
   * Puts back every delivery whose SENDING lease expired or whose instance died
   * (src/fleet/lease-owners.ts): its sender died (or stalled) between claiming the batch
   * and recording the answer, so the message may or may not
   * have reached the device. With attempts left it is PENDING again, first in line (no
   * available_at), and the next claim re-checks and sends it again: a repeat is replaced on
   * the device by its collapse identity (the filing). With the attempts spent it is ABANDONED.
   * Reached through ix_push_deliveries_sending. Answers how many of each.
   */
  async reclaimExpired(): Promise<{ resent: number; abandoned: number }> {
    const [counts] = await this.dataSource.query<{ resent: number; abandoned: number }[]>(
      `WITH expired AS (
         UPDATE push_deliveries
         SET status = CASE WHEN attempts < $1 THEN 'PENDING' ELSE 'ABANDONED' END, available_at = NULL,
             lease_owner = NULL, lease_expires_at = NULL,
             last_error = left('lease of ' || lease_owner || ' ended while sending; ' ||
               CASE WHEN attempts < $1 THEN 'sent again' ELSE 'attempts spent, not sent again' END, 500)
         WHERE status = 'SENDING' AND (lease_expires_at < now() OR ($2::int > 0 AND ${leaseOwnerIsDead('lease_owner', '$2')}))
         RETURNING status
       ) SELECT count(*) FILTER (WHERE status = 'PENDING')::int AS resent, count(*) FILTER (WHERE status = 'ABANDONED')::int AS abandoned
         FROM expired`,
      // 0: this instance does not judge others dead now (FleetInstancesRepository.judgesOthersDead).
      [this.config.push.maxAttempts, this.fleet.judgesOthersDead() ? this.config.fleet.leaderTakeoverMs : 0],
    );
    return counts;
  }
}
