import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PushFanoutEntity } from './push-fanout.entity';

/** A pending fan-out taken for expansion, with the company whose watchers it goes to. */
export interface TakenFanout {
  rceptNo: string;
  corpCode: string;
}

/**
 * Owner of table push_fanouts: the only writer. The push outbox: the disclosure
 * ingest adds a row per new filing in the filing's own transaction (so no
 * announcement is lost to a crash), and PushDeliveryQueue takes the oldest pending
 * one and marks it EXPANDED in the transaction that creates its deliveries.
 */
@Injectable()
export class PushOutbox {
  /** Queues the filings for announcement; a filing already queued is left as it is. */
  async add(manager: EntityManager, rceptNos: string[]): Promise<void> {
    if (rceptNos.length === 0) return;
    await manager.query('INSERT INTO push_fanouts (rcept_no) SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING', [rceptNos]);
  }

  /**
   * Locks the oldest pending fan-out for the rest of `manager`'s transaction, skipping
   * those another instance holds; null when none is free.
   */
  async takeOldestPending(manager: EntityManager): Promise<TakenFanout | null> {
    const [fanout] = await manager.query<{ rcept_no: string; corp_code: string }[]>(
      `SELECT f.rcept_no, d.corp_code FROM push_fanouts f JOIN disclosures d ON d.rcept_no = f.rcept_no
       WHERE f.status = 'PENDING' ORDER BY f.created_at LIMIT 1 FOR UPDATE OF f SKIP LOCKED`,
    );
    return fanout ? { rceptNo: fanout.rcept_no, corpCode: fanout.corp_code } : null;
  }

  /** Fan-outs not yet expanded, for the metrics. */
  async pendingCount(manager: EntityManager): Promise<number> {
    const [{ n }] = await manager.query<{ n: number }[]>("SELECT count(*)::int AS n FROM push_fanouts WHERE status = 'PENDING'");
    return n;
  }

  async markExpanded(manager: EntityManager, rceptNo: string, deliveries: number, expandedAt: Date): Promise<void> {
    await manager.getRepository(PushFanoutEntity).update({ rceptNo }, { status: 'EXPANDED', deliveries, expandedAt });
  }
}
