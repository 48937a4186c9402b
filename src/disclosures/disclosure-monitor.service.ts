import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock';
import { kstDate } from '../common/korea-time';
import type { AppConfig } from '../config/app-config';
import { InjectConfig } from '../config/config.module';
import { SingletonJobs } from '../fleet/singleton-jobs';
import { runAsJob } from '../logging/job-context';
import { DartClient } from '../upstream/dart/dart-client';
import { DartError, type DartFiling } from '../upstream/dart/dart.types';
import { DisclosureIngestService } from './disclosure-ingest.service';
import { DisclosureStore } from './disclosure-store';
import { nextPollDelayMs } from './monitor-cadence';

export interface MonitorPollResult {
  /** Filings read from upstream before reaching known ones. */
  fetched: number;
  saved: number;
}

/**
 * Polls today's filings (Korea time) every DISCLOSURE_MONITOR_INTERVAL_MS. It pages
 * newest first and stops at the first filing it already has, so a quiet minute
 * costs one request. Polls never overlap.
 *
 * With DISCLOSURE_MONITOR_AUTO_START it is the singleton job 'disclosure-monitor': one
 * instance of the fleet polls, and another takes over when it dies. (Two polls at once
 * would still be harmless: the insert ignores filings that exist, and only inserted rows
 * raise events; they would only spend the budget twice.)
 */
@Injectable()
export class DisclosureMonitorService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DisclosureMonitorService.name);
  private timer?: NodeJS.Timeout;
  private running = false;
  /** Which start the scheduled polls belong to: a poll of an earlier start that ends late schedules nothing. */
  private generation = 0;
  private polling?: Promise<unknown>;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly disclosures: DisclosureStore,
    private readonly clock: Clock,
    private readonly dart: DartClient,
    private readonly ingest: DisclosureIngestService,
    private readonly singletonJobs: SingletonJobs,
  ) {}

  onModuleInit(): void {
    if (!this.config.jobs.disclosureMonitorAutoStart) return;
    this.singletonJobs.register({
      name: 'disclosure-monitor',
      lead: () => this.start(),
      resign: async () => {
        this.stop();
        await this.polling;
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stop();
    await this.polling;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.generation += 1;
    const { disclosureMonitorIntervalMs: busy, disclosureMonitorIdleIntervalMs: idle } = this.config.jobs;
    this.logger.log(`disclosure monitor started: polling every ${busy} ms in KST business hours, every ${idle} ms otherwise`);
    this.schedule(0, this.generation);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
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
    if (saved.length > 0) this.logger.log(`monitor stored ${saved.length} new filing(s)`);
    return { fetched: fresh.length, saved: saved.length };
  }

  private schedule(delayMs: number, generation: number): void {
    if (!this.running || generation !== this.generation) return;
    // A monitor (re)started by an admin request still polls as a job of its own, not as that request.
    this.timer = setTimeout(() => runAsJob('disclosure-monitor', () => this.pollInTurn(generation)), delayMs);
    this.timer.unref();
  }

  /** Fast in KST business hours, slow otherwise (docs/filings-and-companies.md, "Jobs"). */
  private nextDelayMs(): number {
    const { disclosureMonitorIntervalMs: busy, disclosureMonitorIdleIntervalMs: idle } = this.config.jobs;
    return nextPollDelayMs(this.clock.now(), busy, idle);
  }

  private pollInTurn(generation: number): void {
    // Restarted while the last poll still runs (leadership lost and won back): wait for it, never overlap.
    this.polling = Promise.resolve(this.polling)
      .then(() => (this.running && generation === this.generation ? this.pollOnce() : undefined))
      .catch((error: unknown) => {
        if (error instanceof DartError && error.kind === 'configuration') {
          this.logger.error(`disclosure monitor: the disclosure system refuses our key (${error.status}): ${error.message}`);
        } else if (error instanceof DartError && error.kind === 'budget') {
          // Refused by the budget before any upstream call: the next poll asks again.
          this.logger.warn(`disclosure monitor: waiting for the disclosure-system budget: ${error.message}`);
        } else {
          this.logger.warn(`disclosure monitor poll failed: ${String(error)}`);
        }
      })
      .finally(() => this.schedule(this.nextDelayMs(), generation));
  }
}
