import { backoffMs } from '../common/backoff';
import type { Clock } from '../common/clock';

export interface ModelCircuitPolicy {
  /** Outages in a row, with no answer between them, that open the circuit. */
  threshold: number;
  /** The first pause once open; each failed probe doubles it, up to `maxMs`. */
  baseMs: number;
  maxMs: number;
  /** The longest Retry-After honoured as it is: an API's wait beyond it is read as this. */
  maxRetryAfterMs: number;
}

/**
 * `closed`: the model answers, every claim may call it. `open`: it is out, nothing is
 * claimed until the pause ends. `half-open`: the pause ended, one claim at a time probes it.
 */
export type ModelCircuitState = 'closed' | 'open' | 'half-open';

/** What one claim may do: call the model, as an ordinary call or as the circuit's probe. */
export interface ModelCallPermit {
  readonly probe: boolean;
}

/**
 * The analysis scheduler's view of the model during an outage, on one instance. While the
 * model answers, every free slot calls it. After `threshold` outages in a row (or one that
 * says how long to wait), the circuit opens: nothing is claimed for the pause (Retry-After
 * when the API gave one, else exponential with a cap), then one probe at a time until an
 * answer comes, and every slot again from that answer on. An answer that is not an analysis
 * still counts as an answer: the model is there, the filing is the problem.
 *
 * The scheduler keeps a second one, with the same policy, on the disclosure system's
 * document.xml (no Retry-After there): the upstream differs, the arithmetic does not.
 *
 * Single-threaded: `permit` is taken synchronously at the start of a claim, so two claims
 * never both become the probe.
 */
export class ModelCircuit {
  private outagesInARow = 0;
  /** Times it opened since the last answer: the exponent of the pause. */
  private opened = 0;
  private openUntilMs: number | null = null;
  private probe: ModelCallPermit | null = null;
  /**
   * The next answer ends an outage: what it postponed may be claimed at once. True at start,
   * so analyses an outage left UNAVAILABLE before this instance ran are re-queued too.
   */
  private recoveryDue = true;

  constructor(
    private readonly clock: Clock,
    private readonly policy: ModelCircuitPolicy,
  ) {}

  get state(): ModelCircuitState {
    if (this.openUntilMs === null) return 'closed';
    return this.clock.monotonicMs() < this.openUntilMs ? 'open' : 'half-open';
  }

  /** Whether a claim may start now: the pool asks before each. */
  allowsClaim(): boolean {
    const state = this.state;
    return state === 'closed' || (state === 'half-open' && this.probe === null);
  }

  /** The permit of one claim, or null when the circuit allows none now. */
  permit(): ModelCallPermit | null {
    const state = this.state;
    if (state === 'closed') return { probe: false };
    if (state === 'open' || this.probe !== null) return null;
    this.probe = { probe: true };
    return this.probe;
  }

  /** The claim ended without the model's word (nothing to claim, no document): the next claim probes instead. */
  release(permit: ModelCallPermit): void {
    if (this.probe === permit) this.probe = null;
  }

  /**
   * The model answered, well or not. True when this answer ends an outage (or is the first
   * since start): the caller re-queues what the outage postponed.
   */
  answered(): boolean {
    this.outagesInARow = 0;
    this.opened = 0;
    this.openUntilMs = null;
    // A probe still in flight is an ordinary call now.
    this.probe = null;
    const recovered = this.recoveryDue;
    this.recoveryDue = false;
    return recovered;
  }

  /** The model could not be asked (429, 5xx, a timeout, no connection); `retryAfterMs` is the wait the API asked for. */
  failed(permit: ModelCallPermit, retryAfterMs?: number): void {
    const wasProbe = this.probe === permit;
    this.release(permit);
    this.outagesInARow += 1;
    const state = this.state;
    const asked = retryAfterMs === undefined ? undefined : Math.min(retryAfterMs, this.policy.maxRetryAfterMs);
    if (state === 'closed' && this.outagesInARow < this.policy.threshold && asked === undefined) return;
    const now = this.clock.monotonicMs();
    if (state === 'open' && !wasProbe) {
      // A call that started before the circuit opened: only a longer wait the API asked for moves the end.
      if (asked !== undefined) this.openUntilMs = Math.max(this.openUntilMs!, now + asked);
      return;
    }
    this.opened += 1;
    this.recoveryDue = true;
    this.openUntilMs = now + (asked ?? backoffMs(this.opened, { baseMs: this.policy.baseMs, maxMs: this.policy.maxMs }));
  }

  /** Re-queueing after the outage failed (database down): the next answer tries again. */
  recoveryFailed(): void {
    this.recoveryDue = true;
  }
}
