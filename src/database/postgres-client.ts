import { Logger } from '@nestjs/common';
import { Client, type ClientConfig, type QueryResult } from 'pg';
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
 * pg's Client, with its plain forms of `query` (text or `{ name, text, values }`, with or without
 * a callback: TypeORM's and pg-pool's) written so that pg builds the query with its callback
 * already in place (a runtime fix: src/runtime-fixes/pg-query-callback/; docs/request-pipeline.md,
 * "Requests that die young"), and every one of them bounded by the read timeout. A text
 * registered with `preparedStatement` is sent as a named statement, parsed once per connection
 * (prepared-statements.ts). pg's other forms (a cursor, `rowMode`, custom types) are pg's own.
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

type QueryCallback = (error: Error | null, result?: QueryResult) => void;

/** A statement with nothing but its text, its name and its values: the forms this class answers itself. */
interface PlainQuery {
  statement: string | { name: string; text: string };
  values: unknown[] | undefined;
  callback: QueryCallback | undefined;
}

const PLAIN_CONFIG_KEYS = new Set(['name', 'text', 'values']);

/**
 * The plain forms, each with its read timeout: `(text, values?)` (TypeORM), `(text, values?, callback)`
 * and `({ name?, text, values? }, undefined?, callback?)`, which is how pg-pool's `pool.query` hands a
 * statement to its client (the rate limiter's take). Undefined for pg's other forms (a cursor, a
 * Submittable, `rowMode`, types…), which stay pg's own, without the read timeout.
 */
function plainQuery(args: unknown[]): PlainQuery | undefined {
  if (args.length === 0 || args.length > 3) return undefined;
  const callback = typeof args[args.length - 1] === 'function' ? (args[args.length - 1] as QueryCallback) : undefined;
  const rest = callback === undefined ? args : args.slice(0, -1);
  const [first, second] = rest;
  if (rest.length > 2 || !(second === undefined || Array.isArray(second))) return undefined;
  if (typeof first === 'string') return { statement: named(first), values: second, callback };
  if (typeof first !== 'object' || first === null) return undefined;
  const config = first as { name?: unknown; text?: unknown; values?: unknown };
  if (typeof config.text !== 'string' || !Object.keys(config).every((key) => PLAIN_CONFIG_KEYS.has(key))) return undefined;
  if (!(config.values === undefined || Array.isArray(config.values)) || (config.values !== undefined && second !== undefined))
    return undefined;
  const statement = typeof config.name === 'string' ? { name: config.name, text: config.text } : named(config.text);
  return { statement, values: (config.values as unknown[] | undefined) ?? second, callback };
}

/** A text registered with `preparedStatement` as its named statement, another as it is. */
function named(text: string): string | { name: string; text: string } {
  const name = preparedStatementName(text);
  return name === undefined ? text : { name, text };
}

function query(this: PostgresClient, ...args: unknown[]): unknown {
  const plain = plainQuery(args);
  if (plain === undefined) return pgQuery(this, args);
  const { statement } = plain;
  const result = queryWithCallbackInPlace(this, statement, plain.values, {
    readTimeoutMs: this.readTimeoutMs,
    // "cached plan must not change result type": a migration changed what the prepared
    // statement returns. PostgreSQL fails every later execution of it in this session too.
    closesSession: (error) => typeof statement !== 'string' && (error as { code?: unknown }).code === STALE_PREPARED_STATEMENT,
  });
  if (plain.callback === undefined) return result;
  const callback = plain.callback;
  result.then(
    (answer) => callback(null, answer),
    (error: Error) => callback(error),
  );
  return undefined;
}

// Assigned rather than declared, so that callers keep the overloads pg declares for Client#query.
PostgresClient.prototype.query = query as Client['query'];
