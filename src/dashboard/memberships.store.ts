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
