import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { FleetConfig } from './fleet.config';
import { Clock } from '../common/clock';
import { InjectConfig } from '../config/config.module';
import { FleetSignals } from './fleet-signals';
import { InstanceIdentity } from './instance-identity';
import { SingletonJobs } from './singleton-jobs';

/** The longest between two heartbeats (shorter when LEADER_TAKEOVER_MS asks for it). */
const HEARTBEAT_MS = 2_000;

/** What an instance says about its analysis scheduler at each heartbeat. */
export interface AnalysisReport {
  running: boolean;
  active: number;
  concurrency: number;
}

/** A live instance as the fleet status lists it. */
export interface FleetInstance {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  lastHeartbeatAt: string;
  status: 'running' | 'paused';
  activeThreads: number;
  concurrency: number;
  singletonJobs: string[];
}

/**
 * Owner of table fleet_instances: the only writer. Each instance writes its row every
 * heartbeat (at most 2 s apart) and deletes it at shutdown; a row whose heartbeat is
 * older than LEADER_TAKEOVER_MS is a dead instance and is no longer listed (and is
 * deleted after an hour by whoever notices). Each heartbeat also has the followed fleet
 * signals re-read (FleetSignals.follow), so a NOTIFY lost while a session was down costs
 * them at most one heartbeat.
 */
@Injectable()
export class FleetInstancesRepository implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(FleetInstancesRepository.name);
  private readonly intervalMs: number;
  private readonly liveWithinMs: number;
  private timer?: NodeJS.Timeout;
  private beating?: Promise<void>;
  private reportAnalysis: () => AnalysisReport = () => ({ running: false, active: 0, concurrency: 0 });
  private failing = false;
  /** The clock's monotonic time since which every heartbeat has succeeded; undefined while they fail. */
  private beatingSince: number | undefined;

  constructor(
    @InjectConfig() config: { fleet: FleetConfig },
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly identity: InstanceIdentity,
    private readonly singletonJobs: SingletonJobs,
    private readonly signals: FleetSignals,
    private readonly clock: Clock,
  ) {
    this.liveWithinMs = config.fleet.leaderTakeoverMs;
    this.intervalMs = Math.min(HEARTBEAT_MS, Math.floor(config.fleet.leaderTakeoverMs / 4));
  }

  /**
   * Whether this instance may judge another dead by its silent heartbeat (src/fleet/lease-owners.ts):
   * only once its own heartbeats have succeeded for LEADER_TAKEOVER_MS without a gap. After a
   * database outage every heartbeat in the table is old; an instance just back would otherwise
   * take the leases of instances that have not beaten again yet, and their work would be done twice.
   */
  judgesOthersDead(): boolean {
    return this.beatingSince !== undefined && this.clock.monotonicMs() - this.beatingSince >= this.liveWithinMs;
  }

  /** The analysis scheduler registers what its heartbeat reports (the fleet module imports no feature). */
  reportAnalysisWith(report: () => AnalysisReport): void {
    this.reportAnalysis = report;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beating ??= this.beat().finally(() => (this.beating = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.dataSource.query('DELETE FROM fleet_instances WHERE id = $1', [this.identity.id]).catch(() => undefined);
  }

  /** Live instances, oldest first; this instance's own figures are taken now, not from its last heartbeat. */
  async live(): Promise<FleetInstance[]> {
    const rows: FleetInstance[] = await this.dataSource.query(
      `SELECT id, host, pid, started_at AS "startedAt", heartbeat_at AS "lastHeartbeatAt", analysis_status AS status,
              analysis_active AS "activeThreads", analysis_concurrency AS concurrency, singleton_jobs AS "singletonJobs"
         FROM fleet_instances
        WHERE heartbeat_at > now() - $1 * interval '1 millisecond'
        ORDER BY started_at, id`,
      [this.liveWithinMs],
    );
    return rows.map((row) => {
      const own = row.id === this.identity.id ? this.ownReport() : {};
      return {
        ...row,
        startedAt: new Date(row.startedAt).toISOString(),
        lastHeartbeatAt: new Date(row.lastHeartbeatAt).toISOString(),
        ...own,
      };
    });
  }

  /** This instance's figures as of now. */
  private ownReport(): Pick<FleetInstance, 'status' | 'activeThreads' | 'concurrency' | 'singletonJobs'> {
    const analysis = this.reportAnalysis();
    return {
      status: analysis.running ? 'running' : 'paused',
      activeThreads: analysis.active,
      concurrency: analysis.concurrency,
      singletonJobs: this.singletonJobs.held(),
    };
  }

  private async beat(): Promise<void> {
    const own = this.ownReport();
    try {
      await this.dataSource.query(
        `INSERT INTO fleet_instances (id, host, pid, analysis_status, analysis_active, analysis_concurrency, singleton_jobs)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), analysis_status = $4, analysis_active = $5,
           analysis_concurrency = $6, singleton_jobs = $7`,
        [this.identity.id, this.identity.host, this.identity.pid, own.status, own.activeThreads, own.concurrency, own.singletonJobs],
      );
      await this.dataSource.query("DELETE FROM fleet_instances WHERE heartbeat_at < now() - interval '1 hour'");
      if (this.failing) this.logger.log('fleet heartbeat written again');
      this.failing = false;
      this.beatingSince ??= this.clock.monotonicMs();
    } catch (error) {
      this.beatingSince = undefined;
      if (!this.failing)
        this.logger.warn({ err: error }, 'fleet heartbeat failed: this instance looks dead to the others until it succeeds');
      this.failing = true;
    }
    this.signals.deliverFollowed();
  }
}
