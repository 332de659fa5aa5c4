import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Role } from './security/roles';

export const USER_TOKEN_PURPOSES = ['verify_email', 'reset_password', 'invitation'] as const;
export type UserTokenPurpose = (typeof USER_TOKEN_PURPOSES)[number];

export interface UserTokenRecord {
  id: string;
  purpose: UserTokenPurpose;
  userId: string | null;
  email: string;
  accountId: string | null;
  role: Role | null;
  expiresAt: Date;
}

interface UserTokenRow {
  id: string;
  purpose: UserTokenPurpose;
  user_id: string | null;
  email: string;
  account_id: string | null;
  role: Role | null;
  expires_at: Date;
}

const toToken = (r: UserTokenRow): UserTokenRecord => ({
  id: r.id,
  purpose: r.purpose,
  userId: r.user_id,
  email: r.email,
  accountId: r.account_id,
  role: r.role,
  expiresAt: r.expires_at,
});

export interface NewUserToken {
  purpose: UserTokenPurpose;
  tokenHash: Buffer;
  email: string;
  userId?: string | null;
  accountId?: string | null;
  role?: Role | null;
  ttlMs: number;
}

const COLUMNS = `id, purpose, user_id, email, account_id, role, expires_at`;

/** The one owner of `user_tokens`: mailed, single-use tokens, kept as their SHA-256. */
@Injectable()
export class UserTokensStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, token: NewUserToken): Promise<void> {
    await em.query(
      `INSERT INTO user_tokens (purpose, token_hash, user_id, email, account_id, role, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')`,
      [
        token.purpose,
        token.tokenHash,
        token.userId ?? null,
        token.email,
        token.accountId ?? null,
        token.role ?? null,
        token.ttlMs,
      ],
    );
  }

  /** The token if it is unused and unexpired, without using it (the page before the form). */
  async usable(purpose: UserTokenPurpose, tokenHash: Buffer): Promise<UserTokenRecord | null> {
    const rows: UserTokenRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM user_tokens
        WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()`,
      [tokenHash, purpose],
    );
    return rows[0] ? toToken(rows[0]) : null;
  }

  /** Uses the token, once: of two concurrent uses, one gets it and the other null. */
  async consume(
    em: EntityManager,
    purpose: UserTokenPurpose,
    tokenHash: Buffer,
  ): Promise<UserTokenRecord | null> {
    // An UPDATE answers [rows, count].
    const [rows]: [UserTokenRow[]] = await em.query(
      `UPDATE user_tokens SET used_at = now()
        WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
        RETURNING ${COLUMNS}`,
      [tokenHash, purpose],
    );
    return rows[0] ? toToken(rows[0]) : null;
  }

  /** Tokens of a purpose sent to an email in the last `windowMs`, used or not: the mails sent. */
  async sentSince(purpose: UserTokenPurpose, email: string, windowMs: number): Promise<number> {
    const [{ n }]: { n: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM user_tokens
        WHERE email = $1 AND purpose = $2 AND created_at > now() - $3 * interval '1 millisecond'`,
      [email, purpose, windowMs],
    );
    return n;
  }

  /** Earlier unused tokens of a purpose stop working when a new one is sent. */
  async retireOpen(em: EntityManager, purpose: UserTokenPurpose, email: string): Promise<void> {
    await em.query(
      `UPDATE user_tokens SET used_at = now()
        WHERE email = $1 AND purpose = $2 AND used_at IS NULL`,
      [email, purpose],
    );
  }

  /** Uses every open invitation of the email (sign-up): the accounts and roles it joins. */
  async consumeInvitations(
    em: EntityManager,
    email: string,
  ): Promise<{ accountId: string; role: Role }[]> {
    // An UPDATE answers [rows, count].
    const [rows]: [{ account_id: string; role: Role }[]] = await em.query(
      `UPDATE user_tokens SET used_at = now()
        WHERE email = $1 AND purpose = 'invitation' AND used_at IS NULL AND expires_at > now()
          AND account_id IS NOT NULL AND role IS NOT NULL
        RETURNING account_id, role`,
      [email],
    );
    return rows.map((r) => ({ accountId: r.account_id, role: r.role }));
  }

  async hasOpenInvitation(email: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM user_tokens WHERE email = $1 AND purpose = 'invitation'
          AND used_at IS NULL AND expires_at > now() LIMIT 1`,
      [email],
    );
    return rows.length > 0;
  }

  /** Test support: push a token's expiry into the past. */
  async expireForTest(tokenHash: Buffer): Promise<void> {
    await this.dataSource.query(
      `UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
      [tokenHash],
    );
  }

  /** The account's open invitations, newest first (the Members page). */
  async openInvitations(accountId: string): Promise<UserTokenRecord[]> {
    const rows: UserTokenRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM user_tokens
        WHERE account_id = $1 AND purpose = 'invitation' AND used_at IS NULL
          AND expires_at > now()
        ORDER BY created_at DESC`,
      [accountId],
    );
    return rows.map(toToken);
  }

  /** Ends the account's open invitations of an email (a new one replaces them). */
  async retireInvitations(em: EntityManager, accountId: string, email: string): Promise<void> {
    await em.query(
      `UPDATE user_tokens SET used_at = now()
        WHERE account_id = $1 AND email = $2 AND purpose = 'invitation' AND used_at IS NULL`,
      [accountId, email],
    );
  }

  /** Revokes one open invitation of the account: the revoked one, or null (none such). */
  async revokeInvitation(
    em: EntityManager,
    accountId: string,
    id: string,
  ): Promise<UserTokenRecord | null> {
    // An UPDATE answers [rows, count].
    const [rows]: [UserTokenRow[]] = await em.query(
      `UPDATE user_tokens SET used_at = now()
        WHERE id::text = $2 AND account_id = $1 AND purpose = 'invitation' AND used_at IS NULL
          AND expires_at > now()
        RETURNING ${COLUMNS}`,
      [accountId, id],
    );
    return rows[0] ? toToken(rows[0]) : null;
  }
}
