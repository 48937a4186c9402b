import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/** How long a client should wait before retrying while PostgreSQL is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that mean the server is unreachable, going away or overloaded, not that
 * the query was wrong: admin/crash shutdown (57P01, 57P02), starting up or shutting
 * down (57P03), too many connections (53300), statement timeout or cancel (57014), and
 * the session ended for idling in a transaction (25P03) or at all (57P05). Class 08 is
 * added below.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05', '53300', '57014', '25P03']);
const CONNECTION_EXCEPTION_CLASS = '08';

/** Socket errors on the way to the server. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Errors node-postgres raises without a code: lost connections and its own timeouts. */
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i, // server went away, or connectionTimeoutMillis
  /timeout exceeded when trying to connect/i, // pool: no connection within connectionTimeoutMillis
  /query read timeout/i, // query_timeout: the server did not answer
  /client has encountered a connection error and is not queryable/i,
  /client was closed and is not queryable/i, // its session was closed under it (read timeout, lost connection)
  // 55000 at connect: the database was closed to new sessions (ALLOW_CONNECTIONS false, as for a
  // restore). The SQLSTATE alone also covers query errors that are ours, so the message decides.
  /database ".*" is not currently accepting connections/i,
];

/**
 * TypeORM releases a query runner by itself when its connection emits an error (the server
 * went away between two statements of a transaction) or the data source closes; the
 * transaction's next statement, or its COMMIT, then fails with one of these instead of pg's
 * error, and the transaction is rolled back. A manager used after its own transaction ended
 * would fail the same way: that bug is answered 503 too, and logged with its stack as a 500 is.
 */
const RELEASED_RUNNER_ERRORS = [QueryRunnerProviderAlreadyReleasedError, QueryRunnerAlreadyReleasedError];

/**
 * True when an error says PostgreSQL could not be reached or did not answer in
 * time, so the request may succeed later (503), as opposed to a bad query (500)
 * or a constraint (4xx). Looks through TypeORM's `driverError` and the
 * `AggregateError` of a dual-stack connect, but not through `cause`: an upstream
 * HTTP failure (fetch's cause ECONNREFUSED) is not the database's.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  if (RELEASED_RUNNER_ERRORS.some((type) => error instanceof type)) return true;
  const { code, message, driverError, errors } = error as { code?: unknown; message?: unknown; driverError?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && code.startsWith(CONNECTION_EXCEPTION_CLASS)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(driverError, depth + 1);
}
