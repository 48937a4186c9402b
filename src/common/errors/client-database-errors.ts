import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { AppError } from './app-error';

/**
 * SQLSTATEs raised by a value the request carried, not by the database or our SQL:
 * 22001 too long for its column, 22003 numeric out of range, 22021 invalid byte
 * sequence (NUL), 22P02 invalid text representation, 22P05 untranslatable
 * character, 54000 program limit exceeded (an index entry over the btree limit).
 */
const VALUE_REJECTED_STATES = new Set(['22001', '22003', '22021', '22P02', '22P05', '54000']);

/** PostgreSQL's default name for a `user_id … REFERENCES users` constraint, which every such column here uses. */
const USER_FOREIGN_KEY = /_user_id_fkey$/;

/**
 * The client error behind a failed statement, or null when the failure is ours.
 * Validation refuses these values first; this is the backstop that keeps a value
 * we did not foresee a 4xx. A row that references a user who was deleted meanwhile
 * means the request raced its own account's withdrawal: the token no longer
 * stands for anyone, as the JWT check would have said a moment later.
 */
export function clientErrorOfDatabaseFailure(exception: unknown): AppError | null {
  const failure = exception instanceof QueryFailedError ? exception.driverError : exception;
  if (!(failure instanceof DatabaseError) || failure.code === undefined) return null;
  if (failure.code === '23503' && USER_FOREIGN_KEY.test(failure.constraint ?? '')) {
    return new AppError('UNAUTHORIZED', 'The account of this token no longer exists');
  }
  if (VALUE_REJECTED_STATES.has(failure.code)) {
    return new AppError('BAD_REQUEST', 'The request holds a value that cannot be stored');
  }
  return null;
}
