import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import type { AuditAction } from '../../audit/audit-entry';
import { AuditService } from '../../audit/audit.service';
import { NotFoundError, ValidationError } from '../../common/errors/domain-error';
import { MailService } from '../../mail/mail.service';
import { dashboardConfig } from '../dashboard.config';
import { DashboardSessionsStore } from '../dashboard-sessions.store';
import { AccountMember, MembershipsStore } from '../memberships.store';
import {
  emailProblem,
  INVITATION_TTL_MS,
  normaliseEmail,
  type RequestOrigin,
} from '../people.service';
import { isRole, type Role } from '../security/roles';
import { hashToken, isWellFormedToken, newToken } from '../security/tokens';
import { UserTokenRecord, UserTokensStore } from '../user-tokens.store';

/** Who acts on the Members page: the signed-in user in their current account. */
export interface MemberActor {
  userId: string;
  accountId: string;
  accountName: string;
  origin: RequestOrigin;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LAST_OWNER = 'An account needs at least one owner. Make another member an owner first.';

/** An account's people: invitations, roles, removal; each change audited in its transaction. */
@Injectable()
export class MembersService {
  constructor(
    @Inject(dashboardConfig.KEY) private readonly config: ConfigType<typeof dashboardConfig>,
    private readonly dataSource: DataSource,
    private readonly memberships: MembershipsStore,
    private readonly tokens: UserTokensStore,
    private readonly sessions: DashboardSessionsStore,
    private readonly mail: MailService,
    private readonly audit: AuditService,
  ) {}

  members(accountId: string): Promise<AccountMember[]> {
    return this.memberships.ofAccount(accountId);
  }

  invitations(accountId: string): Promise<UserTokenRecord[]> {
    return this.tokens.openInvitations(accountId);
  }

  /**
   * An invitation (7 days) and its mail: a new user signs up with the email, an existing one
   * accepts the link while signed in. A newer invitation of the same email replaces older ones.
   */
  async invite(actor: MemberActor, rawEmail: string, role: string): Promise<void> {
    const email = normaliseEmail(rawEmail);
    const errors = [];
    const problem = emailProblem(email);
    if (problem) errors.push({ field: 'email', message: problem });
    if (!isRole(role)) errors.push({ field: 'role', message: 'Choose a role.' });
    if (errors.length === 0) {
      const members = await this.memberships.ofAccount(actor.accountId);
      if (members.some((m) => m.email === email))
        errors.push({ field: 'email', message: 'This person is already a member.' });
    }
    if (errors.length > 0) throw new ValidationError(errors, errors[0].message);
    const token = newToken();
    await this.dataSource.transaction(async (em) => {
      await this.tokens.retireInvitations(em, actor.accountId, email);
      await this.tokens.insert(em, {
        purpose: 'invitation',
        tokenHash: hashToken(token),
        email,
        accountId: actor.accountId,
        role: role as Role,
        ttlMs: INVITATION_TTL_MS,
      });
      await this.mail.send(
        {
          to: email,
          subject: `You are invited to ${actor.accountName} on the Listings Service`,
          text:
            `You are invited to join ${actor.accountName} on the Listings Service dashboard ` +
            `as ${role}.\n\n` +
            `Already have a dashboard sign-in? Accept here (the link works for 7 days):\n` +
            `${this.config.baseUrl}/dashboard/invitation?token=${token}\n\n` +
            `New to the dashboard? Sign up with this email address within 7 days:\n` +
            `${this.config.baseUrl}/dashboard/sign-up\n\n` +
            `If you did not expect this, ignore this mail.\n`,
        },
        em,
      );
      await this.record(em, actor, 'member.invited', `email:${email}`, { email, role });
    });
  }

  /** Revokes an open invitation of the account; another account's (or a used one) is a 404. */
  async revokeInvitation(actor: MemberActor, id: string): Promise<void> {
    if (!UUID.test(id)) throw new NotFoundError('Invitation');
    await this.dataSource.transaction(async (em) => {
      const revoked = await this.tokens.revokeInvitation(em, actor.accountId, id);
      if (!revoked) throw new NotFoundError('Invitation');
      await this.record(em, actor, 'member.removed', `email:${revoked.email}`, {
        email: revoked.email,
        invitationRevoked: true,
      });
    });
  }

  /** A new role for a member; the last owner keeps theirs. Answers whether it changed. */
  async changeRole(actor: MemberActor, userId: string, role: string): Promise<boolean> {
    if (!UUID.test(userId)) throw new NotFoundError('Member');
    if (!isRole(role)) throw ValidationError.field('role', 'Choose a role.');
    return this.dataSource.transaction(async (em) => {
      const all = await this.memberships.lockOfAccount(em, actor.accountId);
      const member = all.find((m) => m.userId === userId);
      if (!member) throw new NotFoundError('Member');
      if (member.role === role) return false;
      if (member.role === 'owner' && all.filter((m) => m.role === 'owner').length === 1)
        throw ValidationError.field('role', LAST_OWNER);
      await this.memberships.setRole(em, userId, actor.accountId, role);
      // A privilege change: another member signs in again here, with a new session; the actor's
      // own session gets a new token from the controller instead.
      const ended =
        userId === actor.userId
          ? 0
          : await this.sessions.revokeOfUserInAccount(em, userId, actor.accountId);
      await this.record(em, actor, 'member.changed', `user:${userId}`, {
        from: member.role,
        to: role,
        sessionsEnded: ended,
      });
      return true;
    });
  }

  /** Removes a member and ends their sessions in the account; the last owner stays. */
  async remove(actor: MemberActor, userId: string): Promise<void> {
    if (!UUID.test(userId)) throw new NotFoundError('Member');
    await this.dataSource.transaction(async (em) => {
      const all = await this.memberships.lockOfAccount(em, actor.accountId);
      const member = all.find((m) => m.userId === userId);
      if (!member) throw new NotFoundError('Member');
      if (member.role === 'owner' && all.filter((m) => m.role === 'owner').length === 1)
        throw ValidationError.field('member', LAST_OWNER);
      await this.memberships.remove(em, userId, actor.accountId);
      const ended = await this.sessions.revokeOfUserInAccount(em, userId, actor.accountId);
      await this.record(em, actor, 'member.removed', `user:${userId}`, {
        role: member.role,
        sessionsEnded: ended,
      });
    });
  }

  /** The invitation a link names, if still open and meant for `email`. */
  async invitationFor(token: unknown, email: string): Promise<UserTokenRecord | null> {
    if (!isWellFormedToken(token)) return null;
    const open = await this.tokens.usable('invitation', hashToken(token));
    return open && open.email === email ? open : null;
  }

  /** Accepts an invitation for the signed-in user: answers the account joined, or null. */
  async accept(token: unknown, userId: string, email: string): Promise<string | null> {
    if (!isWellFormedToken(token)) return null;
    return this.dataSource.transaction(async (em) => {
      const open = await this.tokens.usable('invitation', hashToken(token));
      if (!open || open.email !== email || !open.accountId || !open.role) return null;
      const used = await this.tokens.consume(em, 'invitation', hashToken(token));
      if (!used?.accountId || !used.role) return null;
      await this.memberships.insert(em, userId, used.accountId, used.role);
      return used.accountId;
    });
  }

  private record(
    em: EntityManager,
    actor: MemberActor,
    action: AuditAction,
    target: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record(em, {
      accountId: actor.accountId,
      actor: { type: 'user', id: actor.userId },
      action,
      target,
      ip: actor.origin.ip,
      userAgent: actor.origin.userAgent,
      details,
    });
  }
}
