export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/**
 * A route's roles allow the member: owners do everything, developers what names them, viewers
 * only read (no POST route lists `viewer` but sign-out, mode and account switch, which need none).
 */
export function roleAllows(role: Role, allowed: readonly Role[] | undefined): boolean {
  if (!allowed || allowed.length === 0) return true;
  return allowed.includes(role);
}
