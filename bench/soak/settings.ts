import { envNumber } from '../harness';

/** Everything `npm run soak` can be told through the environment, read once at start. */
export interface SoakSettings {
  /** Length of the compressed trading day (load and filings), in ms. */
  runMs: number;
  filings: number;
  users: number;
  watches: number;
  tokens: number;
  /** Share of users with quiet hours that end during the run. */
  quietShare: number;
  readsPerSecond: number;
  writesPerSecond: number;
  /** Companies of the disclosure-system sandbox (the real registry has about 115,000). */
  companies: number;
  /** Share of seeded tokens the push recorder answers UNREGISTERED (stable per token). */
  unregisteredShare: number;
  /** Upper bound on the wait for the queues to empty after the load stops. */
  drainMs: number;
  /** A message handed over within this long of a change that forbids it is not counted against the service. */
  inflightMs: number;
  /** After a fault ends, errors in this long still count as the fault's. */
  settleMs: number;
  leaderTakeoverMs: number;
  analysisConcurrency: number;
  analysisLeaseMs: number;
  pushLeaseMs: number;
  monitorIntervalMs: number;
  dartPerMinute: number;
  dartPerDay: number;
  dartSlowMs: number;
  /** Target of the read latency outside the fault windows (p99), and of filing → push (p50). */
  readP99TargetMs: number;
  pushP50TargetMs: number;
  /** How soon after each fault both targets must hold again. */
  recoveryMs: number;
  rssGrowthLimit: number;
  logLevel: string;
  writeDocs: boolean;
  seed: number;
}

export function readSettings(): SoakSettings {
  const minutes = envNumber('SOAK_MINUTES', 10, 1, 240);
  const users = envNumber('SOAK_USERS', 20_000, 100, 1_000_000);
  return {
    runMs: Math.round(minutes * 60_000),
    filings: envNumber('SOAK_FILINGS', 1_500, 10, 100_000),
    users,
    // Default proportions of the issue: 5 watch entries and 2 tokens a user.
    watches: envNumber('SOAK_WATCHES', users * 5, 0, 10_000_000),
    tokens: envNumber('SOAK_TOKENS', users * 2, 0, 10_000_000),
    quietShare: envNumber('SOAK_QUIET_SHARE', 0.08, 0, 1),
    readsPerSecond: envNumber('SOAK_READS_PER_S', 50, 0, 10_000),
    writesPerSecond: envNumber('SOAK_WRITES_PER_S', 6, 0, 1_000),
    companies: envNumber('SOAK_COMPANIES', 115_000, 1_000, 200_000),
    unregisteredShare: envNumber('SOAK_UNREGISTERED_SHARE', 0.02, 0, 0.5),
    drainMs: envNumber('SOAK_DRAIN_S', 420, 10, 3_600) * 1000,
    inflightMs: envNumber('SOAK_INFLIGHT_MS', 3_000, 0, 60_000),
    settleMs: envNumber('SOAK_SETTLE_S', 10, 0, 600) * 1000,
    leaderTakeoverMs: envNumber('SOAK_LEADER_TAKEOVER_MS', 5_000, 1_000, 600_000),
    analysisConcurrency: envNumber('SOAK_ANALYSIS_CONCURRENCY', 12, 1, 64),
    analysisLeaseMs: envNumber('SOAK_ANALYSIS_LEASE_MS', 180_000, 1_000, 3_600_000),
    pushLeaseMs: envNumber('SOAK_PUSH_LEASE_MS', 60_000, 1_000, 3_600_000),
    monitorIntervalMs: envNumber('SOAK_MONITOR_INTERVAL_MS', 5_000, 1_000, 600_000),
    dartPerMinute: envNumber('SOAK_DART_PER_MINUTE', 1_000, 1, 1_000_000),
    dartPerDay: envNumber('SOAK_DART_PER_DAY', 20_000, 1, 100_000_000),
    dartSlowMs: envNumber('SOAK_DART_SLOW_MS', 2_000, 0, 60_000),
    readP99TargetMs: envNumber('SOAK_READ_P99_MS', 25, 1, 60_000),
    pushP50TargetMs: envNumber('SOAK_PUSH_P50_MS', 10_000, 1, 600_000),
    recoveryMs: envNumber('SOAK_RECOVERY_S', 180, 10, 3_600) * 1000,
    rssGrowthLimit: envNumber('SOAK_RSS_GROWTH', 0.2, 0, 10),
    logLevel: process.env.SOAK_LOG_LEVEL ?? 'warn',
    writeDocs: (process.env.SOAK_WRITE_DOCS ?? process.env.BENCH_WRITE_DOCS ?? 'true') !== 'false',
    seed: envNumber('SOAK_SEED', 2026, 1, 2 ** 31 - 1),
  };
}

/** Which seeded tokens the push recorder reports UNREGISTERED: a stable choice by the token itself. */
export function isDoomedToken(token: string, share: number): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 0x01000193);
  return (hash >>> 0) / 0x1_0000_0000 < share;
}

/** Doomed tokens are seeded only: the load generator names its new tokens with this prefix and never dooms them. */
export const SEEDED_TOKEN_PREFIX = 'soak-seed-';
export const NEW_TOKEN_PREFIX = 'soak-new-';
