import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import { AccountsService } from '../accounts/accounts.service';
import type { AuditAction } from '../audit/audit-entry';
import { AuditService } from '../audit/audit.service';
import { ForbiddenError, ValidationError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/domain-error';
import { MailService } from '../mail/mail.service';
import { dashboardConfig } from './dashboard.config';
import { DashboardSessionsStore } from './dashboard-sessions.store';
import { MembershipsStore } from './memberships.store';
import { hashPassword, passwordProblem, verifyPassword } from './security/passwords';
import { hashToken, isWellFormedToken, newToken } from './security/tokens';
import { UserTokenPurpose, UserTokensStore } from './user-tokens.store';
import { UserRecord, UsersStore } from './users.store';

export const VERIFY_EMAIL_TTL_MS = 24 * 60 * 60_000;
export const RESET_PASSWORD_TTL_MS = 60 * 60_000;
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
/**
 * Links of one purpose (verification, password reset) an email is mailed in an hour at most, the
 * sign-up's own verification included: the forms that send mail cannot flood someone's inbox.
 */
export const MAILED_LINKS_PER_HOUR = 3;
const HOUR_MS = 60 * 60_000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const COMPANY_MAX = 200;

/** Where a dashboard request came from, for the audit log. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

export interface SignUpInput {
  email: string;
  password: string;
  company: string;
}

/** An email as stored and compared: trimmed, lower-cased. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export function emailProblem(email: string): string | undefined {
  if (email.length === 0) return 'Enter your email address.';
  if (email.length > 254 || !EMAIL.test(email))
    return 'Enter an email address like name@example.se.';
  return undefined;
}

/** Users: sign-up, email verification, password reset and change. */
@Injectable()
export class PeopleService {
  constructor(
    @Inject(dashboardConfig.KEY) private readonly config: ConfigType<typeof dashboardConfig>,
    private readonly dataSource: DataSource,
    private readonly users: UsersStore,
    private readonly memberships: MembershipsStore,
    private readonly tokens: UserTokensStore,
    private readonly sessions: DashboardSessionsStore,
    private readonly accounts: AccountsService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
  ) {}

  user(id: string): Promise<UserRecord | null> {
    return this.users.byId(id);
  }

  /**
   * A user, a PENDING account and the owner membership, in one transaction with the verification
   * mail. An email with open invitations joins the inviting accounts in their roles instead (no
   * account of its own, no company name needed). In `invite` mode only invited emails sign up.
   */
  async signUp(input: SignUpInput): Promise<{ user: UserRecord; accountId: string }> {
    const email = normaliseEmail(input.email);
    const company = input.company.trim();
    const errors: FieldError[] = [];
    const emailError = emailProblem(email);
    if (emailError) errors.push({ field: 'email', message: emailError });
    const invited = !emailError && (await this.tokens.hasOpenInvitation(email));
    if (!invited && company.length === 0)
      errors.push({ field: 'company', message: 'Enter your company name.' });
    else if (company.length > COMPANY_MAX)
      errors.push({ field: 'company', message: `Use at most ${COMPANY_MAX} characters.` });
    const passwordError = await passwordProblem(input.password, [email, company]);
    if (passwordError) errors.push({ field: 'password', message: passwordError });
    if (errors.length > 0) throw new ValidationError(errors, errors[0].message);
    if (this.config.signup === 'invite' && !invited)
      throw ValidationError.field(
        'email',
        'Sign-up is by invitation only. Ask an owner to invite you.',
      );

    const passwordHash = await hashPassword(input.password);
    return this.dataSource.transaction(async (em) => {
      const user = await this.users.insert(em, email, passwordHash);
      if (!user)
        throw ValidationError.field(
          'email',
          'An account with this email already exists. Sign in, or reset your password.',
        );
      const invitations = await this.tokens.consumeInvitations(em, email);
      for (const invitation of invitations)
        await this.memberships.insert(em, user.id, invitation.accountId, invitation.role);
      let accountId = invitations[0]?.accountId;
      if (!accountId) {
        accountId = (await this.accounts.create(company, false, em)).id;
        await this.memberships.insert(em, user.id, accountId, 'owner');
      }
      await this.sendVerification(em, user);
      return { user, accountId };
    });
  }

  /**
   * A new verification link, the earlier ones no longer working; 'held' (nothing sent) once the
   * email had MAILED_LINKS_PER_HOUR of them in the last hour.
   */
  async resendVerification(userId: string): Promise<'sent' | 'held'> {
    const user = await this.users.byId(userId);
    if (!user || user.emailVerifiedAt) return 'sent';
    if (!(await this.mayMail('verify_email', user.email))) return 'held';
    await this.dataSource.transaction((em) => this.sendVerification(em, user));
    return 'sent';
  }

  /** Uses a verification link; answers the user it verified, or null (used, expired, unknown). */
  async verifyEmail(token: unknown): Promise<string | null> {
    if (!isWellFormedToken(token)) return null;
    return this.dataSource.transaction(async (em) => {
      const used = await this.tokens.consume(em, 'verify_email', hashToken(token));
      if (!used?.userId) return null;
      await this.users.markVerified(em, used.userId);
      return used.userId;
    });
  }

  /** Whether a mailed link can still be used (the page before its form). */
  async tokenUsable(purpose: UserTokenPurpose, token: unknown): Promise<boolean> {
    if (!isWellFormedToken(token)) return false;
    return (await this.tokens.usable(purpose, hashToken(token))) !== null;
  }

  /**
   * Mails a reset link when the email is a user's and it had fewer than MAILED_LINKS_PER_HOUR
   * in the last hour; says nothing either way.
   */
  async requestPasswordReset(rawEmail: string): Promise<void> {
    const email = normaliseEmail(rawEmail);
    const problem = emailProblem(email);
    if (problem) throw ValidationError.field('email', problem);
    const user = await this.users.byEmail(email);
    if (!user || !(await this.mayMail('reset_password', user.email))) return;
    await this.dataSource.transaction(async (em) => {
      const token = await this.issue(em, 'reset_password', user, RESET_PASSWORD_TTL_MS);
      await this.mail.send(
        {
          to: user.email,
          subject: 'Reset your Listings Service password',
          text:
            `Someone asked to reset the password of your Listings Service dashboard.\n\n` +
            `Choose a new password here (the link works once, for 1 hour):\n` +
            `${this.link('/dashboard/reset-password', token)}\n\n` +
            `If it was not you, ignore this mail: your password stays as it is.\n`,
        },
        em,
      );
    });
  }

  /** Sets a new password from a reset link and ends every session of the user. */
  async resetPassword(
    token: unknown,
    password: string,
    origin: RequestOrigin,
  ): Promise<UserRecord> {
    if (!isWellFormedToken(token)) throw invalidLink();
    const pending = await this.tokens.usable('reset_password', hashToken(token));
    if (!pending?.userId) throw invalidLink();
    const problem = await passwordProblem(password, [pending.email]);
    if (problem) throw ValidationError.field('password', problem);
    const passwordHash = await hashPassword(password);
    return this.dataSource.transaction(async (em) => {
      const used = await this.tokens.consume(em, 'reset_password', hashToken(token));
      if (!used?.userId) throw invalidLink();
      await this.users.setPassword(em, used.userId, passwordHash);
      const ended = await this.sessions.revokeAllOfUser(em, used.userId);
      await this.record(em, 'password.reset', used.userId, origin, { sessionsEnded: ended });
      return (await this.users.byId(used.userId, em))!;
    });
  }

  /** Changes the password (the current one must be right) and ends the user's other sessions. */
  async changePassword(
    userId: string,
    sessionId: string,
    current: string,
    next: string,
    origin: RequestOrigin,
  ): Promise<void> {
    const user = await this.users.byId(userId);
    if (!user) throw new ForbiddenError('Sign in again.');
    const errors: FieldError[] = [];
    if (!(await verifyPassword(user.passwordHash, current)))
      errors.push({ field: 'currentPassword', message: 'The current password is not right.' });
    const problem = await passwordProblem(next, [user.email]);
    if (problem) errors.push({ field: 'newPassword', message: problem });
    if (errors.length > 0) throw new ValidationError(errors, errors[0].message);
    const passwordHash = await hashPassword(next);
    await this.dataSource.transaction(async (em) => {
      await this.users.setPassword(em, userId, passwordHash);
      const ended = await this.sessions.revokeAllOfUser(em, userId, sessionId);
      await this.record(em, 'password.changed', userId, origin, { sessionsEnded: ended });
    });
  }

  /** Checks the password of a signed-in user (the "confirm your password" step). */
  async passwordMatches(userId: string, password: string): Promise<boolean> {
    const user = await this.users.byId(userId);
    return user !== null && (await verifyPassword(user.passwordHash, password));
  }

  /** An audit row of the user's own action, under their first account. */
  private async record(
    em: EntityManager,
    action: AuditAction,
    userId: string,
    origin: RequestOrigin,
    details: Record<string, unknown>,
  ): Promise<void> {
    const [first] = await this.memberships.ofUser(userId, em);
    await this.audit.record(em, {
      accountId: first?.accountId ?? null,
      actor: { type: 'user', id: userId },
      action,
      target: `user:${userId}`,
      ip: origin.ip,
      userAgent: origin.userAgent,
      details,
    });
  }

  private async sendVerification(em: EntityManager, user: UserRecord): Promise<void> {
    const token = await this.issue(em, 'verify_email', user, VERIFY_EMAIL_TTL_MS);
    await this.mail.send(
      {
        to: user.email,
        subject: 'Verify your email for the Listings Service dashboard',
        text:
          `Welcome to the Listings Service.\n\n` +
          `Verify your email address here (the link works once, for 24 hours):\n` +
          `${this.link('/dashboard/verify-email', token)}\n\n` +
          `If you did not sign up, ignore this mail.\n`,
      },
      em,
    );
  }

  private async issue(
    em: EntityManager,
    purpose: UserTokenPurpose,
    user: UserRecord,
    ttlMs: number,
  ): Promise<string> {
    await this.tokens.retireOpen(em, purpose, user.email);
    const token = newToken();
    await this.tokens.insert(em, {
      purpose,
      tokenHash: hashToken(token),
      email: user.email,
      userId: user.id,
      ttlMs,
    });
    return token;
  }

  /** Whether the email may be mailed another link of `purpose` this hour. */
  private async mayMail(purpose: UserTokenPurpose, email: string): Promise<boolean> {
    return (await this.tokens.sentSince(purpose, email, HOUR_MS)) < MAILED_LINKS_PER_HOUR;
  }

  private link(path: string, token: string): string {
    return `${this.config.baseUrl}${path}?token=${token}`;
  }
}

function invalidLink(): ValidationError {
  return ValidationError.field(
    'token',
    'This link has expired or was already used. Ask for a new one.',
  );
}
