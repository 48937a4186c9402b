import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock';
import { kstDate } from '../common/korea-time';
import type { JobsConfig } from '../jobs/jobs.config';
import { InjectConfig } from '../config/config.module';
import { JobScheduler } from '../jobs/job-scheduler';
import { DartClient } from '../upstream/dart/dart-client';
import { DartError, type DartFiling } from '../upstream/dart/dart.types';
import { DisclosureIngestService } from './disclosure-ingest.service';
import { DisclosuresRepository } from './disclosures.repository';
import { noteFilings } from '../tracing/job-span';
import { nextPollDelayMs } from './monitor-cadence';

export interface MonitorPollResult {
  /** Filings read from upstream before reaching known ones. */
  fetched: number;
  saved: number;
}

/**
 * Polls today's filings (Korea time) every DISCLOSURE_MONITOR_INTERVAL_MS in KST business
 * hours, every DISCLOSURE_MONITOR_IDLE_INTERVAL_MS otherwise. It pages newest first and
 * stops at the first filing it already has, so a quiet minute costs one request.
 *
 * With DISCLOSURE_MONITOR_AUTO_START it is the loop job 'disclosure-monitor' of the job
 * catalog: one instance of the fleet polls, polls never overlap, and another instance takes
 * over when it dies. (Two polls at once would still be harmless: the insert ignores filings
 * that exist, and only inserted rows raise events; they would only spend the budget twice.)
 */
@Injectable()
export class DisclosureMonitorService implements OnModuleInit {
  private readonly logger = new Logger(DisclosureMonitorService.name);

  constructor(
    @InjectConfig() private readonly config: { jobs: JobsConfig },
    private readonly disclosures: DisclosuresRepository,
    private readonly clock: Clock,
    private readonly dart: DartClient,
    private readonly ingest: DisclosureIngestService,
    private readonly jobs: JobScheduler,
  ) {}

  onModuleInit(): void {
    const { disclosureMonitorAutoStart, disclosureMonitorIntervalMs: busy, disclosureMonitorIdleIntervalMs: idle } = this.config.jobs;
    this.jobs.schedule('disclosure-monitor', {
      enabled: disclosureMonitorAutoStart,
      run: () => this.pollOnce(),
      // Fast in KST business hours, slow otherwise (docs/filings-and-companies.md, "Jobs").
      nextDelayMs: () => nextPollDelayMs(this.clock.now(), busy, idle),
      onLead: () =>
        this.logger.log(`disclosure monitor started: polling every ${busy} ms in KST business hours, every ${idle} ms otherwise`),
      logFailure: (error) => this.logFailure(error),
    });
  }

  /** One poll of today's filings. */
  async pollOnce(): Promise<MonitorPollResult> {
    const today = kstDate(this.clock.now());
    const known = await this.disclosures.receiptNumbersOn(today);
    const fresh: DartFiling[] = [];
    for await (const filing of this.dart.listFilings(
      { bgnDe: today, endDe: today },
      { priority: 'monitor', until: (candidate) => known.has(candidate.rcept_no) },
    )) {
      fresh.push(filing);
    }
    // Upstream lists newest first; store and announce oldest first.
    const saved = await this.ingest.saveNew(fresh.reverse(), 'monitor');
    noteFilings(saved.map((filing) => filing.rcept_no));
    if (saved.length > 0) this.logger.log(`monitor stored ${saved.length} new filing(s)`);
    return { fetched: fresh.length, saved: saved.length };
  }

  private logFailure(error: unknown): void {
    if (error instanceof DartError && error.kind === 'configuration') {
      this.logger.error({ err: error }, `disclosure monitor: the disclosure system refuses our key (${error.status})`);
    } else if (error instanceof DartError && error.kind === 'budget') {
      // Refused by the budget before any upstream call: the next poll asks again.
      this.logger.warn({ err: error }, 'disclosure monitor: waiting for the disclosure-system budget');
    } else {
      this.logger.warn({ err: error }, 'disclosure monitor poll failed');
    }
  }
}
