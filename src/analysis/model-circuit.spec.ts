import { FakeClock } from '../../test/support/fake-clock';
import { type ModelCallPermit, ModelCircuit } from './model-circuit';

const POLICY = { threshold: 3, baseMs: 1_000, maxMs: 8_000, maxRetryAfterMs: 60_000 };

describe('ModelCircuit', () => {
  let clock: FakeClock;
  let circuit: ModelCircuit;
  beforeEach(() => {
    clock = new FakeClock();
    circuit = new ModelCircuit(clock, POLICY);
  });

  const call = (): ModelCallPermit => {
    const permit = circuit.permit();
    if (permit === null) throw new Error('expected a permit');
    return permit;
  };
  /** Fails `n` ordinary calls taken while closed. */
  const outages = (n: number) => {
    const permits = Array.from({ length: n }, call);
    for (const permit of permits) circuit.failed(permit);
  };

  it('lets every claim call the model while it answers', () => {
    const permits = Array.from({ length: 5 }, call);
    expect(permits.every((permit) => !permit.probe)).toBe(true);
    expect(circuit.state).toBe('closed');
    expect(circuit.allowsClaim()).toBe(true);
  });

  it('stays closed below the threshold, and an answer between outages starts the count again', () => {
    outages(2);
    expect(circuit.state).toBe('closed');
    circuit.answered();
    outages(2);
    expect(circuit.state).toBe('closed');
    expect(circuit.allowsClaim()).toBe(true);
  });

  it('opens after the threshold: no claim at all during the pause', () => {
    outages(3);
    expect(circuit.state).toBe('open');
    expect(circuit.allowsClaim()).toBe(false);
    expect(circuit.permit()).toBeNull();
    clock.advance(999);
    expect(circuit.permit()).toBeNull();
  });

  it('after the pause, lets one probe through at a time', () => {
    outages(3);
    clock.advance(1_000);
    expect(circuit.state).toBe('half-open');
    const probe = call();
    expect(probe.probe).toBe(true);
    expect(circuit.allowsClaim()).toBe(false);
    expect(circuit.permit()).toBeNull();
    // The probe claimed nothing (or never reached the model): the next claim probes.
    circuit.release(probe);
    expect(call().probe).toBe(true);
  });

  it('doubles the pause after each failed probe, up to the cap', () => {
    outages(3);
    const pauses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const opened = clock.monotonicMs();
      // Finds when the circuit lets a probe through again.
      while (circuit.state === 'open') clock.advance(100);
      pauses.push(clock.monotonicMs() - opened);
      circuit.failed(call());
    }
    expect(pauses).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('closes on the probe’s answer: every claim calls again, and the outage asks for a re-queue once', () => {
    // The first answer since start ends whatever outage came before this instance.
    expect(circuit.answered()).toBe(true);
    expect(circuit.answered()).toBe(false);
    outages(3);
    clock.advance(1_000);
    call();
    expect(circuit.answered()).toBe(true);
    expect(circuit.state).toBe('closed');
    expect(Array.from({ length: 4 }, call).every((permit) => !permit.probe)).toBe(true);
    expect(circuit.answered()).toBe(false);
    // Pauses start from the base again.
    outages(3);
    clock.advance(1_000);
    expect(circuit.state).toBe('half-open');
  });

  it('honours a Retry-After at once, beyond the exponential cap but not past its own', () => {
    circuit.failed(call(), 30_000);
    expect(circuit.state).toBe('open');
    clock.advance(29_999);
    expect(circuit.permit()).toBeNull();
    clock.advance(1);
    circuit.failed(call(), 10 * 60_000);
    clock.advance(60_000);
    expect(circuit.state).toBe('half-open');
  });

  it('lets a call that started before the circuit opened extend the pause only by a longer Retry-After', () => {
    const [straggler, slow] = [call(), call()];
    outages(3);
    circuit.failed(straggler);
    clock.advance(999);
    expect(circuit.state).toBe('open');
    circuit.failed(slow, 5_000);
    clock.advance(4_999);
    expect(circuit.state).toBe('open');
    clock.advance(1);
    expect(circuit.state).toBe('half-open');
    expect(call().probe).toBe(true);
  });

  it('closes on an answer to a call from before the outage: the model is there', () => {
    const early = call();
    outages(3);
    circuit.answered();
    expect(circuit.state).toBe('closed');
    circuit.failed(early);
    expect(circuit.state).toBe('closed');
  });

  it('asks for the re-queue again after it failed', () => {
    expect(circuit.answered()).toBe(true);
    circuit.recoveryFailed();
    expect(circuit.answered()).toBe(true);
  });
});
