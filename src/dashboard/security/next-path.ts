export const DASHBOARD_ROOT = '/dashboard';

/**
 * Where to go after signing in: a path of the dashboard on this origin, else nothing. Refused:
 * another origin (`//host`, `https://…`, `/\host`), anything outside /dashboard, control
 * characters, and anything over 2,000 characters.
 */
export function safeNextPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return undefined;
  if (value.includes('\\') || [...value].some((c) => c.charCodeAt(0) < 0x20 || c === '\x7f'))
    return undefined;
  if (value.includes('//')) return undefined;
  if (!/^\/dashboard(?=$|[/?#])/.test(value)) return undefined;
  // Resolved against a fixed origin, it must stay there and keep its path.
  const url = new URL(value, 'http://dashboard.invalid');
  if (url.origin !== 'http://dashboard.invalid') return undefined;
  if (!url.pathname.startsWith(DASHBOARD_ROOT)) return undefined;
  return url.pathname + url.search;
}
