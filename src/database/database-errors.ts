/** How long a client should wait before retrying while PostgreSQL is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that mean the server is unreachable, going away or overloaded, not that
 * the query was wrong: admin/crash shutdown (57P01, 57P02), starting up (57P03),
 * too many connections (53300), statement timeout or cancel (57014), and the
 * session ended for idling in a transaction (25P03). Class 08 is added below.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25P03']);
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
];

/**
 * True when an error says PostgreSQL could not be reached or did not answer in
 * time, so the request may succeed later (503), as opposed to a bad query (500)
 * or a constraint (4xx). Looks through TypeORM's `driverError` and the
 * `AggregateError` of a dual-stack connect, but not through `cause`: an upstream
 * HTTP failure (fetch's cause ECONNREFUSED) is not the database's.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, message, driverError, errors } = error as { code?: unknown; message?: unknown; driverError?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && code.startsWith(CONNECTION_EXCEPTION_CLASS)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(driverError, depth + 1);
}
