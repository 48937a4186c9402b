import { runAsJob } from '../logging/job-context';
import { inJobSpan } from '../tracing/job-span';

/** The longest a pool waits for its running jobs at shutdown. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface WorkerPoolOptions<Job> {
  /** What the pool's log lines say runs (`job`), e.g. `analysis`; each pass and each job gets a `jobId` of its own. */
  name: string;
  /**
   * Whose leases this pool's claims are: the instance's id (InstanceIdentity.id), so that a
   * lease of an instance that stopped beating can be taken over before it expires
   * (src/fleet/lease-owners.ts).
   */
  workerId: string;
  /** Most jobs run at once. */
  concurrency: number;
  /** How often an idle pool looks for work nobody announced: ended backoffs, expired leases, other instances. */
  pollIntervalMs: number;
  /** Claims the next due job under this pool's lease, or null when none is due. */
  claim(workerId: string): Promise<Job | null>;
  /** Runs one claimed job to its recorded end. */
  work(job: Job): Promise<void>;
  /** False holds claiming for now (an exhausted upstream budget, a disabled sender). */
  canClaim?(): boolean;
  /**
   * A pass run on every wake-up before the slots are filled (e.g. expanding fan-outs into jobs).
   * Passes never overlap: a wake-up during one asks for one more pass after it.
   */
  prepare?(): Promise<void>;
  /** Claiming, or the preparing pass, failed (database down); the slot is freed and the next wake-up tries again. */
  onClaimError(error: unknown): void;
  /** `work` threw: its result could not be recorded, so the job's lease expires and the queue decides. */
  onWorkError(job: Job, error: unknown): void;
}

/**
 * Runs jobs from a leased database queue with up to `concurrency` at once. A wake-up
 * (a new job announced, or the poll timer) fills every free slot while there is
 * claimable work; each finished job fills its slot again. Several instances may run
 * the same pool against one database: leases carry `workerId`.
 */
export class WorkerPool<Job> {
  private running = false;
  /** Slots taken, including claims in progress, so concurrent wake-ups never exceed the limit. */
  private taken = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private pollTimer?: NodeJS.Timeout;
  private preparing?: Promise<void>;
  private prepareAgain = false;

  constructor(private readonly options: WorkerPoolOptions<Job>) {}

  /** Identifies this instance's leases. */
  get workerId(): string {
    return this.options.workerId;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Jobs running or being claimed now. */
  get active(): number {
    return this.taken;
  }

  /** Starts polling and wakes at once; false when it was already running. */
  start(): boolean {
    if (this.running) return false;
    this.running = true;
    this.pollTimer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
    return true;
  }

  /** Claims nothing new; running jobs finish. False when it was already stopped. */
  stop(): boolean {
    if (!this.running) return false;
    this.running = false;
    clearInterval(this.pollTimer);
    return true;
  }

  /** Runs the preparing pass (if any) then fills the free slots; after the pass in progress if one is. */
  wake(): void {
    if (!this.running) return;
    const prepare = this.options.prepare;
    if (!prepare) return this.fill();
    if (this.preparing !== undefined) {
      this.prepareAgain = true;
      return;
    }
    this.preparing = runAsJob(this.options.name, prepare)
      .then(() => this.fill())
      // Nobody awaits a wake-up: a failed pass (database down) is reported as a failed claim, never left unhandled.
      .catch((error: unknown) => this.options.onClaimError(error))
      .finally(() => {
        this.preparing = undefined;
        if (this.prepareAgain) {
          this.prepareAgain = false;
          this.wake();
        }
      });
  }

  /**
   * Takes a slot and claims a job for it; each successful claim tries the next slot,
   * so one call fills every free slot while there is claimable work.
   */
  fill(): void {
    if (!this.running || this.taken >= this.options.concurrency) return;
    if (this.options.canClaim && !this.options.canClaim()) return;
    this.taken += 1;
    // A wake-up from a request (a new filing stored by an admin fetch) must not lend the job its request id.
    const run = runAsJob(this.options.name, () => this.runOne()).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  }

  /**
   * Resolves when no pass and no job is in progress: true then, or false if `graceMs`
   * passed first (the jobs left keep running; their leases decide what becomes of them).
   */
  async drain(graceMs = Infinity): Promise<boolean> {
    const idle = (async () => {
      while (this.preparing !== undefined || this.inFlight.size > 0) {
        await Promise.allSettled([this.preparing, ...this.inFlight]);
      }
      return true;
    })();
    if (graceMs === Infinity) return idle;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([idle, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)))]);
    clearTimeout(timer);
    return finished;
  }

  /**
   * Stops claiming and waits for running jobs, up to the shorter of their lease and
   * SHUTDOWN_GRACE_MS; returns how many were still running. Waiting past the lease is
   * pointless (the job is claimed again anyway), and an orchestrator stops waiting for
   * us after about 10 s (docker stop's default).
   */
  async shutdown(leaseMs: number): Promise<number> {
    this.stop();
    return (await this.drain(Math.min(leaseMs, SHUTDOWN_GRACE_MS))) ? 0 : this.taken;
  }

  private async runOne(): Promise<void> {
    let job: Job | null;
    try {
      job = await this.options.claim(this.workerId);
    } catch (error) {
      this.taken -= 1;
      this.options.onClaimError(error);
      return;
    }
    if (job === null) {
      this.taken -= 1;
      return;
    }
    this.fill();
    try {
      await inJobSpan(this.options.name, () => this.options.work(job));
    } catch (error) {
      this.options.onWorkError(job, error);
    } finally {
      this.taken -= 1;
      this.fill();
    }
  }
}
