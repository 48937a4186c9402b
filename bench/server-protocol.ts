import type { CapturedQuery } from './app';

/**
 * Calls from the bench to the server under test, which runs in a process of its own (as in
 * production: its heap, its event loop and its collector are not shared with the bench).
 */
export type ServerRequest =
  | { kind: 'start'; databaseUrl: string; dartBaseUrl: string; dartApiKey: string }
  /** Statements the services have sent since the start. */
  | { kind: 'queries' }
  | { kind: 'capture-start' }
  | { kind: 'capture-stop' }
  | { kind: 'clear-http-cache' }
  /** From now on, one entry per request answered (requests one at a time: the SQL of the time between is that request's). */
  | { kind: 'split-start' }
  | { kind: 'split-stop' }
  /** How long JSON.stringify takes for this answer's value (the median of many runs). */
  | { kind: 'serialise'; body: string }
  /** The process's memory; `collect` runs a full collection first, so heapUsed is what is live. */
  | { kind: 'memory'; collect: boolean };

export interface RequestSplit {
  /** From the request reaching the server to the last byte of the answer handed to the socket. */
  serverMs: number;
  /** The statements' round trips (driver and database) within it. */
  sqlMs: number;
}

export interface MemorySample {
  rssBytes: number;
  heapUsedBytes: number;
}

export interface ServerResponses {
  start: { origin: string; adminKey: string };
  queries: number;
  'capture-start': null;
  'capture-stop': CapturedQuery[];
  'clear-http-cache': null;
  'split-start': null;
  'split-stop': RequestSplit[];
  serialise: number;
  memory: MemorySample;
}
