import type { Request } from 'express';
import type { RequestOrigin } from '../people.service';

/** The address and user agent of a request, as the audit log keeps them. */
export function originOf(req: Request): RequestOrigin {
  return { ip: req.ip ?? null, userAgent: req.headers['user-agent']?.slice(0, 500) ?? null };
}
