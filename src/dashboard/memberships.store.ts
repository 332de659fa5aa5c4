import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AccountStatus } from '../auth/principal';
import type { Role } from './security/roles';

export interface Membership {
  accountId: string;
  accountName: string;
  accountStatus: AccountStatus;
  role: Role;
}

interface MembershipRow {
  account_id: string;
  account_name: string;
  account_status: AccountStatus;
  role: Role;
}

const toMembership = (r: MembershipRow): Membership => ({
  accountId: r.account_id,
  accountName: r.account_name,
  accountStatus: r.account_status,
  role: r.role,
});

/** The one owner of `memberships`; its reads join the account's name and status. */
@Injectable()
export class MembershipsStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, userId: string, accountId: string, role: Role): Promise<void> {
    await em.query(
      `INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, account_id) DO NOTHING`,
      [userId, accountId, role],
    );
  }

  /** The user's accounts, oldest membership first (the first is where sign-in lands). */
  async ofUser(userId: string, em?: EntityManager): Promise<Membership[]> {
    const rows: MembershipRow[] = await (em ?? this.dataSource.manager).query(
      `SELECT m.account_id, a.name AS account_name, a.status AS account_status, m.role
         FROM memberships m JOIN accounts a ON a.id = m.account_id
        WHERE m.user_id = $1 ORDER BY m.created_at, m.account_id`,
      [userId],
    );
    return rows.map(toMembership);
  }

  async find(userId: string, accountId: string): Promise<Membership | null> {
    const rows: MembershipRow[] = await this.dataSource.query(
      `SELECT m.account_id, a.name AS account_name, a.status AS account_status, m.role
         FROM memberships m JOIN accounts a ON a.id = m.account_id
        WHERE m.user_id = $1 AND m.account_id = $2`,
      [userId, accountId],
    );
    return rows[0] ? toMembership(rows[0]) : null;
  }

  /** The account's members with their emails, oldest first (the Members page). */
  async ofAccount(accountId: string): Promise<AccountMember[]> {
    const rows: { user_id: string; email: string; role: Role; created_at: Date }[] =
      await this.dataSource.query(
        `SELECT m.user_id, u.email, m.role, m.created_at
           FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.account_id = $1 ORDER BY m.created_at, u.email`,
        [accountId],
      );
    return rows.map((r) => ({
      userId: r.user_id,
      email: r.email,
      role: r.role,
      joinedAt: r.created_at,
    }));
  }

  /**
   * The account's memberships locked for a change (in id order, so two changes queue): the
   * last-owner rule is checked against what the transaction will commit.
   */
  async lockOfAccount(
    em: EntityManager,
    accountId: string,
  ): Promise<{ userId: string; role: Role }[]> {
    const rows: { user_id: string; role: Role }[] = await em.query(
      `SELECT user_id, role FROM memberships WHERE account_id = $1
        ORDER BY user_id FOR UPDATE`,
      [accountId],
    );
    return rows.map((r) => ({ userId: r.user_id, role: r.role }));
  }

  async setRole(em: EntityManager, userId: string, accountId: string, role: Role): Promise<void> {
    await em.query(`UPDATE memberships SET role = $3 WHERE user_id = $1 AND account_id = $2`, [
      userId,
      accountId,
      role,
    ]);
  }

  async remove(em: EntityManager, userId: string, accountId: string): Promise<void> {
    await em.query(`DELETE FROM memberships WHERE user_id = $1 AND account_id = $2`, [
      userId,
      accountId,
    ]);
  }

  /** The verified email addresses of the account's owners, in the caller's transaction. */
  async ownerEmails(accountId: string, em?: EntityManager): Promise<string[]> {
    const rows: { email: string }[] = await (em ?? this.dataSource.manager).query(
      `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1 AND m.role = 'owner' AND u.email_verified_at IS NOT NULL
        ORDER BY u.email`,
      [accountId],
    );
    return rows.map((r) => r.email);
  }
}

export interface AccountMember {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}
