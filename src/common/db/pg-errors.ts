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
