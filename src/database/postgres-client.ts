import { Client, type ClientConfig, Query, type QueryResult } from 'pg';
import { preparedStatementName } from './prepared-statements';

export interface PostgresClientConfig extends ClientConfig {
  /**
   * How long a query waits for the server's answer before it fails with "Query read timeout",
   * as pg's `query_timeout` (which this replaces: do not set both). The connection is then
   * closed, since a server that does not answer has lost the session for our purposes.
   */
  readTimeoutMs?: number;
}

/**
 * pg's Client, with its promise form `query(text, values)`, the one TypeORM calls, written
 * so that pg builds the query with its callback already in place.
 *
 * pg's own promise form, and its `query_timeout`, assign the query's callback after the
 * query is built. On Node 20 that makes every result row (and its strings) survive the
 * young-generation collections, to be freed by a full one: in a loop of queries a scavenge
 * then copies megabytes and pauses 9-17 ms instead of 0.3 ms (docs/request-pipeline.md,
 * "Requests that die young"; the measurements are in docs/benchmarks.md). A text registered
 * with `preparedStatement` is sent as a named statement, parsed once per connection
 * (prepared-statements.ts). Every other form of `query` (a callback, a config object, a
 * cursor) is pg's own.
 */
export class PostgresClient extends Client {
  /** See PostgresClientConfig. */
  readonly readTimeoutMs: number | undefined;

  constructor(config: PostgresClientConfig) {
    if (config.query_timeout !== undefined && config.readTimeoutMs !== undefined) {
      throw new Error('Set readTimeoutMs or query_timeout, not both');
    }
    super(config);
    this.readTimeoutMs = config.readTimeoutMs;
  }
}

/** pg's own Client#query. */
function pgQuery(client: Client, args: unknown[]): unknown {
  return (Client.prototype.query as (...forwarded: unknown[]) => unknown).apply(client, args);
}

/** SQLSTATE 0A000, which PostgreSQL answers when a prepared statement's result columns changed. */
const STALE_PREPARED_STATEMENT = '0A000';

/**
 * Closes the client's connection at once. `end()` marks the client as ending before this
 * returns, so a pool that gets it back drops it instead of handing it out again; the
 * socket is destroyed rather than left to `end()`, which waits for a server that may not answer.
 */
function closeSession(client: Client): void {
  client.end().catch(() => undefined);
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

function query(this: PostgresClient, ...args: unknown[]): unknown {
  const [text, values] = args;
  if (typeof text !== 'string' || args.length > 2 || !(values === undefined || Array.isArray(values))) {
    return pgQuery(this, args);
  }
  return new Promise<QueryResult>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const name = preparedStatementName(text);
    const settle = (error: Error | null | undefined, result?: QueryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(result!);
      // "cached plan must not change result type": a migration changed what the prepared
      // statement returns. PostgreSQL fails every later execution of it in this session too.
      if (name !== undefined && (error as { code?: unknown } | null | undefined)?.code === STALE_PREPARED_STATEMENT) {
        closeSession(this);
      }
    };
    pgQuery(this, [new Query(name === undefined ? text : { name, text }, values, settle)]);
    if (this.readTimeoutMs !== undefined && !settled) {
      timer = setTimeout(() => {
        settle(new Error('Query read timeout'));
        // The session is out of step with the queries sent on it.
        closeSession(this);
      }, this.readTimeoutMs);
    }
  }).catch((error: Error) => {
    // As pg does: a stack that leads back to the caller (through its awaits) rather than to the socket.
    Error.captureStackTrace(error);
    throw error;
  });
}

// Assigned rather than declared, so that callers keep the overloads pg declares for Client#query.
PostgresClient.prototype.query = query as Client['query'];
