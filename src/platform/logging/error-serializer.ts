/**
 * The fields of an error that reach the logs. Everything else an error carries is left out:
 * TypeORM's QueryFailedError holds the statement's `parameters` (whole listing bodies with phone
 * numbers, a webhook secret on a failed insert) and `query`, its `driverError` and PostgreSQL's
 * `detail` repeat the values, and other libraries attach request bodies. The SQLSTATE code and
 * the constraint, table and column say what failed without saying with which data.
 */
const LOGGED_FIELDS = ['type', 'message', 'stack', 'code', 'constraint', 'table', 'column'];

type SerializedError = Record<string, unknown>;

/** pino's `err` serializer, applied after pino's own (which turns the Error into a plain object). */
export function errorWithoutData(err: SerializedError): SerializedError {
  if (typeof err !== 'object' || err === null) return err;
  const kept: SerializedError = {};
  for (const field of LOGGED_FIELDS) if (err[field] !== undefined) kept[field] = err[field];
  if (typeof err.cause === 'object' && err.cause !== null) {
    kept.cause = errorWithoutData(err.cause as SerializedError);
  }
  return kept;
}
