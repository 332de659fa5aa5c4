const UNIQUE_VIOLATION = '23505';

interface PgErrorFields {
  code?: string;
  constraint?: string;
  driverError?: { code?: string; constraint?: string };
}

/** True when `error` is a unique violation of the named constraint (TypeORM wraps pg's error). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as PgErrorFields | null;
  const driver = e?.driverError ?? e;
  return driver?.code === UNIQUE_VIOLATION && driver.constraint === constraint;
}

const DEADLOCK_DETECTED = '40P01';
const SERIALIZATION_FAILURE = '40001';

/** True when PostgreSQL aborted the transaction to break a deadlock or a serialization conflict. */
export function isTransientConflict(error: unknown): boolean {
  const e = error as PgErrorFields | null;
  const code = (e?.driverError ?? e)?.code;
  return code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE;
}

/**
 * True when PostgreSQL refused a statement for the data it carried (classes 22 data exception,
 * 23 integrity constraint, 54 program limit such as an index row too large), not for the
 * connection or the server's state.
 */
export function isDataError(error: unknown): boolean {
  const e = error as PgErrorFields | null;
  return /^(22|23|54)/.test((e?.driverError ?? e)?.code ?? '');
}
