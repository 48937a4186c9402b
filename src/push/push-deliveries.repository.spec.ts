import { planOutcome } from './push-deliveries.repository';

describe('planOutcome', () => {
  const policy = { maxAttempts: 4, retryBaseMs: 10_000 };
  const now = Date.parse('2026-11-20T01:00:00Z');

  it('records a sent message', () => {
    expect(planOutcome({ ok: true }, 1, policy, now)).toEqual({ status: 'SENT', availableAt: null, error: null });
  });

  it('marks an unregistered token, and fails a rejected message at once, whatever the attempts left', () => {
    expect(planOutcome({ ok: false, failure: 'unregistered', error: 'gone' }, 1, policy, now)).toEqual({
      status: 'UNREGISTERED',
      availableAt: null,
      error: 'gone',
    });
    expect(planOutcome({ ok: false, failure: 'rejected', error: 'invalid argument' }, 1, policy, now)).toEqual({
      status: 'FAILED',
      availableAt: null,
      error: 'invalid argument',
    });
  });

  it('puts a transient failure back with a doubling backoff until the attempts are spent', () => {
    const transient = { ok: false, failure: 'transient', error: 'unavailable' } as const;
    const waits = [1, 2, 3].map((attempts) => planOutcome(transient, attempts, policy, now));
    expect(waits.map((w) => w.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(waits.map((w) => w.availableAt!.getTime() - now)).toEqual([10_000, 20_000, 40_000]);
    expect(planOutcome(transient, 4, policy, now)).toEqual({ status: 'FAILED', availableAt: null, error: 'unavailable' });
  });

  it('never waits more than 15 minutes between attempts', () => {
    const outcome = planOutcome({ ok: false, failure: 'transient', error: 'x' }, 10, { maxAttempts: 20, retryBaseMs: 60_000 }, now);
    expect(outcome.availableAt!.getTime() - now).toBe(15 * 60_000);
  });
});
