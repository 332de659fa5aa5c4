const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DEADLOCK_DETECTED = '40P01';
const SERIALIZATION_FAILURE = '40001';

interface PgErrorFields {
  code?: string;
  constraint?: string;
  message?: string;
  /** a network error's peer port */
  port?: unknown;
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
 * SQLSTATEs of a server that cannot serve now: 08000–08006 (connection failures; not 08P01, a
 * protocol violation being our bug), 53300 (too many connections), 57P01–57P03 (shut down,
 * crashed, starting). A statement_timeout (57014) is not one: a slow query or a lock wait is a
 * fault to log in full.
 */
const UNAVAILABLE_STATE = /^(0800[0-6]|53300|57P0[123])$/;
/** 55000 says that the database is closed to connections only in its message. */
const CLOSED = /is not currently accepting connections/;
/** What pg and pg-pool alone say when the server is gone or silent, or no connection is free. */
const POOL_GAVE_UP =
  /^(timeout exceeded when trying to connect|Connection terminated|Query read timeout)/;
/** Node's words for a TCP connection refused or lost, whoever it was to. */
const NETWORK_FAILURE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * True when the database could not serve the statement now, rather than refused it: pg's own
 * errors, and a network failure of a connection to `databasePort` (another service's, to S3 say,
 * is not the database's).
 */
export function isDatabaseUnavailable(error: unknown, databasePort: number): boolean {
  const fields = pgFields(error);
  const code = fields?.code ?? '';
  const message = fields?.message ?? '';
  if (UNAVAILABLE_STATE.test(code) || POOL_GAVE_UP.test(message)) return true;
  if (code === '55000') return CLOSED.test(message);
  return NETWORK_FAILURE.has(code) && fields?.port === databasePort;
}
