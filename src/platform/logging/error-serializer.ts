/** Errors carry SQL parameters, bodies, secrets: only these fields, naming no data, are logged. */
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
