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
