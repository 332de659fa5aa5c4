import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF check: the token a form or htmx sent equals the expected one, compared in constant
 * time (both are hashed first, so unequal lengths take the same path).
 */
export function csrfMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== 'string' || given.length === 0) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/**
 * Fetch metadata: a browser that says where a request came from and says anything but
 * `same-origin` is refused; a client that says nothing (curl, old browsers) is judged by the
 * token alone.
 */
export function crossSiteRefused(secFetchSite: string | string[] | undefined): boolean {
  if (secFetchSite === undefined) return false;
  return secFetchSite !== 'same-origin';
}
