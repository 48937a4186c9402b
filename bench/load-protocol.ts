/**
 * Messages between the bench (parent) and the load generator (a second Node
 * process, so the generator never competes with the server for its event loop).
 */

/** Where each request's URL comes from: `urls` in turn from `offset`, made unique with `_=<bust><n>` when `bust` is set. */
export interface UrlSource {
  urls: string[];
  offset: number;
  /** null: the URLs are used as they are (they repeat once the list is exhausted). */
  bust: string | null;
  /** The same URL on purpose (cache hits, the bare route): repeats are not reported. */
  repeats?: boolean;
}

export type LoadJobKind =
  /** autocannon for `durationSec` with `connections` connections, after `warmupSec` of the same. */
  | 'load'
  /** autocannon until every URL of the source was requested once. */
  | 'each'
  /** One connection, one request at a time (autocannon with one connection): the latency of a request on an otherwise idle server. */
  | 'sequential'
  /** A fixed offered load of `rate` requests/s, evenly paced (an open loop), over at most `connections` connections. */
  | 'rate';

export interface LoadJob {
  kind: LoadJobKind;
  origin: string;
  source: UrlSource;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** 'sequential' only: stop after this many requests even before `durationSec`. */
  maxRequests?: number;
  /** 'rate' only: requests per second offered, whatever the answers' pace. */
  rate?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles in ms over every measured response (2xx or not). */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Average bytes per response as read off the socket (headers included). */
  bytesPerResponse: number;
  /** Responses during the warm-up (not in the numbers above). */
  warmupRequests: number;
  /** URLs taken from the source, warm-up included. */
  used: number;
  /** Requests whose URL had been requested before (no bust and the list ran out). */
  repeated: number;
}
