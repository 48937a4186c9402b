import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-errors';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET', 'read ECONNRESET')],
    ['a dual-stack connect refused on every address', Object.assign(new AggregateError([withCode('ECONNREFUSED')]), { code: undefined })],
    ['a connection the server ended', new Error('Connection terminated unexpectedly')],
    ['the connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a pool with no free connection in time', new Error('timeout exceeded when trying to connect')],
    ['a server that does not answer (query_timeout)', new Error('Query read timeout')],
    ['an admin shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a crash shutdown (57P02)', withCode('57P02')],
    ['a server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['a server shutting down (57P03)', withCode('57P03', 'the database system is shutting down')],
    ['an idle session ended (57P05)', withCode('57P05', 'terminating connection due to idle-session timeout')],
    ['a connection exception (08006)', withCode('08006')],
    ['too many connections (53300)', withCode('53300')],
    ['a database closed to new sessions (55000)', withCode('55000', 'database "briefing" is not currently accepting connections')],
    ['a statement timeout (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['an idle-in-transaction timeout (25P03)', withCode('25P03')],
    ['a TypeORM query error wrapping a shutdown', new QueryFailedError('SELECT 1', [], withCode('57P01'))],
    [
      'a client whose session failed between queries',
      new QueryFailedError('SELECT 1', [], new Error('Client has encountered a connection error and is not queryable')),
    ],
    [
      'a client whose session was closed under it',
      new QueryFailedError('SELECT 1', [], new Error('Client was closed and is not queryable')),
    ],
    // TypeORM released the transaction's runner when its connection emitted an error (issue 28, finding 8).
    ['a transaction statement after its connection was lost (manager.query)', new QueryRunnerProviderAlreadyReleasedError()],
    ['a transaction statement after its connection was lost (runner.query)', new QueryRunnerAlreadyReleasedError()],
  ])('is true for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('23505'))],
    ['a syntax error', withCode('42601')],
    ['a wrong password (not transient: retrying cannot help)', withCode('28P01')],
    ['an unknown database', withCode('3D000')],
    ['another object-state error (55000)', withCode('55000', 'cannot refresh materialized view concurrently')],
    ['an upstream HTTP failure whose cause was refused', new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') })],
    ['a plain error', new Error('boom')],
    ['a non-error', 'ECONNREFUSED'],
  ])('is false for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
