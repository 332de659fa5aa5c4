const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DEADLOCK_DETECTED = '40P01';
const SERIALIZATION_FAILURE = '40001';

interface PgErrorFields {
  code?: string;
  constraint?: string;
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
