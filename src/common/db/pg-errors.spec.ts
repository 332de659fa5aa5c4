import { isDatabaseUnavailable } from './pg-errors';

const DATABASE_PORT = 5432;
const pg = (code: string, message = 'x') => Object.assign(new Error(message), { code });
/** Node's error for a TCP connection refused by `port`. */
const refused = (port: number) =>
  Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), {
    code: 'ECONNREFUSED',
    syscall: 'connect',
    address: '127.0.0.1',
    port,
  });
const unavailable = (error: unknown) => isDatabaseUnavailable(error, DATABASE_PORT);

describe('isDatabaseUnavailable', () => {
  it('knows a database that is down, closed, full or silent, and a pool with no connection to give', () => {
    for (const error of [
      refused(DATABASE_PORT),
      pg('57P01', 'terminating connection due to administrator command'),
      pg('57P03', 'the database system is starting up'),
      pg('53300', 'sorry, too many clients already'),
      pg('08006', 'connection failure'),
      pg('55000', 'database "listings" is not currently accepting connections'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      // as TypeORM wraps it
      { driverError: pg('57P01'), message: 'QueryFailedError' },
    ])
      expect([error, unavailable(error)]).toEqual([error, true]);
  });

  it('leaves other services’ failures, slow statements and our own faults to be logged in full', () => {
    for (const error of [
      refused(4546), // S3, say: not the database
      pg('57014', 'canceling statement due to statement timeout'),
      pg('08P01', 'bind message supplies 1 parameters, but prepared statement requires 2'),
      pg('23505', 'duplicate key value violates unique constraint'),
      pg('55000', 'cannot refresh materialized view concurrently'),
      pg('40P01', 'deadlock detected'),
      new Error('socket hang up: ECONNRESET while reading the body'),
      new TypeError('Cannot read properties of undefined'),
      undefined,
    ])
      expect([error, unavailable(error)]).toEqual([error, false]);
  });
});
