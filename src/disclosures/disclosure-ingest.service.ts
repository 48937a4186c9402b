import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { kstDate } from '../common/korea-time';
import type { DartFiling } from '../upstream/dart/dart.types';
import { DISCLOSURE_CREATED, type DisclosureCreatedEvent, type DisclosureSource } from './disclosure-events';
import { DisclosuresRepository } from './disclosures.repository';
import { derivedDisclosureFields, type DisclosureView } from './disclosure.view';
import { NewFilingsStep, type NewFilingsStepHandler } from './new-filings-step';

export interface SaveNewOptions {
  /**
   * Runs last in the transaction that stores the filings, when some were new, with their receipt
   * numbers: what must commit or roll back with them (a backfill's count of saved filings). Throwing
   * rolls the filings back.
   */
  withStored?: (manager: EntityManager, stored: string[]) => Promise<void>;
}

/**
 * Stores filings that are new and, in the same transaction, runs the steps of the features
 * above (`@NewFilingsStep()`: a PENDING analysis for each, AnalysesRepository; a push announcement
 * for news, PushFanoutsRepository), then announces each new one after the commit. Existing filings are
 * never touched.
 */
@Injectable()
export class DisclosureIngestService implements OnModuleInit {
  private readonly logger = new Logger(DisclosureIngestService.name);
  private steps: NewFilingsStepHandler[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly disclosures: DisclosuresRepository,
    private readonly discovery: DiscoveryService,
  ) {}

  /** Every provider is built before the first module's init hook: the steps are all there. */
  onModuleInit(): void {
    this.steps = this.discovery
      .getProviders({ metadataKey: NewFilingsStep.KEY })
      .map((wrapper) => wrapper.instance as NewFilingsStepHandler);
  }

  /** Returns the filings that were new, in the order given. */
  async saveNew(filings: DartFiling[], source: DisclosureSource, options: SaveNewOptions = {}): Promise<DartFiling[]> {
    const usable = filings.filter((filing) => {
      const ok = isStorable(filing);
      if (!ok) this.logger.warn(`skipping a malformed filing from upstream: ${JSON.stringify(filing).slice(0, 200)}`);
      return ok;
    });
    if (usable.length === 0) return [];

    const inserted = await this.dataSource.transaction(async (manager) => {
      const stored = await this.disclosures.insertNew(manager, usable);
      if (stored.length > 0) {
        const today = kstDate(this.clock.now());
        const news = usable
          .filter((filing) => stored.includes(filing.rcept_no) && isNews(source, filing.rcept_dt, today))
          .map((filing) => filing.rcept_no);
        for (const step of this.steps) await step.onFilingsStored(manager, { stored, news });
        await options.withStored?.(manager, stored);
      }
      return new Set(stored);
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
    ...derivedDisclosureFields(filing.rcept_no, filing.report_nm.trim()),
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
