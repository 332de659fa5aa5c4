/**
 * Only these fields reach the logs: errors carry SQL parameters, bodies and secrets; the SQLSTATE
 * code and constraint, table and column say what failed without the data.
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
