import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Membership } from './memberships.store';

export interface SessionRecord {
  id: string;
  userId: string;
  accountId: string | null;
  livemode: boolean;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  passwordConfirmedAt: Date | null;
  revokedAt: Date | null;
}

interface SessionRow {
  id: string;
  user_id: string;
  account_id: string | null;
  livemode: boolean;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  password_confirmed_at: Date | null;
  revoked_at: Date | null;
}

const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  userId: r.user_id,
  accountId: r.account_id,
  livemode: r.livemode,
  csrfToken: r.csrf_token,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  passwordConfirmedAt: r.password_confirmed_at,
  revokedAt: r.revoked_at,
});

const COLUMNS = `id, user_id, account_id, livemode, csrf_token, created_at, last_seen_at,
  password_confirmed_at, revoked_at`;
const SESSION_COLUMNS = COLUMNS.split(',')
  .map((column) => `s.${column.trim()}`)
  .join(', ');

export interface SessionWithPeople {
  session: SessionRecord;
  user: { id: string; email: string; emailVerified: boolean };
  memberships: Membership[];
}

export interface NewSession {
  tokenHash: Buffer;
  userId: string;
  accountId: string | null;
  csrfToken: string;
  /** a sign-in is a password entry: sensitive actions need none for the next minutes */
  passwordConfirmed: boolean;
  ip: string | null;
  userAgent: string | null;
}

/** The one owner of `dashboard_sessions`: only the SHA-256 of each cookie's token is stored. */
@Injectable()
export class DashboardSessionsStore {
  constructor(private readonly dataSource: DataSource) {}

  private db(em?: EntityManager): EntityManager {
    return em ?? this.dataSource.manager;
  }

  async insert(session: NewSession, em?: EntityManager): Promise<SessionRecord> {
    const rows: SessionRow[] = await this.db(em).query(
      `INSERT INTO dashboard_sessions
         (token_hash, user_id, account_id, csrf_token, password_confirmed_at, ip, user_agent)
       VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END, $6, $7) RETURNING ${COLUMNS}`,
      [
        session.tokenHash,
        session.userId,
        session.accountId,
        session.csrfToken,
        session.passwordConfirmed,
        session.ip,
        session.userAgent?.slice(0, 500) ?? null,
      ],
    );
    return toSession(rows[0]);
  }

  /**
   * A cookie's session with what every page needs of its user: one round trip per page, the
   * user's email and its memberships (joined with their accounts, oldest first) read with it.
   */
  async byTokenHash(tokenHash: Buffer): Promise<SessionWithPeople | null> {
    const rows: (SessionRow & {
      email: string;
      email_verified_at: Date | null;
      memberships: Membership[];
    })[] = await this.dataSource.query(
      `SELECT ${SESSION_COLUMNS}, u.email, u.email_verified_at,
         coalesce((SELECT json_agg(json_build_object('accountId', m.account_id,
                    'accountName', a.name, 'accountStatus', a.status, 'role', m.role)
                    ORDER BY m.created_at, m.account_id)
                   FROM memberships m JOIN accounts a ON a.id = m.account_id
                   WHERE m.user_id = s.user_id), '[]') AS memberships
         FROM dashboard_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      session: toSession(row),
      user: { id: row.user_id, email: row.email, emailVerified: row.email_verified_at !== null },
      memberships: row.memberships,
    };
  }

  async touch(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE dashboard_sessions SET last_seen_at = now() WHERE id = $1 AND revoked_at IS NULL`,
      [id],
    );
  }

  /** A new token (and CSRF token) for the same session; the old cookie stops working at once. */
  async rotate(
    id: string,
    tokenHash: Buffer,
    csrfToken: string,
    em?: EntityManager,
  ): Promise<void> {
    await this.db(em).query(
      `UPDATE dashboard_sessions SET token_hash = $2, csrf_token = $3, last_seen_at = now()
        WHERE id = $1 AND revoked_at IS NULL`,
      [id, tokenHash, csrfToken],
    );
  }

  async setLivemode(id: string, livemode: boolean): Promise<void> {
    await this.dataSource.query(`UPDATE dashboard_sessions SET livemode = $2 WHERE id = $1`, [
      id,
      livemode,
    ]);
  }

  async setAccount(id: string, accountId: string, em?: EntityManager): Promise<void> {
    await this.db(em).query(
      `UPDATE dashboard_sessions SET account_id = $2, livemode = false WHERE id = $1`,
      [id, accountId],
    );
  }

  async confirmPassword(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE dashboard_sessions SET password_confirmed_at = now() WHERE id = $1`,
      [id],
    );
  }

  async revoke(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE dashboard_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
      [id],
    );
  }

  /** Ends every session of the user but `exceptId`; answers how many ended. */
  async revokeAllOfUser(em: EntityManager, userId: string, exceptId?: string): Promise<number> {
    // An UPDATE answers [rows, count].
    const [, count]: [unknown[], number] = await em.query(
      `UPDATE dashboard_sessions SET revoked_at = now()
        WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2)
        RETURNING id`,
      [userId, exceptId ?? null],
    );
    return count;
  }

  /** Tests and ops: how many sessions of the user are still open. */
  async openCountOfUser(userId: string): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM dashboard_sessions WHERE user_id = $1 AND revoked_at IS NULL`,
      [userId],
    );
    return rows[0].n;
  }

  /** Ends the user's sessions in one account (a removed member); answers how many. */
  async revokeOfUserInAccount(
    em: EntityManager,
    userId: string,
    accountId: string,
  ): Promise<number> {
    // An UPDATE answers [rows, count].
    const [, count]: [unknown, number] = await em.query(
      `UPDATE dashboard_sessions SET revoked_at = now()
        WHERE user_id = $1 AND account_id = $2 AND revoked_at IS NULL
        RETURNING id`,
      [userId, accountId],
    );
    return count;
  }
}
