/**
 * Calls from the soak to its edge process (edge.ts): the round-robin proxy in front of the three
 * instances and the users' load, in a process of their own so that the latencies they measure are
 * not those of the soak's own event loop (sandbox, model, push recorder).
 */
export interface EdgeSetup {
  /** The instances' ports on 127.0.0.1. */
  backends: number[];
  jwtSecret: string;
  /** The rewarded-ad network's signing key (PKCS#8 PEM) and its published id. */
  adKeyPem: string;
  adKeyId: number;
  adUnit: string;
  userIds: number[];
  /** Watch capacity of each user's tier, in the order of userIds. */
  capacities: number[];
  watches: { user: number[]; corp: string[]; notify: boolean[] };
  tokens: { token: string[]; user: number[] };
  /** Tokens the push recorder answers UNREGISTERED: the load never touches them. */
  doomed: string[];
  listed: { corpCode: string[]; weight: number[] };
  readsPerSecond: number;
  writesPerSecond: number;
  seed: number;
  /** Quiet windows set during the run end before this (wall-clock ms). */
  quietEndLimit: number;
}

export type EdgeRequest =
  | { kind: 'start'; setup: EdgeSetup }
  /** Starts the users' load; it runs until `stop`. */
  | { kind: 'run' }
  | { kind: 'stop' };

/** One request of the load, as the client saw it. */
export interface RequestRecord {
  /** Wall-clock ms when it was sent. */
  at: number;
  ms: number;
  kind: 'read' | 'write';
  route: string;
  /** 0: no answer (connection refused or reset, timeout). */
  status: number;
  retryAfter: boolean;
  /** The proxy's own 502 (the instance went away mid-request), not the service's. */
  fromProxy: boolean;
}

export type JournalOp =
  'watch-add' | 'watch-remove' | 'notify' | 'token-register' | 'token-move' | 'token-delete' | 'reveal' | 'ad-callback' | 'quiet';

/**
 * One write and what it was answered: its effect took place between `sent` and `answered` when
 * `status` is 2xx, did not when it is a definite refusal (4xx), and may or may not have when there
 * was no answer or a 5xx.
 */
export interface JournalEntry {
  op: JournalOp;
  user: number;
  sent: number;
  answered: number;
  status: number;
  token?: string;
  /** token-move: who held the token before. */
  from?: number;
  corp?: string;
  notify?: boolean;
  rceptNo?: string;
  txId?: string;
  granted?: boolean;
  /** reveal: the answer's quota charged flag is not exposed, so the response's weekly_used is kept. */
  weeklyUsed?: number;
}

export interface EdgeResults {
  requests: RequestRecord[];
  journal: JournalEntry[];
  /** Requests not sent because too many were already waiting (the load is open-loop, with a cap). */
  shed: number;
  proxy: { retriedElsewhere: number; proxyErrors: number };
}

export interface EdgeResponses {
  start: { proxyUrl: string };
  run: null;
  stop: EdgeResults;
}

/** The outcome class of a write's answer. */
export function outcomeOf(status: number): 'applied' | 'refused' | 'unknown' {
  if (status >= 200 && status < 300) return 'applied';
  if (status >= 400 && status < 500 && status !== 408) return 'refused';
  return 'unknown';
}
