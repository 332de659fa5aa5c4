import { isDatabaseUnavailable } from './pg-errors';

const pg = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('knows a server that is down, closed, silent or full, and a pool with no connection to give', () => {
    for (const error of [
      pg('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      pg('57P01', 'terminating connection due to administrator command'),
      pg('57P03', 'the database system is starting up'),
      pg('53300', 'sorry, too many clients already'),
      pg('08006', 'connection failure'),
      pg('57014', 'canceling statement due to statement timeout'),
      pg('55000', 'database "listings" is not currently accepting connections'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      // as TypeORM wraps it
      { driverError: pg('57P01'), message: 'QueryFailedError' },
    ])
      expect([error, isDatabaseUnavailable(error)]).toEqual([error, true]);
  });

  it('leaves the statement’s own faults and every other error alone', () => {
    for (const error of [
      pg('23505', 'duplicate key value violates unique constraint'),
      pg('22P02', 'invalid input syntax for type uuid'),
      pg('55000', 'cannot refresh materialized view concurrently'),
      pg('40P01', 'deadlock detected'),
      new TypeError('Cannot read properties of undefined'),
      undefined,
    ])
      expect([error, isDatabaseUnavailable(error)]).toEqual([error, false]);
  });
});
