import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { DashboardSessionsService } from '../dashboard-sessions.service';
import { crossSiteRefused, csrfMatches } from '../security/csrf';
import { safeNextPath } from '../security/next-path';
import { roleAllows, type Role } from '../security/roles';
import { isWellFormedToken, newToken } from '../security/tokens';
import type { DashboardRequest } from './dashboard-context';
import { DashboardForbidden, EmailVerificationRequired, SignInRequired } from './dashboard-errors';
import { DASHBOARD_ANONYMOUS, DASHBOARD_ROLES, DASHBOARD_UNVERIFIED } from './dashboard-metadata';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Every dashboard route, in this order: the session from the cookie (else sign-in, unless the
 * route is open to anonymous visitors), a verified email, then for a POST the fetch metadata,
 * the CSRF token, the route's roles and, for a route with roles, an account that is not
 * suspended. Any refusal happens before the handler: nothing changes.
 */
@Injectable()
export class DashboardGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: DashboardSessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<DashboardRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const targets = [context.getHandler(), context.getClass()];
    const flag = (key: string) => this.reflector.getAllAndOverride<boolean>(key, targets) === true;

    const token = this.sessions.cookies.sessionToken(req);
    const ctx = await this.sessions.resolve(token);
    if (ctx) req.dashboard = ctx;
    const anonymous = flag(DASHBOARD_ANONYMOUS);
    if (!ctx) {
      // A cookie that no longer opens a session: it ended (idle, too old, signed out elsewhere).
      if (!anonymous) throw new SignInRequired(nextAfterSignIn(req), token !== undefined);
      this.preSessionCsrf(req, res);
    } else if (!ctx.user.emailVerified && !anonymous && !flag(DASHBOARD_UNVERIFIED)) {
      throw new EmailVerificationRequired();
    }

    if (SAFE_METHODS.has(req.method)) return true;
    if (crossSiteRefused(req.headers['sec-fetch-site']))
      throw new DashboardForbidden('This request came from another site and was refused.');
    const expected = ctx ? ctx.csrfToken : req.dashboardCsrf;
    const body = req.body as Record<string, unknown> | undefined;
    const given = req.headers['x-csrf-token'] ?? body?._csrf;
    if (!csrfMatches(expected, given))
      throw new DashboardForbidden(
        'The form was out of date or incomplete. Go back, reload the page and try again.',
      );
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(DASHBOARD_ROLES, targets);
    if (ctx && !roleAllows(ctx.role, roles))
      throw new DashboardForbidden(`Your role (${ctx.role}) cannot do this.`);
    // A suspended account's people sign in and read; what they change is their own (password,
    // sessions, mode), never the account's: the routes that change it are the ones with roles.
    if (ctx && roles && ctx.account.status === 'SUSPENDED')
      throw new DashboardForbidden(
        'This account is suspended: you can sign in and read, but not change anything. Contact support.',
      );
    return true;
  }

  /** A page without a session: its forms carry the token of a cookie set here (double submit). */
  private preSessionCsrf(req: DashboardRequest, res: Response): void {
    const existing = this.sessions.cookies.preSessionCsrf(req);
    if (isWellFormedToken(existing)) {
      req.dashboardCsrf = existing;
      return;
    }
    // A POST without the cookie cannot match: the comparison below refuses it.
    if (!SAFE_METHODS.has(req.method)) return;
    const token = newToken();
    this.sessions.cookies.setPreSessionCsrf(res, token);
    req.dashboardCsrf = token;
  }
}

/**
 * Where a request without a session was going: a page, itself; an htmx request (a fragment, such
 * as an import's progress), the page it was made from. A form's POST is not sent again.
 */
function nextAfterSignIn(req: DashboardRequest): string | undefined {
  const current = req.headers['hx-current-url'];
  if (req.headers['hx-request'] === 'true' && typeof current === 'string') {
    if (!URL.canParse(current)) return undefined;
    const url = new URL(current);
    return safeNextPath(url.pathname + url.search);
  }
  return SAFE_METHODS.has(req.method) ? safeNextPath(req.originalUrl) : undefined;
}
