import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string;
  emailVerifiedAt: Date | null;
  failedSignIns: number;
  lockedUntil: Date | null;
  createdAt: Date;
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  email_verified_at: Date | null;
  failed_sign_ins: number;
  locked_until: Date | null;
  created_at: Date;
}

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  emailVerifiedAt: r.email_verified_at,
  failedSignIns: r.failed_sign_ins,
  lockedUntil: r.locked_until,
  createdAt: r.created_at,
});

const COLUMNS = `id, email, password_hash, email_verified_at, failed_sign_ins, locked_until, created_at`;

/** The one owner of `users`. Emails are stored lower-cased (a CHECK holds it). */
@Injectable()
export class UsersStore {
  constructor(private readonly dataSource: DataSource) {}

  /** null when the email is taken (the unique index decides, not a read before). */
  async insert(em: EntityManager, email: string, passwordHash: string): Promise<UserRecord | null> {
    const rows: UserRow[] = await em.query(
      `INSERT INTO users (email, password_hash) VALUES ($1, $2)
       ON CONFLICT (email) DO NOTHING RETURNING ${COLUMNS}`,
      [email, passwordHash],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async byEmail(email: string, em?: EntityManager): Promise<UserRecord | null> {
    const rows: UserRow[] = await (em ?? this.dataSource.manager).query(
      `SELECT ${COLUMNS} FROM users WHERE email = $1`,
      [email],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async byId(id: string, em?: EntityManager): Promise<UserRecord | null> {
    const rows: UserRow[] = await (em ?? this.dataSource.manager).query(
      `SELECT ${COLUMNS} FROM users WHERE id = $1`,
      [id],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async markVerified(em: EntityManager, id: string): Promise<void> {
    await em.query(
      `UPDATE users SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
        WHERE id = $1`,
      [id],
    );
  }

  /** A new password also ends a lockout: whoever reset it holds the mailbox. */
  async setPassword(em: EntityManager, id: string, passwordHash: string): Promise<void> {
    await em.query(
      `UPDATE users SET password_hash = $2, failed_sign_ins = 0, locked_until = NULL,
              updated_at = now() WHERE id = $1`,
      [id, passwordHash],
    );
  }

  /**
   * Counts a wrong password, in one statement: the `lockAfter`-th failure in a row locks the
   * user for `lockMs` and starts the count again. Answers whether this failure locked it.
   */
  async countFailure(
    em: EntityManager,
    id: string,
    lockAfter: number,
    lockMs: number,
  ): Promise<{ lockedNow: boolean; lockedUntil: Date | null }> {
    // An UPDATE answers [rows, count].
    const [rows]: [{ locked_now: boolean; locked_until: Date | null }[]] = await em.query(
      `UPDATE users SET
          failed_sign_ins = CASE WHEN failed_sign_ins + 1 >= $2 THEN 0 ELSE failed_sign_ins + 1 END,
          locked_until = CASE WHEN failed_sign_ins + 1 >= $2
                              THEN now() + $3 * interval '1 millisecond' ELSE locked_until END
        WHERE id = $1
        RETURNING (failed_sign_ins = 0) AS locked_now, locked_until`,
      [id, lockAfter, lockMs],
    );
    const row = rows[0];
    return { lockedNow: row?.locked_now ?? false, lockedUntil: row?.locked_until ?? null };
  }

  async clearFailures(em: EntityManager, id: string): Promise<void> {
    await em.query(`UPDATE users SET failed_sign_ins = 0 WHERE id = $1 AND failed_sign_ins <> 0`, [
      id,
    ]);
  }

  /** The emails of some users, by id (the security log's actors). */
  async emailsOf(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; email: string }[] = await this.dataSource.query(
      `SELECT id, email FROM users WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.email]));
  }
}
