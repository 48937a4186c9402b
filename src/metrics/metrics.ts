import { Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { version } from '../../package.json';
import { type CounterSeries, FastCounter, FastHistogram } from '../runtime-fixes/prom-client-fast-metrics/fast-metrics';

export type AnalysisOutcome = 'completed' | 'unavailable' | 'failed' | 'postponed';
export type PushOutcome = 'sent' | 'unregistered' | 'transient' | 'rejected';
/** The services this one calls; `upstream_requests_total` counts their calls by endpoint and result. */
export type Upstream = 'dart' | 'openai' | 'anthropic' | 'app_store' | 'google_play';

/** What a scrape asks the database for (queue depths, backlog, pool): set by the features that own them. */
export interface ScrapeSources {
  analysisQueue?: () => Promise<Record<string, number>>;
  /** Seconds the oldest PENDING analysis has waited since it was enqueued, by the database clock; 0 when none waits. */
  analysisOldestPending?: () => Promise<number>;
  pushBacklog?: () => Promise<Record<string, number>>;
  /** Each job's last success in job_states, in seconds since the epoch (jobs that never succeeded left out). */
  jobLastSuccess?: () => Promise<Record<string, number>>;
  /** Every singleton job registered on this instance: true while this instance holds it. */
  singletonJobs?: () => Record<string, boolean>;
  /** A trivial query through this instance's pool: resolves when the database answers. */
  databasePing?: () => Promise<unknown>;
  databasePool?: () => { inUse: number; idle: number; waiting: number };
  dartBudget?: () => { minuteLeft: number; dayLeft: number };
}

/**
 * prom-client's default gauges named like counters (`promtool check metrics`: non-counter
 * metrics should not have "_total" suffix). Each is the sum of a gauge it also exports by
 * type (`sum(nodejs_active_handles)`), so they are left out rather than renamed.
 */
const DEFAULT_GAUGES_NAMED_AS_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The service's Prometheus metrics: one Registry per application instance (several
 * apps share a process in tests, so never prom-client's global registry). Counters and
 * histograms are recorded where things happen; gauges that need the database are read
 * only when scraped, so a request pays nothing for them. docs/metrics.md lists them.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  readonly sources: ScrapeSources = {};

  /** Recorded per request (src/metrics/request-duration.ts): see FastHistogram for why not prom-client's. */
  readonly httpRequestDuration = new FastHistogram(
    'http_request_duration_seconds',
    'HTTP requests by method, route template and status code',
    ['method', 'route', 'status_code'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    this.registry,
  );

  readonly httpCacheRequests = new FastCounter(
    'http_cache_requests_total',
    'Cached routes answered from the cache (hit) or by running the handler (miss), by route template',
    ['route', 'result'],
    this.registry,
  );
  /** The hit and miss series of each cached route, kept so a cached answer records without a lookup by labels. */
  private readonly cacheSeries = new Map<string, { hit: CounterSeries; miss: CounterSeries }>();

  readonly analyses = new Counter({
    name: 'analyses_total',
    help: 'Analysis attempts by outcome and analyzer',
    labelNames: ['outcome', 'analyzer'] as const,
    registers: [this.registry],
  });

  readonly analysisDuration = new Histogram({
    name: 'analysis_duration_seconds',
    help: 'Time from claiming a filing to its recorded analysis (document, text, analyzer), by analyzer',
    labelNames: ['analyzer'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160],
    registers: [this.registry],
  });

  readonly pushMessages = new Counter({
    name: 'push_messages_total',
    help: 'Push messages handed to the sender, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly upstreamRequests = new Counter({
    name: 'upstream_requests_total',
    help: 'HTTP calls to the services this one depends on (disclosure system, AI model, stores), by endpoint and result',
    labelNames: ['upstream', 'endpoint', 'result'] as const,
    registers: [this.registry],
  });

  readonly storeNotifications = new Counter({
    name: 'store_notifications_total',
    help: 'Store notifications acknowledged, by store and outcome (a rejected one could never be processed)',
    labelNames: ['store', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly uncaughtErrors = new Counter({
    name: 'uncaught_errors_total',
    help: 'Errors nothing handled that the service kept running through (unhandled rejections, uncaught database errors), by kind and source',
    labelNames: ['kind', 'source'] as const,
    registers: [this.registry],
  });

  /** A listener for a client's calls to `upstream` (clients know nothing of the metrics). */
  upstreamListener(upstream: Upstream): (endpoint: string, result: string) => void {
    return (endpoint, result) => this.upstreamRequests.inc({ upstream, endpoint, result });
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of DEFAULT_GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
    const sources = this.sources;
    new Gauge({
      name: 'app_build_info',
      help: "The running build: the service's version (package.json) and the Node.js version, always 1",
      labelNames: ['version', 'node_version'] as const,
      registers: [this.registry],
    }).set({ version, node_version: process.versions.node }, 1);
    // Read first: a scrape's own queries (the gauges below) must not show in the pool's numbers.
    new Gauge({
      name: 'db_pool_connections',
      help: "This instance's database pool connections, in use or idle",
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const pool = sources.databasePool?.();
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.inUse);
        this.set({ state: 'idle' }, pool.idle);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries of this instance waiting for a free pool connection',
      registers: [this.registry],
      collect() {
        const pool = sources.databasePool?.();
        if (pool) this.set(pool.waiting);
      },
    });
    new Gauge({
      name: 'dart_budget_remaining',
      help: 'Disclosure-system calls left in the rolling minute and the KST day',
      labelNames: ['window'] as const,
      registers: [this.registry],
      collect() {
        const budget = sources.dartBudget?.();
        if (!budget) return;
        this.set({ window: 'minute' }, budget.minuteLeft);
        this.set({ window: 'day' }, budget.dayLeft);
      },
    });
    new Gauge({
      name: 'singleton_job_held',
      help: 'Singleton jobs registered on this instance: 1 while this instance holds (runs) the job, 0 otherwise',
      labelNames: ['job_name'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [name, held] of Object.entries(sources.singletonJobs?.() ?? {})) this.set({ job_name: name }, held ? 1 : 0);
      },
    });
    new Gauge({
      name: 'database_up',
      help: "1 when this instance's pool answered a trivial query at scrape, 0 when it failed (database down or unreachable, pool exhausted)",
      registers: [this.registry],
      async collect() {
        const ping = sources.databasePing;
        // No database (a module tested without one): left out rather than "down".
        if (!ping) {
          this.remove();
          return;
        }
        const up = await ping().then(
          () => true,
          () => false,
        );
        this.set(up ? 1 : 0);
      },
    });
    this.countsAtScrape('analysis_queue_depth', 'Analyses waiting or in progress, by status', 'status', () => sources.analysisQueue?.());
    this.valueAtScrape(
      'analysis_oldest_pending_age_seconds',
      'Seconds the oldest waiting (PENDING) analysis has waited since its filing was stored, 0 when none waits',
      () => sources.analysisOldestPending?.(),
    );
    this.countsAtScrape(
      'job_last_success_timestamp_seconds',
      'When each background job last succeeded (job_states), in seconds since the epoch; a job that never did is left out',
      'job_name',
      () => sources.jobLastSuccess?.(),
    );
    this.countsAtScrape(
      'push_outbox_backlog',
      'New-filing pushes not yet handed to the sender: fan-outs to expand and deliveries pending',
      'kind',
      () => sources.pushBacklog?.(),
    );
  }

  /** Counts one answer of a cached route: from the cache (`hit`) or by running its handler. */
  countCacheRequest(route: string, hit: boolean): void {
    let series = this.cacheSeries.get(route);
    if (series === undefined) {
      series = { hit: this.httpCacheRequests.series(route, 'hit'), miss: this.httpCacheRequests.series(route, 'miss') };
      this.cacheSeries.set(route, series);
    }
    (hit ? series.hit : series.miss).inc();
  }

  /**
   * A gauge of counts by one label, read from `read` when scraped (a label missing from
   * the answer is dropped; a failed read leaves the gauge empty, not the scrape failed).
   */
  private countsAtScrape(name: string, help: string, label: string, read: () => Promise<Record<string, number>> | undefined): void {
    const logger = this.logger;
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        let counts: Record<string, number>;
        try {
          counts = (await read()) ?? {};
        } catch (error) {
          // The rest of the scrape (the pool, the process) matters most when the database does not answer.
          logger.warn({ err: error }, `${name} left out of the scrape`);
          counts = {};
        }
        this.reset();
        for (const [value, count] of Object.entries(counts)) this.set({ [label]: value }, count);
      },
    });
  }

  /** A gauge of one value read from `read` when scraped; without a source, or when the read fails, it is left out. */
  private valueAtScrape(name: string, help: string, read: () => Promise<number> | undefined): void {
    const logger = this.logger;
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        let value: number | undefined;
        try {
          value = await read();
        } catch (error) {
          logger.warn({ err: error }, `${name} left out of the scrape`);
        }
        // An unlabelled gauge prints 0 unless its one series is removed: 0 would read as "nothing waits".
        if (value === undefined) this.remove();
        else this.set(value);
      },
    });
  }
}
