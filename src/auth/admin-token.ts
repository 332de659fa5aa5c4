import { createHash, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../common/errors/domain-error';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Comparing digests keeps the comparison constant-time whatever the lengths. */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function isAdminToken(expected: string, authorization: string | undefined): boolean {
  return tokenMatches(/^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '', expected);
}

/** Without ADMIN_TOKEN the admin API does not exist (404); with it, the token must match. */
export function assertAdminToken(
  expected: string | undefined,
  authorization: string | undefined,
): void {
  if (!expected) throw new NotFoundError();
  if (!isAdminToken(expected, authorization))
    throw new UnauthorizedError('A valid admin token is required.');
}
