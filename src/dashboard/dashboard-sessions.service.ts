import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { NotFoundError } from '../common/errors/domain-error';
import { dashboardConfig } from './dashboard.config';
import { DashboardSessionsStore } from './dashboard-sessions.store';
import { MembershipsStore } from './memberships.store';
import { PeopleService } from './people.service';
import {
  passwordRecentlyConfirmed,
  sessionEnded,
  SESSION_TOUCH_EVERY_MS,
} from './security/session-times';
import { hashToken, isWellFormedToken, newToken } from './security/tokens';
import type { UserRecord } from './users.store';
import type { DashboardContext, DashboardRequest } from './web/dashboard-context';
import { PasswordConfirmationRequired } from './web/dashboard-errors';
import { DashboardCookies } from './web/session-cookie';

/** How recently the password must have been entered before a sensitive action. */
export const RECENT_PASSWORD_MS = 10 * 60_000;

/**
 * Dashboard sessions in PostgreSQL: the cookie holds a random 256-bit token, the table its
 * SHA-256. Idle 8 h, absolute 7 days; a new token on sign-in and on every privilege change.
 */
@Injectable()
export class DashboardSessionsService {
  readonly cookies: DashboardCookies;

  constructor(
    @Inject(dashboardConfig.KEY) config: ConfigType<typeof dashboardConfig>,
    private readonly dataSource: DataSource,
    private readonly store: DashboardSessionsStore,
    private readonly memberships: MembershipsStore,
    private readonly people: PeopleService,
  ) {
    this.cookies = new DashboardCookies(config.cookieSecure);
  }

  /** A new session for a user who just signed in (or up), in their first account. */
  async start(req: DashboardRequest, res: Response, user: UserRecord): Promise<void> {
    const memberships = await this.memberships.ofUser(user.id);
    const token = newToken();
    await this.store.insert({
      tokenHash: hashToken(token),
      userId: user.id,
      accountId: memberships[0]?.accountId ?? null,
      csrfToken: newToken(),
      passwordConfirmed: true,
      ip: req.ip ?? null,
      userAgent: req.headers['user-agent'] ?? null,
    });
    this.cookies.setSession(res, token);
  }

  /** The context of a cookie's session, or null when there is none or it ended. */
  async resolve(token: string | undefined): Promise<DashboardContext | null> {
    if (!isWellFormedToken(token)) return null;
    const found = await this.store.byTokenHash(hashToken(token));
    const now = new Date();
    if (!found || sessionEnded(found.session, now)) return null;
    const { session, user, memberships } = found;
    const membership = memberships.find((m) => m.accountId === session.accountId) ?? memberships[0];
    // A user whose last membership was removed has nothing to see.
    if (!membership) return null;
    if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_EVERY_MS)
      await this.store.touch(session.id);
    return {
      user,
      session,
      account: {
        id: membership.accountId,
        name: membership.accountName,
        status: membership.accountStatus,
      },
      role: membership.role,
      livemode: session.livemode,
      csrfToken: session.csrfToken,
      memberships,
    };
  }

  /**
   * A new token and CSRF token for the session (a privilege change: a role, an account switch,
   * a password change); the old cookie stops working. The context is updated in place.
   */
  async rotate(ctx: DashboardContext, res: Response): Promise<void> {
    const token = newToken();
    const csrf = newToken();
    await this.store.rotate(ctx.session.id, hashToken(token), csrf);
    ctx.session.csrfToken = csrf;
    ctx.csrfToken = csrf;
    this.cookies.setSession(res, token);
  }

  async setLivemode(ctx: DashboardContext, livemode: boolean): Promise<void> {
    await this.store.setLivemode(ctx.session.id, livemode);
  }

  /** Moves the session to another of the user's accounts (test mode first); 404 for others. */
  async switchAccount(ctx: DashboardContext, res: Response, accountId: unknown): Promise<void> {
    const target = ctx.memberships.find((m) => m.accountId === accountId);
    if (!target) throw new NotFoundError('Account');
    await this.store.setAccount(ctx.session.id, target.accountId);
    await this.rotate(ctx, res);
  }

  async signOut(ctx: DashboardContext, res: Response): Promise<void> {
    await this.store.revoke(ctx.session.id);
    this.cookies.clearSession(res);
  }

  /** Ends every session of the user, this one included. */
  async signOutEverywhere(ctx: DashboardContext, res: Response): Promise<void> {
    await this.dataSource.transaction((em) => this.store.revokeAllOfUser(em, ctx.user.id));
    this.cookies.clearSession(res);
  }

  /** After a password change: this session gets a new token, the others already ended. */
  async afterPasswordChange(ctx: DashboardContext, res: Response): Promise<void> {
    await this.store.confirmPassword(ctx.session.id);
    await this.rotate(ctx, res);
  }

  /**
   * The "confirm your password" step: true when it was right. The session remembers when, and
   * gets a new token: what it may do (live keys) just grew.
   */
  async confirmPassword(ctx: DashboardContext, res: Response, password: string): Promise<boolean> {
    if (!(await this.people.passwordMatches(ctx.user.id, password))) return false;
    await this.store.confirmPassword(ctx.session.id);
    await this.rotate(ctx, res);
    return true;
  }

  /**
   * Throws unless the password was entered in this session within `withinMs` (default 10 min);
   * the dashboard's filter answers with the confirm-password page, which returns to `next`.
   */
  requireRecentPassword(ctx: DashboardContext, next: string, withinMs = RECENT_PASSWORD_MS): void {
    if (!passwordRecentlyConfirmed(ctx.session.passwordConfirmedAt, new Date(), withinMs))
      throw new PasswordConfirmationRequired(next);
  }
}
