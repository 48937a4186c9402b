/** Every outbound call to an identity provider gives up after this long. */
export const PROVIDER_TIMEOUT_MS = 5000;

/** The fields of a fetch failure this reads; duck-typed, as errors of another realm fail `instanceof`. */
interface FetchFailure {
  name?: unknown;
  message?: unknown;
  cause?: { code?: unknown; message?: unknown };
}

/** Why a call got no HTTP answer, for the log after the provider's name: the timeout, or the network's error. */
export function whyNoAnswer(error: unknown): string {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as FetchFailure;
  if (failure.name === 'TimeoutError') return `gave no answer within ${PROVIDER_TIMEOUT_MS} ms`;
  // Node's fetch reports network failures as `TypeError: fetch failed` with the system error as its cause.
  if (typeof failure.cause?.code === 'string') return `is unreachable (${failure.cause.code})`;
  return `is unreachable (${String(failure.cause?.message ?? failure.message ?? error)})`;
}
