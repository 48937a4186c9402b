import { Logger } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';
import { queryWithCallbackInPlace } from '../runtime-fixes/pg-query-callback/pg-query-callback';
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
 * so that pg builds the query with its callback already in place (a runtime fix:
 * src/runtime-fixes/pg-query-callback/; docs/request-pipeline.md, "Requests that die young").
 * A text registered with `preparedStatement` is sent as a named statement, parsed once per
 * connection (prepared-statements.ts). Every other form of `query` (a callback, a config
 * object, a cursor) is pg's own.
 *
 * A session that fails outside a query (the server's FATAL 57P01 at shutdown, a reset socket)
 * makes pg emit 'error' on the client, and an 'error' nobody listens to ends the process.
 * pg-pool listens while a client is idle and TypeORM while a query runner holds it, but not
 * in between: a new connection handed to a waiting request has neither for the rest of the
 * socket read that completed it, and a shutdown's FATAL can arrive in that same read. So
 * every client listens from its construction on: it logs the loss once and closes the
 * session. pg has already made the client refuse queries (answered 503, database-errors.ts),
 * and the pool drops it when it is released.
 */
export class PostgresClient extends Client {
  /** See PostgresClientConfig. */
  readonly readTimeoutMs: number | undefined;
  /** The error that ended the session outside a query, once one has. */
  lostWith: Error | undefined;

  constructor(config: PostgresClientConfig) {
    if (config.query_timeout !== undefined && config.readTimeoutMs !== undefined) {
      throw new Error('Set readTimeoutMs or query_timeout, not both');
    }
    super(config);
    this.readTimeoutMs = config.readTimeoutMs;
    this.on('error', (error) => onSessionError(this, error));
  }
}

const logger = new Logger('Database');

function onSessionError(client: PostgresClient, error: Error): void {
  // A failed session may emit again as its socket goes (a reset): one line is enough.
  if (client.lostWith !== undefined) return;
  client.lostWith = error;
  logger.warn({ err: error }, 'a database connection failed outside a query: closed (the pool opens another when needed)');
  client.end().catch(() => undefined);
}

/** pg's own Client#query. */
function pgQuery(client: Client, args: unknown[]): unknown {
  return (Client.prototype.query as (...forwarded: unknown[]) => unknown).apply(client, args);
}

/** SQLSTATE 0A000, which PostgreSQL answers when a prepared statement's result columns changed. */
const STALE_PREPARED_STATEMENT = '0A000';

function query(this: PostgresClient, ...args: unknown[]): unknown {
  const [text, values] = args;
  if (typeof text !== 'string' || args.length > 2 || !(values === undefined || Array.isArray(values))) {
    return pgQuery(this, args);
  }
  const name = preparedStatementName(text);
  return queryWithCallbackInPlace(this, name === undefined ? text : { name, text }, values, {
    readTimeoutMs: this.readTimeoutMs,
    // "cached plan must not change result type": a migration changed what the prepared
    // statement returns. PostgreSQL fails every later execution of it in this session too.
    closesSession: (error) => name !== undefined && (error as { code?: unknown }).code === STALE_PREPARED_STATEMENT,
  });
}

// Assigned rather than declared, so that callers keep the overloads pg declares for Client#query.
PostgresClient.prototype.query = query as Client['query'];
