import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { backoffMs } from '../common/backoff';
import { Clock } from '../common/clock';
import { maxBackoffMs } from '../jobs/job-catalog';
import { InjectConfig } from '../config/config.module';
import { NewFilingsStep, type NewFilingsStepHandler, type StoredFilings } from '../disclosures/new-filings-step';
import type { FleetConfig } from '../fleet/fleet.config';
import { FleetInstancesRepository } from '../fleet/fleet-instances.repository';
import { leaseOwnerIsDead } from '../fleet/lease-owners';
import type { AnalysisConfig } from './analysis.config';
import type { AnalysisStatus } from './analysis.entity';
import type { AnalysisResult } from './analyzers/analysis-result.schema';
import type { AnalyzerOutput } from './analyzers/analyzer';

/** A claimed analysis, with what the worker needs to know about its filing. */
export interface ClaimedAnalysis {
  rceptNo: string;
  /** Attempts spent, this one included: claims, less those given back (outages, our own faults). */
  attempts: number;
  /** Outages in a row (the model's or the disclosure system's) that postponed this analysis since it last got an answer. */
  outageFailures: number;
  corpName: string;
  reportName: string;
  rceptDt: string;
}

/** A filing's analysis as stored; `status` is null when the filing has no analysis row. */
export interface StoredAnalysis {
  status: AnalysisStatus | null;
  one_liner: string | null;
  result: AnalysisResult | null;
  doc_length: number | null;
}

export interface CompletedAnalysis {
  output: AnalyzerOutput;
  docLength: number;
  truncated: boolean;
}

/**
 * Owner of table analyses: the only writer. The table is a work queue shared by
 * every instance: the disclosure ingest enqueues a PENDING analysis with each new
 * filing, in the filing's transaction (`onFilingsStored`). A worker claims
 * one row with `FOR UPDATE SKIP LOCKED` (claims never wait on each other), holds
 * it under a lease, and finishes it only while it still owns that lease, so a
 * completed analysis is never overwritten and a lease left by a crashed worker is
 * taken over once it expires.
 *
 * An outage of the model or of the disclosure system spends no attempt: the analysis waits
 * (`postponeForOutage`, counted in `outage_failures`) and is claimable again as soon as the
 * one that was out answers (`requeueAfterOutage`). Only answers spend attempts (a model's
 * that is not an analysis, a document that cannot be read), so UNAVAILABLE is for filings
 * without a usable document and filings answered badly `maxAttempts` times.
 */
