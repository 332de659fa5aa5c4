import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AuditAction } from '../audit/audit-entry';
import { AuditService } from '../audit/audit.service';
import { RateLimitedError, ValidationError } from '../common/errors/domain-error';
import { MailService } from '../mail/mail.service';
import { MembershipsStore } from './memberships.store';
import { normaliseEmail } from './people.service';
import { ipPrefix } from './security/ip-prefix';
import { dummyPasswordHash, verifyPassword } from './security/passwords';
import { SignInFailuresStore } from './sign-in-failures.store';
import { UserRecord, UsersStore } from './users.store';

export const SIGN_IN_WINDOW_MS = 60_000;
/** failures a minute of one email from one address, then 429 */
export const PAIR_FAILURES_PER_MINUTE = 5;
/** failures a minute from one address (IPv6: its /64), then 429 */
export const ADDRESS_FAILURES_PER_MINUTE = 20;
/** wrong passwords in a row that lock the user */
export const LOCK_AFTER_FAILURES = 10;
export const LOCK_MS = 15 * 60_000;

/** The one answer to an unknown email, a wrong password and a locked user. */
export const SIGN_IN_REFUSED = 'The email or password is not right.';

export interface SignInAttempt {
  email: string;
  password: string;
  ip: string | undefined;
  userAgent?: string;
}

/**
 * Sign-in: throttled per (email, address) and per address, one argon2 verification whether the
 * email is known or not, and a lockout after 10 wrong passwords in a row, kept in PostgreSQL.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersStore,
    private readonly failures: SignInFailuresStore,
    private readonly memberships: MembershipsStore,
    private readonly mail: MailService,
    private readonly audit: AuditService,
  ) {}

  async signIn(attempt: SignInAttempt): Promise<UserRecord> {
    const email = normaliseEmail(attempt.email).slice(0, 254);
    const address = ipPrefix(attempt.ip);
    const counts = await this.failures.counts(email, address, SIGN_IN_WINDOW_MS);
    if (counts.pair >= PAIR_FAILURES_PER_MINUTE || counts.address >= ADDRESS_FAILURES_PER_MINUTE)
      throw new RateLimitedError(
        SIGN_IN_WINDOW_MS / 1000,
        'Too many sign-in attempts. Wait a minute, then try again.',
      );
    const user = email ? await this.users.byEmail(email) : null;
    const passwordRight = await verifyPassword(
      user?.passwordHash ?? (await dummyPasswordHash()),
      attempt.password,
    );
    const locked = !!user?.lockedUntil && user.lockedUntil > new Date();
    if (user && passwordRight && !locked) {
      await this.dataSource.transaction(async (em) => {
        await this.users.clearFailures(em, user.id);
        await this.record(em, 'sign_in.succeeded', user, attempt);
      });
      return user;
    }
    await this.dataSource.transaction(async (em) => {
      await this.failures.record(em, email, address);
      // An unknown email has no account to log it under: a row without one, naming no email.
      await this.record(em, 'sign_in.failed', user, attempt, locked ? { locked: true } : {});
      if (user && !locked) await this.countWrongPassword(em, user, attempt);
    });
    throw ValidationError.field('email', SIGN_IN_REFUSED);
  }

  /** The audit row, under the user's first account (null for an unknown email). */
  private async record(
    em: EntityManager,
    action: AuditAction,
    user: UserRecord | null,
    attempt: SignInAttempt,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    const accountId = user
      ? ((await this.memberships.ofUser(user.id, em))[0]?.accountId ?? null)
      : null;
    await this.audit.record(em, {
      accountId,
      actor: { type: 'user', id: user?.id ?? null },
      action,
      target: user ? `user:${user.id}` : null,
      ip: attempt.ip ?? null,
      userAgent: attempt.userAgent ?? null,
      details,
    });
  }

  private async countWrongPassword(
    em: EntityManager,
    user: UserRecord,
    attempt: SignInAttempt,
  ): Promise<void> {
    const { lockedNow, lockedUntil } = await this.users.countFailure(
      em,
      user.id,
      LOCK_AFTER_FAILURES,
      LOCK_MS,
    );
    if (!lockedNow) return;
    await this.record(em, 'sign_in.locked', user, attempt, {
      lockedUntil: lockedUntil?.toISOString() ?? null,
    });
    await this.mail.send(
      {
        to: user.email,
        subject: 'Your Listings Service sign-in is locked for 15 minutes',
        text:
          `There were ${LOCK_AFTER_FAILURES} wrong passwords in a row for your dashboard user, ` +
          `so signing in is locked for 15 minutes.\n\n` +
          `If it was not you, someone is guessing your password: once the lock ends, reset it ` +
          `from the sign-in page ("Forgot your password?").\n`,
      },
      em,
    );
  }
}
