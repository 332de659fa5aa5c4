import type { Request } from 'express';
import type { AuditOrigin } from '../../audit/audit-entry';
import type { OwnerScope } from '../../auth/scope';
import type { DashboardContext } from './dashboard-context';
import type { RequestOrigin } from '../people.service';

/** The address and user agent of a request, as the audit log keeps them. */
export function originOf(req: Request): RequestOrigin {
  return { ip: req.ip ?? null, userAgent: req.headers['user-agent']?.slice(0, 500) ?? null };
}

/** The signed-in user as the audit log's actor, with the request's address and user agent. */
export function userOrigin(req: Request, ctx: DashboardContext): AuditOrigin {
  return { ...originOf(req), actor: { type: 'user', id: ctx.user.id } };
}

/** What a page reads and writes: the session's account, in the session's mode. */
export function scopeOf(ctx: DashboardContext): OwnerScope {
  return { accountId: ctx.account.id, livemode: ctx.livemode };
}
