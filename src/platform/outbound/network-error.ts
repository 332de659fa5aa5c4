/**
 * A network error as an integrator may read it: the failing call and its code (`connect
 * ECONNREFUSED`), never the address a name resolved to or the port's state behind it. Every
 * address of a name failing (happy eyeballs) is told by the first one's reason.
 */
export function networkErrorText(error: unknown): string {
  const e = error as {
    message?: string;
    code?: string;
    syscall?: string;
    address?: string;
    errors?: unknown[];
  };
  if (Array.isArray(e.errors) && e.errors.length > 0) return networkErrorText(e.errors[0]);
  if (e.address !== undefined && e.code) return `${e.syscall ?? 'connect'} ${e.code}`;
  return e.message || String(error);
}