@NewFilingsStep()
@Injectable()
export class AnalysesRepository implements NewFilingsStepHandler {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() private readonly config: { ai: AnalysisConfig; fleet: FleetConfig },
    private readonly clock: Clock,
    private readonly fleet: FleetInstancesRepository,
  ) {}

  /** The ingest's step: a PENDING analysis for each new filing, those of news that someone watches urgent. */
  async onFilingsStored(manager: EntityManager, { stored, news }: StoredFilings): Promise<void> {
    await this.enqueue(manager, stored);
    // Their pushes wait for the one-liner: analysed ahead of everything else.
    await this.prioritiseWatched(manager, news);
  }

  /** A PENDING analysis for each filing, in the transaction that stores the filings. */
  async enqueue(manager: EntityManager, rceptNos: string[]): Promise<void> {
    if (rceptNos.length === 0) return;
    await manager.query('INSERT INTO analyses (rcept_no) SELECT unnest($1::text[])', [rceptNos]);
  }

  /**
   * Marks urgent, in the caller's transaction, the analyses of these new filings whose
   * company someone watches with notifications on: their push waits for the one-liner.
   */
  async prioritiseWatched(manager: EntityManager, rceptNos: string[]): Promise<void> {
    if (rceptNos.length === 0) return;
    await manager.query(
      `UPDATE analyses a SET priority = 1 FROM disclosures d
       WHERE a.rcept_no = ANY($1::text[]) AND d.rcept_no = a.rcept_no
         AND EXISTS (SELECT 1 FROM watch_stocks w WHERE w.corp_code = d.corp_code AND w.notify_enabled)`,
      [rceptNos],
    );
  }

  /** Analyses waiting (PENDING) or in progress (PROCESSING), for the metrics; the partial indexes answer it. */
  async depths(): Promise<Record<string, number>> {
    const rows = await this.dataSource.query<{ status: string; n: number }[]>(
      "SELECT status, count(*)::int AS n FROM analyses WHERE status IN ('PENDING', 'PROCESSING') GROUP BY status",
    );
    const depths: Record<string, number> = { PENDING: 0, PROCESSING: 0 };
    for (const row of rows) depths[row.status] = row.n;
    return depths;
  }

  /**
   * Seconds the oldest PENDING analysis has waited since it was enqueued, by the database
   * clock (0 when none waits), for the metrics: the oldest new one is the first entry of
   * ix_analyses_new; retries (ix_analyses_retry) are few, and read whole.
   */
  async oldestPendingAgeSeconds(): Promise<number> {
    const [{ age }] = await this.dataSource.query<{ age: number }[]>(
      `SELECT coalesce(extract(epoch FROM now() - least(
         (SELECT min(created_at) FROM analyses WHERE status = 'PENDING' AND available_at IS NULL),
         (SELECT min(created_at) FROM analyses WHERE status = 'PENDING' AND available_at IS NOT NULL))), 0)::float8 AS age`,
    );
    return Math.max(0, age);
  }

  /** Claims the oldest claimable analysis for `worker`, or null when there is none. */
  async claim(worker: string): Promise<ClaimedAnalysis | null> {
    const now = this.clock.now();
    // Urgent new filings first (a watcher's push waits for them), then leases that expired
    // or whose instance died, then retries whose backoff ended: their filings have waited
    // longest. One query per kind keeps each an ordered index scan (PROCESSING rows are few:
    // at most the fleet's concurrency).
    const candidates: [string, unknown[]][] = [
      [
        `SELECT rcept_no FROM analyses WHERE status = 'PENDING' AND available_at IS NULL AND priority > 0
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [],
      ],
      this.fleet.judgesOthersDead()
        ? [
            `SELECT rcept_no FROM analyses WHERE status = 'PROCESSING'
               AND (lease_expires_at < now() OR ${leaseOwnerIsDead('lease_owner', '$3')})
             ORDER BY lease_expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
            [this.config.fleet.leaderTakeoverMs],
          ]
        : [
            `SELECT rcept_no FROM analyses WHERE status = 'PROCESSING' AND lease_expires_at < now()
             ORDER BY lease_expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
            [],
          ],
      [
        `SELECT rcept_no FROM analyses WHERE status = 'PENDING' AND available_at <= $3
         ORDER BY available_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [now],
      ],
      [
        `SELECT rcept_no FROM analyses WHERE status = 'PENDING' AND available_at IS NULL
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [],
      ],
    ];
    for (const [candidate, params] of candidates) {
      const [claimed] = await this.dataSource.query<
        { rcept_no: string; attempts: number; outage_failures: number; corp_name: string; report_name: string; rcept_dt: string }[]
      >(
        `WITH next AS (${candidate}),
         claimed AS (
           UPDATE analyses a SET status = 'PROCESSING', attempts = a.attempts + 1, lease_owner = $1,
             lease_expires_at = now() + $2 * interval '1 millisecond', updated_at = now()
           FROM next WHERE a.rcept_no = next.rcept_no
           RETURNING a.rcept_no, a.attempts, a.outage_failures
         )
         SELECT c.rcept_no, c.attempts, c.outage_failures, d.corp_name, d.report_name, d.rcept_dt
         FROM claimed c JOIN disclosures d ON d.rcept_no = c.rcept_no`,
        [worker, this.config.ai.leaseMs, ...params],
      );
      if (claimed) {
        return {
          rceptNo: claimed.rcept_no,
          attempts: claimed.attempts,
          outageFailures: claimed.outage_failures,
          corpName: claimed.corp_name,
          reportName: claimed.report_name,
          rceptDt: claimed.rcept_dt,
        };
      }
    }
    return null;
  }

  /** Stores the result; false when the lease was lost meanwhile (the result is dropped). */
  async complete(worker: string, rceptNo: string, done: CompletedAnalysis): Promise<boolean> {
    const { output } = done;
    return this.finish(
      `status = 'COMPLETED', one_liner = $3, result = $4, doc_length = $5, truncated = $6,
       provider = $7, model = $8, prompt_tokens = $9, completion_tokens = $10,
       completed_at = $11, last_error = NULL, outage_failures = 0`,
      [
        worker,
        rceptNo,
        output.oneLiner,
        JSON.stringify(output.result),
        done.docLength,
        done.truncated,
        output.provider,
        output.model,
        output.usage.promptTokens,
        output.usage.completionTokens,
        this.clock.now(),
      ],
    );
  }

  /** The filing can never be analysed (no usable document, or the model's answers were bad every time): terminal. */
  async markUnavailable(worker: string, rceptNo: string, reason: string): Promise<boolean> {
    return this.finish(`status = 'UNAVAILABLE', last_error = $3, outage_failures = 0`, [worker, rceptNo, reason.slice(0, 1000)]);
  }

  /**
   * A failed attempt (the model answered, but not an analysis; a document that could not
   * be read): back to PENDING after an exponential backoff, or UNAVAILABLE
   * once the attempts are spent. Returns the status the analysis ended in, or null
   * when the lease was lost.
   */
  async fail(worker: string, job: ClaimedAnalysis, reason: string): Promise<'PENDING' | 'UNAVAILABLE' | null> {
    if (job.attempts >= this.config.ai.maxAttempts) {
      return (await this.markUnavailable(worker, job.rceptNo, reason)) ? 'UNAVAILABLE' : null;
    }
    const backoff = backoffMs(job.attempts, { baseMs: this.config.ai.retryBaseMs, maxMs: maxBackoffMs('analysis') });
    const retried = await this.release(worker, job.rceptNo, backoff, reason, 'spent');
    return retried ? 'PENDING' : null;
  }

  /**
   * The model or the disclosure system could not be asked (429, 5xx, DART's 800 or 900, a
   * timeout, no connection): back to PENDING without spending the attempt, after the wait
   * the API asked for or an exponential backoff on this analysis' outages in a row. The
   * wait ends early when that upstream answers again (`requeueAfterOutage`). False when
   * the lease was lost.
   */
  async postponeForOutage(worker: string, job: ClaimedAnalysis, reason: string, retryAfterMs?: number): Promise<boolean> {
    const maxMs = maxBackoffMs('analysis');
    const delay =
      retryAfterMs !== undefined
        ? Math.min(retryAfterMs, maxMs)
        : backoffMs(job.outageFailures + 1, { baseMs: this.config.ai.retryBaseMs, maxMs });
    return this.release(worker, job.rceptNo, delay, reason, 'outage');
  }

  /**
   * The model or the disclosure system answers again: every analysis an outage postponed is claimable now, and
   * every one an outage left UNAVAILABLE (before outages stopped spending attempts) is
   * PENDING again with its attempts back. Returns how many were re-queued.
   */
  async requeueAfterOutage(): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      `WITH requeued AS (
         UPDATE analyses SET status = 'PENDING', available_at = $1,
           attempts = CASE WHEN status = 'UNAVAILABLE' THEN 0 ELSE attempts END, updated_at = now()
         WHERE outage_failures > 0 AND (status = 'UNAVAILABLE' OR (status = 'PENDING' AND available_at > $1))
         RETURNING 1
       ) SELECT count(*)::int AS n FROM requeued`,
      [this.clock.now()],
    );
    return n;
  }

  /**
   * Puts an analysis back after a failure that is not the filing's fault (the
   * disclosure system refuses our key, the model refuses our credentials): the
   * attempt is not counted, so a configuration problem cannot exhaust the queue.
   */
  async postpone(worker: string, rceptNo: string, delayMs: number, reason: string): Promise<boolean> {
    return this.release(worker, rceptNo, delayMs, reason, 'refund');
  }

  /** The analysis of a filing, in the caller's transaction; undefined when the filing does not exist. */
  async findForFiling(manager: EntityManager, rceptNo: string): Promise<StoredAnalysis | undefined> {
    const [row] = await manager.query<StoredAnalysis[]>(
      `SELECT a.status, a.one_liner, a.result, a.doc_length
       FROM disclosures d LEFT JOIN analyses a ON a.rcept_no = d.rcept_no WHERE d.rcept_no = $1`,
      [rceptNo],
    );
    return row;
  }

  /**
   * The analysis of a filing and whether `viewerId` revealed it (revealed_disclosures,
   * written by RevealedDisclosuresRepository), in one statement; undefined when the filing does not exist.
   */
  async findForViewer(rceptNo: string, viewerId: number | null): Promise<(StoredAnalysis & { revealed: boolean }) | undefined> {
    const [row] = await this.dataSource.query<(StoredAnalysis & { revealed: boolean })[]>(
      `SELECT a.status, a.one_liner, a.result, a.doc_length,
              EXISTS (SELECT 1 FROM revealed_disclosures r WHERE r.user_id = $2 AND r.rcept_no = d.rcept_no) AS revealed
       FROM disclosures d LEFT JOIN analyses a ON a.rcept_no = d.rcept_no
       WHERE d.rcept_no = $1`,
      [rceptNo, viewerId],
    );
    return row;
  }

  /** Analyses that ended, by outcome, every instance's included. */
  async countFinished(): Promise<{ completed: number; unavailable: number }> {
    const [counts] = await this.dataSource.query<{ completed: number; unavailable: number }[]>(
      `SELECT count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
              count(*) FILTER (WHERE status = 'UNAVAILABLE')::int AS unavailable
         FROM analyses WHERE status IN ('COMPLETED', 'UNAVAILABLE')`,
    );
    return counts;
  }

  /** Analyses waiting to be claimed now or later. */
  async countQueued(): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM analyses WHERE status IN ('PENDING', 'PROCESSING')",
    );
    return n;
  }

  /**
   * Back to PENDING until `delayMs` from now. `spent`: the attempt counts, and the model's
   * outages in a row end; `refund`: it does not (our fault, not the filing's); `outage`: it
   * does not, and the outage is counted.
   */
  private async release(worker: string, rceptNo: string, delayMs: number, reason: string, attempt: 'spent' | 'refund' | 'outage') {
    const counts = {
      spent: ', outage_failures = 0',
      refund: ', attempts = attempts - 1',
      outage: ', attempts = attempts - 1, outage_failures = outage_failures + 1',
    }[attempt];
    return this.finish(`status = 'PENDING', available_at = $3, last_error = $4${counts}`, [
      worker,
      rceptNo,
      new Date(this.clock.nowMs() + delayMs),
      reason.slice(0, 1000),
    ]);
  }

  /** Applies `assignments` only while `worker` still holds the lease; $1 is the worker, $2 the filing. */
  private async finish(assignments: string, params: unknown[]): Promise<boolean> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      `WITH finished AS (
         UPDATE analyses SET ${assignments}, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
         WHERE rcept_no = $2 AND status = 'PROCESSING' AND lease_owner = $1
         RETURNING 1
       ) SELECT count(*)::int AS n FROM finished`,
      params,
    );
    return n === 1;
  }
}
