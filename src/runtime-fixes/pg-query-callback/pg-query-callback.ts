/*
 * Runtime fix: pg queries built with their callback in place.
 *
 * Works around: pg's promise form `client.query(text, values)`, the one TypeORM calls for every
 * statement, and its `query_timeout` assign the query's callback after `new Query(…)` built it.
 * V8 then kept each result's rows (and their strings) alive through young-generation collections,
 * to be freed by a full one. Here pg gets a `Query` that carries its callback from the start, and
 * the read timeout is kept beside it. To close a session at once it reaches into pg's private
 * `client.connection.stream` (closeSession).
 * Checked against: Node.js 24.21.0 and 26.10.0; pg 8.23.1 (pg-protocol 1.16.1).
 * Measured: docs/operations.md, "Runtime fixes". The spec fails when pg's promise form builds its
 * queries with their callback (the fix is then no longer needed) and when `connection.stream` is gone.
 */
import { Client, Query, type QueryResult } from 'pg';

/** The socket of a pg client's session, from pg's private `client.connection.stream`; undefined if pg no longer has it there. */
export function sessionSocketOf(client: Client): { destroy(): void } | undefined {
  const stream = (client as unknown as { connection?: { stream?: { destroy?: unknown } } }).connection?.stream;
  return typeof stream?.destroy === 'function' ? (stream as { destroy(): void }) : undefined;
}

/**
 * Closes the client's connection at once. `end()` marks the client as ending before this
 * returns, so a pool that gets it back drops it instead of handing it out again; the
 * socket is destroyed rather than left to `end()`, which waits for a server that may not answer.
 */
export function closeSession(client: Client): void {
  client.end().catch(() => undefined);
  sessionSocketOf(client)?.destroy();
}

export interface QueryOptions {
  /** Fails the query with "Query read timeout" after this long without the server's answer, and closes the session. */
  readTimeoutMs?: number;
  /** Whether this error leaves the session unusable, so that it is closed (the pool then replaces it). */
  closesSession?: (error: Error) => boolean;
}

/**
 * `client.query(text, values)` as pg's promise form answers it (its result, or its error with a
 * stack that leads back to the caller), with the query handed to pg's own `query` built with its
 * callback in place. `text` may be a named statement (`{ name, text }`).
 */
export function queryWithCallbackInPlace(
  client: Client,
  query: string | { name: string; text: string },
  values: unknown[] | undefined,
  options: QueryOptions,
): Promise<QueryResult> {
  return new Promise<QueryResult>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (error: Error | null | undefined, result?: QueryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(result!);
      if (error && options.closesSession?.(error)) closeSession(client);
    };
    // pg's own Client#query, whatever the client's class made of `query`.
    (Client.prototype.query as (submitted: Query) => unknown).call(client, new Query(query, values, settle));
    if (options.readTimeoutMs !== undefined && !settled) {
      timer = setTimeout(() => {
        settle(new Error('Query read timeout'));
        // The session is out of step with the queries sent on it.
        closeSession(client);
      }, options.readTimeoutMs);
    }
  }).catch((error: Error) => {
    // As pg does: a stack that leads back to the caller (through its awaits) rather than to the socket.
    Error.captureStackTrace(error);
    throw error;
  });
}
