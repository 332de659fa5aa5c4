import type { Request } from 'express';

/**
 * The controller route that answered, as its template (`/v1/listings/:id`), never the path, so ids
 * never become labels. Undefined when no route did: a wildcard template is a middleware's mount
 * (`{*path}`), and the 404 fallback has none.
 */
export function routeTemplate(req: Request): string | undefined {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return typeof route === 'string' && !route.includes('*') ? route : undefined;
}
