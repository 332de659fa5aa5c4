const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DEADLOCK_DETECTED = '40P01';
const SERIALIZATION_FAILURE = '40001';

interface PgErrorFields {
  code?: string;
  constraint?: string;
  message?: string;
}

/** pg's own error fields, whether TypeORM wrapped the error (`driverError`) or not. */
function pgFields(error: unknown): PgErrorFields | undefined {
  const e = error as (PgErrorFields & { driverError?: PgErrorFields }) | null;
  return e?.driverError ?? e ?? undefined;
}

/** True when `error` is a unique violation of the named constraint. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const fields = pgFields(error);
  return fields?.code === UNIQUE_VIOLATION && fields.constraint === constraint;
}

/** True when `error` is a foreign key violation of the named constraint (a row referenced is gone). */
export function isForeignKeyViolation(error: unknown, constraint: string): boolean {
  const fields = pgFields(error);
  return fields?.code === FOREIGN_KEY_VIOLATION && fields.constraint === constraint;
}

/** True when PostgreSQL aborted the transaction to break a deadlock or a serialization conflict. */
export function isTransientConflict(error: unknown): boolean {
  const code = pgFields(error)?.code;
  return code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE;
}

/**
 * True when PostgreSQL refused a statement for the data it carried (classes 22 data exception,
 * 23 integrity constraint, 54 program limit such as an index row too large), not for the
 * connection or the server's state.
 */
export function isDataError(error: unknown): boolean {
  return /^(22|23|54)/.test(pgFields(error)?.code ?? '');
}

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 53300 (too many
 * connections), 57P01–57P03 (shut down, crashed, not accepting connections yet), 57014
 * (cancelled: statement_timeout).
 */
const UNAVAILABLE_STATE = /^(08|53300$|57P0[123]$|57014$)/;
/**
 * What pg, pg-pool and Node say when the server is gone, silent, closed to connections (55000
 * says so only in its message) or the pool is exhausted.
 */
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not currently accepting connections|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH/;

/** True when the database could not serve the statement now, rather than refused it. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const fields = pgFields(error);
  if (UNAVAILABLE_STATE.test(fields?.code ?? '')) return true;
  return UNAVAILABLE_MESSAGE.test(`${fields?.code ?? ''} ${fields?.message ?? ''}`);
}
