import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { kstDate } from '../common/korea-time';
import type { DartFiling } from '../upstream/dart/dart.types';
import { DISCLOSURE_CREATED, type DisclosureCreatedEvent, type DisclosureSource } from './disclosure-events';
import type { DisclosureView } from './disclosure.view';

/**
 * Stores filings that are new, each with a PENDING analysis in the same
 * transaction, and announces each new one after the commit. Existing filings
 * are never touched.
 */
@Injectable()
export class DisclosureIngestService {
  private readonly logger = new Logger(DisclosureIngestService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
  ) {}

  /** Returns the filings that were new, in the order given. */
  async saveNew(filings: DartFiling[], source: DisclosureSource): Promise<DartFiling[]> {
    const usable = filings.filter((filing) => {
      const ok = isStorable(filing);
      if (!ok) this.logger.warn(`skipping a malformed filing from upstream: ${JSON.stringify(filing).slice(0, 200)}`);
      return ok;
    });
    if (usable.length === 0) return [];

    const column = <K extends keyof DartFiling>(key: K, max: number) => usable.map((f) => (f[key] ?? '').trim().slice(0, max));
    const inserted = await this.dataSource.transaction(async (manager) => {
      const rows = await manager.query<{ rcept_no: string }[]>(
        `INSERT INTO disclosures (rcept_no, corp_code, corp_name, stock_code, corp_cls, report_name, rcept_dt, submitter, remarks)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
         ON CONFLICT (rcept_no) DO NOTHING
         RETURNING rcept_no`,
        [
          column('rcept_no', 14),
          column('corp_code', 8),
          column('corp_name', 255),
          column('stock_code', 6),
          usable.map((f) => f.corp_cls?.trim().slice(0, 1) || null),
          column('report_nm', 500),
          column('rcept_dt', 8),
          column('flr_nm', 255),
          column('rm', 50),
        ],
      );
      if (rows.length > 0) {
        const stored = rows.map((row) => row.rcept_no);
        await manager.query('INSERT INTO analyses (rcept_no) SELECT unnest($1::text[])', [stored]);
        // The push outbox is written with the filing, so no announcement is lost to a crash.
        const today = kstDate(this.clock.now());
        const news = usable
          .filter((filing) => stored.includes(filing.rcept_no) && isNews(source, filing.rcept_dt, today))
          .map((filing) => filing.rcept_no);
        if (news.length > 0) {
          await manager.query('INSERT INTO push_fanouts (rcept_no) SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING', [news]);
        }
      }
      return new Set(rows.map((row) => row.rcept_no));
    });

    // A batch may repeat a filing; each new one is announced once.
    const created = usable.filter((filing) => inserted.delete(filing.rcept_no));
    for (const filing of created) {
      const event: DisclosureCreatedEvent = { disclosure: filingToView(filing), source };
      this.events.emit(DISCLOSURE_CREATED, event);
    }
    return created;
  }
}

/**
 * Only news is pushed: what the monitor finds, and what an admin fetch finds for
 * today. Backfilled and past filings are history.
 */
function isNews(source: DisclosureSource, rceptDt: string, today: string): boolean {
  return source === 'monitor' || (source === 'fetch' && rceptDt === today);
}

export function filingToView(filing: DartFiling): DisclosureView {
  return {
    rcept_no: filing.rcept_no,
    corp_name: filing.corp_name.trim(),
    corp_code: filing.corp_code,
    stock_code: (filing.stock_code ?? '').trim(),
    report_name: filing.report_nm.trim(),
    rcept_dt: filing.rcept_dt,
    submitter: (filing.flr_nm ?? '').trim(),
  };
}

function isStorable(filing: DartFiling): boolean {
  return (
    /^\d{14}$/.test(filing.rcept_no ?? '') &&
    /^\d{8}$/.test(filing.rcept_dt ?? '') &&
    /^\d{8}$/.test(filing.corp_code ?? '') &&
    typeof filing.corp_name === 'string' &&
    typeof filing.report_nm === 'string'
  );
}
