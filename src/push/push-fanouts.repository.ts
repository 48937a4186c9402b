import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { NewFilingsStep, type NewFilingsStepHandler, type StoredFilings } from '../disclosures/new-filings-step';

/** A pending fan-out taken for expansion: the company whose watchers it goes to, and what their filters look at. */
export interface TakenFanout {
  rceptNo: string;
  corpCode: string;
  reportName: string;
  /** The impact level of the filing's completed analysis; null without one. */
  impact: string | null;
  /** The last watcher (user id) already expanded; 0 before the first step. */
  expandedThroughUser: number;
}

/**
 * Owner of table push_fanouts: the only writer. The push outbox: the disclosure
 * ingest adds a row per new filing in the filing's own transaction (so no
 * announcement is lost to a crash), and PushDeliveriesRepository takes the oldest pending
 * one, a few thousand watchers per transaction, each step recorded in the transaction
 * that creates its deliveries, and marks it EXPANDED with the last.
 */
@NewFilingsStep()
@Injectable()
export class PushFanoutsRepository implements NewFilingsStepHandler {
  /** The ingest's step: the news among the new filings is queued for announcement, with the filings, so none is lost to a crash. */
  async onFilingsStored(manager: EntityManager, { news }: StoredFilings): Promise<void> {
    await this.add(manager, news);
  }

  /** Queues the filings for announcement; a filing already queued is left as it is. */
  async add(manager: EntityManager, rceptNos: string[]): Promise<void> {
    if (rceptNos.length === 0) return;
    await manager.query('INSERT INTO push_fanouts (rcept_no) SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING', [rceptNos]);
  }

  /**
   * Locks the oldest pending fan-out that may go now, for the rest of `manager`'s
   * transaction, skipping those another instance holds; null when none is free. A fan-out
   * goes once its filing's analysis ended (so the push carries the one-liner) or once it
   * waited `summaryWaitMs` since it was stored (then with the report name). The wait is
   * state in the table, timed by the database clock: nothing sleeps per filing, and a
   * restart loses no waiting fan-out.
   */
  async takeOldestReady(manager: EntityManager, summaryWaitMs: number): Promise<TakenFanout | null> {
    const [fanout] = await manager.query<
      { rcept_no: string; corp_code: string; report_name: string; impact: string | null; expanded_through_user: number | null }[]
    >(
      `SELECT f.rcept_no, d.corp_code, d.report_name, f.expanded_through_user,
              CASE WHEN a.status = 'COMPLETED' THEN a.result -> 'impact' ->> 'level' END AS impact
       FROM push_fanouts f
       JOIN disclosures d ON d.rcept_no = f.rcept_no
       LEFT JOIN analyses a ON a.rcept_no = f.rcept_no
       WHERE f.status = 'PENDING'
         AND (a.status IN ('COMPLETED', 'UNAVAILABLE') OR a.rcept_no IS NULL
              OR f.created_at <= now() - make_interval(secs => $1 / 1000.0))
       ORDER BY f.created_at LIMIT 1 FOR UPDATE OF f SKIP LOCKED`,
      [summaryWaitMs],
    );
    if (!fanout) return null;
    return {
      rceptNo: fanout.rcept_no,
      corpCode: fanout.corp_code,
      reportName: fanout.report_name,
      impact: fanout.impact,
      expandedThroughUser: fanout.expanded_through_user ?? 0,
    };
  }

  /** Fan-outs not yet expanded, for the metrics. */
  async pendingCount(manager: EntityManager): Promise<number> {
    const [{ n }] = await manager.query<{ n: number }[]>("SELECT count(*)::int AS n FROM push_fanouts WHERE status = 'PENDING'");
    return n;
  }

  /**
   * Records one expansion step: `deliveries` more, the watchers done through user
   * `throughUser`, and, when `done`, the fan-out EXPANDED.
   */
  async recordStep(
    manager: EntityManager,
    rceptNo: string,
    step: { deliveries: number; throughUser: number; done: boolean; at: Date },
  ): Promise<void> {
    await manager.query(
      `UPDATE push_fanouts
       SET deliveries = coalesce(deliveries, 0) + $2, expanded_through_user = $3,
           status = CASE WHEN $4 THEN 'EXPANDED' ELSE status END, expanded_at = CASE WHEN $4 THEN $5::timestamptz END
       WHERE rcept_no = $1`,
      [rceptNo, step.deliveries, step.throughUser, step.done, step.at],
    );
  }
}
