import { describeRun, IDLE_RUN } from './job-run-status';
import type { JobRun } from './job-runs.repository';

const run = (overrides: Partial<JobRun>): JobRun => ({
  id: 1,
  kind: 'backfill',
  status: 'running',
  params: {},
  phase: 'collecting',
  total: 1000,
  processed: 100,
  failed: 0,
  counts: {},
  checkpoint: null,
  lastError: null,
  startedAt: new Date('2026-11-20T03:00:00Z'),
  resumedAt: null,
  resumedProcessed: 0,
  finishedAt: null,
  runBy: 'host:1:abcdef',
  elapsedSeconds: 10,
  ...overrides,
});

describe('describeRun', () => {
  it('is idle without a run', () => {
    expect(describeRun(null)).toEqual(IDLE_RUN);
  });

  it('derives the rate since the start and the seconds left at that rate', () => {
    expect(describeRun(run({}))).toMatchObject({
      rate_per_second: 10,
      eta_seconds: 90,
      started_at: '2026-11-20T03:00:00.000Z',
      resumed_at: null,
    });
  });

  it('counts only what the current executor did since it resumed', () => {
    const resumed = run({ resumedAt: new Date('2026-11-20T04:00:00Z'), processed: 400, resumedProcessed: 300, elapsedSeconds: 20 });
    expect(describeRun(resumed)).toMatchObject({ rate_per_second: 5, eta_seconds: 120, resumed_at: '2026-11-20T04:00:00.000Z' });
  });

  it('tells no rate under a second into a run, and no time left while the total is unknown or nothing moved', () => {
    expect(describeRun(run({ elapsedSeconds: 0.4 }))).toMatchObject({ rate_per_second: null, eta_seconds: null });
    expect(describeRun(run({ total: null }))).toMatchObject({ rate_per_second: 10, eta_seconds: null });
    expect(describeRun(run({ processed: 0 }))).toMatchObject({ rate_per_second: 0, eta_seconds: null });
  });

  it('gives 0 seconds left for a completed run and none for a failed one', () => {
    expect(describeRun(run({ status: 'completed', processed: 1000, elapsedSeconds: 0.5 }))).toMatchObject({
      rate_per_second: 2000,
      eta_seconds: 0,
    });
    expect(describeRun(run({ status: 'failed' }))).toMatchObject({ rate_per_second: 10, eta_seconds: null });
  });
});
