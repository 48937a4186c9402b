import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { clientErrorOfDatabaseFailure } from './client-database-errors';

function failed(code: string, constraint?: string): QueryFailedError {
  const error = new DatabaseError('statement failed', 0, 'error');
  error.code = code;
  error.constraint = constraint;
  return new QueryFailedError('SELECT 1', [], error);
}

describe('clientErrorOfDatabaseFailure', () => {
  it.each(['22001', '22003', '22021', '22P02', '22P05', '54000'])('answers SQLSTATE %s with 400', (code) => {
    const error = clientErrorOfDatabaseFailure(failed(code));
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(error?.message).not.toContain('SELECT');
  });

  it('answers a violated user_id foreign key (the account was withdrawn meanwhile) with 401', () => {
    expect(clientErrorOfDatabaseFailure(failed('23503', 'quota_usage_user_id_fkey'))).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The account of this token no longer exists',
    });
  });

  it('leaves other failures to the 500 path', () => {
    expect(clientErrorOfDatabaseFailure(failed('23503', 'analyses_rcept_no_fkey'))).toBeNull();
    expect(clientErrorOfDatabaseFailure(failed('42P01'))).toBeNull();
    expect(clientErrorOfDatabaseFailure(failed('57P01'))).toBeNull();
    expect(clientErrorOfDatabaseFailure(new Error('boom'))).toBeNull();
  });

  it('also reads a pg error that did not pass through TypeORM', () => {
    expect(clientErrorOfDatabaseFailure(failed('22021').driverError)).toMatchObject({ code: 'BAD_REQUEST' });
  });
});
