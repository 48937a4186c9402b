export interface HttpCachePolicy {
  /** How long a 2xx answer is served from the cache, and its `Cache-Control: max-age`. */
  ttlSeconds: number;
  /**
   * The answer depends on the calendar day in Korea ("today's" lists): the key carries
   * the KST date by the injectable clock, so nothing cached before midnight KST is
   * served after it, whatever is left of the TTL.
   */
  perKstDay?: boolean;
}

/** Metadata key under which `@HttpCache` leaves the route's policy for the interceptor. */
export const HTTP_CACHE_POLICY = Symbol('HTTP_CACHE_POLICY');

/** Error answers (non-2xx, unexpected faults included) are kept this long, whatever the route's TTL. */
export const FAILURE_TTL_SECONDS = 5;

/** `Cache-Control` of a cached route's answer; `null` max-age: an answer that was not cached. */
export function cacheControlFor(maxAgeSeconds: number | null): string {
  return maxAgeSeconds === null ? 'no-store' : `public, max-age=${maxAgeSeconds}`;
}
