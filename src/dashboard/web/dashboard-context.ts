import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { AccountStatus } from '../../auth/principal';
import type { SessionRecord } from '../dashboard-sessions.store';
import type { Membership } from '../memberships.store';
import type { Role } from '../security/roles';

/**
 * Who is asking, on every dashboard page behind sign-in: pages read and write only the data of
 * `account.id` in `livemode`, never an account named by the URL alone.
 */
export interface DashboardContext {
  user: { id: string; email: string; emailVerified: boolean };
  session: SessionRecord;
  /** the session's current account (a user with several switches between them) */
  account: { id: string; name: string; status: AccountStatus };
  role: Role;
  livemode: boolean;
  /** the token every POST of this session carries (`_csrf` field or X-CSRF-Token header) */
  csrfToken: string;
  memberships: Membership[];
}

export type DashboardRequest = Request & {
  dashboard?: DashboardContext;
  /** the pre-session CSRF token (double-submit cookie) of a page without a session */
  dashboardCsrf?: string;
  cookies?: Record<string, string>;
};

/** The request's DashboardContext (routes behind sign-in only). */
export const Dashboard = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const context = ctx.switchToHttp().getRequest<DashboardRequest>().dashboard;
  if (!context) throw new Error('@Dashboard() used on a route without a signed-in session');
  return context;
});

/** The CSRF token a form of this request must carry: the session's, or the pre-session one. */
export function csrfTokenOf(req: DashboardRequest): string {
  return req.dashboard?.csrfToken ?? req.dashboardCsrf ?? '';
}
