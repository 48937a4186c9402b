export interface BackoffPolicy {
  /** The wait after the first failed attempt; each further failure doubles it. */
  baseMs: number;
  /** Longest wait, before jitter; none by default. */
  maxMs?: number;
  /** Up to this fraction is added at random (0.2 = up to 20 % longer), so retrying clients spread out. */
  jitter?: number;
  /** Source of the jitter, in [0, 1). */
  random?: () => number;
}

/** How long to wait after failed attempt number `attempt` (1 for the first): `baseMs * 2^(attempt-1)`, capped, plus jitter. */
export function backoffMs(attempt: number, policy: BackoffPolicy): number {
  const wait = Math.min(policy.baseMs * 2 ** (attempt - 1), policy.maxMs ?? Infinity);
  if (!policy.jitter) return wait;
  return Math.round(wait * (1 + policy.jitter * (policy.random ?? Math.random)()));
}
