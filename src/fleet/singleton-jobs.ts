import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { backoffMs } from '../common/backoff';
import type { DatabaseConfig } from '../database/database.config';
import type { FleetConfig } from './fleet.config';
import { InjectConfig } from '../config/config.module';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { Metrics } from '../metrics/metrics';
import { FleetConnection } from './fleet-connection';
import { FleetSignals } from './fleet-signals';
import { InstanceIdentity } from './instance-identity';

/** A job that the fleet runs on one instance: the one that holds its lock. */
export interface SingletonJob {
  readonly name: string;
  /** The second key of its advisory lock (the first is ADVISORY_LOCKS.SINGLETON_JOBS); declared in src/jobs/job-catalog.ts. */
  readonly lockKey: number;
  /** This instance now runs the job (resume interrupted work, start timers). */
  lead(): void | Promise<void>;
  /** This instance no longer runs it (shutdown, lost database connection): stop at once. */
  resign(): void | Promise<void>;
}

/**
 * Leadership of the singleton jobs through PostgreSQL session advisory locks, one per
 * job, held on the instance's dedicated session (FleetConnection).
 *
 * Every LEADER_TAKEOVER_MS/4 (T/4) each instance tries the locks it lacks, which also
 * pings its session. Timeline of a leader that freezes or is cut off:
 *   - it resigns every job once a ping fails or does not answer within T/4: at most T/2
 *     after it sent the last ping that was answered;
 *   - the server ends its session after 5T/8 without a query (idle_session_timeout),
 *     which releases the locks: T/8 after the leader has stopped, leaving room for a
 *     late timer on its side;
 *   - a follower takes the locks at its next try, T/4 later at most: 7T/8 in all.
 * When the leader's process dies its socket closes, and the next try (T/4) takes over.
 * A leader whose session errs or ends resigns at once, then reconnects with backoff
 * and competes again.
 * A job's `lead()` never holds up the pings: it runs beside them.
 *
 * Jobs register in `onModuleInit`; the first election runs in `onApplicationBootstrap`
 * (a single instance leads everything once the application has started), and every
 * job is resigned in `beforeApplicationShutdown`, while the database is still there.
 */
@Injectable()
export class SingletonJobs implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SingletonJobs.name);
  private readonly jobs = new Map<string, SingletonJob>();
  private readonly leading = new Set<string>();
  private readonly connection: FleetConnection;
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;
  private electing?: Promise<void>;
  private reconnectAttempts = 0;
  private reconnectAt = 0;
  private stopped = false;
  private announced = '';

  constructor(
    @InjectConfig() config: { fleet: FleetConfig } & DatabaseConfig,
    identity: InstanceIdentity,
    private readonly signals: FleetSignals,
    metrics: Metrics,
  ) {
    metrics.sources.singletonJobs = () => Object.fromEntries([...this.jobs.keys()].map((name) => [name, this.leading.has(name)]));
    const takeoverMs = config.fleet.leaderTakeoverMs;
    this.intervalMs = Math.floor(takeoverMs / 4);
    this.connection = new FleetConnection(
      config.databaseUrl!,
      identity.id,
      { queryMs: this.intervalMs, idleTimeoutMs: Math.floor((takeoverMs * 5) / 8) },
      { onSignal: (topic) => this.signals.deliver(topic), onLost: (reason) => void this.onSessionLost(reason) },
    );
  }

  register(job: SingletonJob): void {
    if (this.jobs.has(job.name)) throw new Error(`singleton job ${job.name} registered twice`);
    if ([...this.jobs.values()].some((other) => other.lockKey === job.lockKey)) throw new Error(`lock key ${job.lockKey} taken twice`);
    this.jobs.set(job.name, job);
  }

  isLeading(name: string): boolean {
    return this.leading.has(name);
  }

  /** The jobs this instance runs now. */
  held(): string[] {
    return [...this.leading].sort();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.electOnce();
    this.timer = setInterval(() => void this.electOnce(), this.intervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.electing;
    await this.resignAll();
    // Ending the session releases the locks: a follower takes over at its next try.
    await this.connection.close();
  }

  /** One round: (re)connect when due, then try the locks not held (or just ping). Rounds never overlap. */
  private electOnce(): Promise<void> {
    this.electing ??= this.elect().finally(() => (this.electing = undefined));
    return this.electing;
  }

  private async elect(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.connection.isOpen) {
        if (Date.now() < this.reconnectAt) return;
        await this.connection.open();
        if (this.reconnectAttempts > 0) this.logger.log('leadership session open again: competing for the singleton jobs');
        this.reconnectAttempts = 0;
        // Changes made while the session was down were not signalled to us.
        this.signals.deliverAll();
      }
      const wanted = [...this.jobs.keys()].filter((name) => !this.leading.has(name));
      if (wanted.length === 0) return await this.connection.ping();
      const lockKeyOf = (name: string) => this.jobs.get(name)!.lockKey;
      const taken = new Set(await this.connection.tryLocks(ADVISORY_LOCKS.SINGLETON_JOBS, wanted.map(lockKeyOf)));
      for (const name of wanted) {
        if (!taken.has(lockKeyOf(name)) || this.stopped) continue;
        this.leading.add(name);
        // Not awaited: a job may take long to get going (resuming a run), and the session must keep pinging meanwhile.
        void Promise.resolve()
          .then(() => this.jobs.get(name)!.lead())
          .catch((error: unknown) => this.logger.error({ err: error }, `singleton job ${name}: starting it failed`));
      }
    } catch (error) {
      if (this.connection.isOpen) return;
      this.reconnectAttempts += 1;
      this.reconnectAt = Date.now() + backoffMs(this.reconnectAttempts, { baseMs: this.intervalMs, maxMs: 30_000, jitter: 0.2 });
      if (this.reconnectAttempts === 1) this.logger.warn({ err: error }, 'leadership session unavailable: retrying');
    } finally {
      this.announce();
    }
  }

  private async onSessionLost(why: string): Promise<void> {
    if (this.stopped) return;
    if (this.leading.size > 0) this.logger.warn(`leadership session lost (${why}): giving up ${this.held().join(', ')} at once`);
    this.reconnectAt = 0;
    await this.resignAll();
    this.announce();
  }

  private async resignAll(): Promise<void> {
    const names = this.held();
    this.leading.clear();
    await Promise.all(
      names.map(async (name) => {
        try {
          await this.jobs.get(name)!.resign();
        } catch (error) {
          this.logger.error({ err: error }, `singleton job ${name}: stopping it failed`);
        }
      }),
    );
  }

  /** One log line whenever the set of held jobs changes. */
  private announce(): void {
    const held = this.held().join(', ') || 'none';
    if (held === this.announced || this.stopped) return;
    this.announced = held;
    this.logger.log(`singleton jobs held by this instance: ${held}`);
  }
}
