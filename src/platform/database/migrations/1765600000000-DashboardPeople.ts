import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's people: users (email stored lower-cased, argon2id hash, lockout counters),
 * their memberships of accounts, sessions (only the SHA-256 of the cookie's token), single-use
 * tokens (email verification, password reset, invitation; only their SHA-256), sign-in failures
 * for throttling, and the mail outbox that keeps mail when no SMTP server is configured.
 */
export class DashboardPeople1765600000000 implements MigrationInterface {
  name = 'DashboardPeople1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email text NOT NULL CHECK (email = lower(email)),
      password_hash text NOT NULL,
      email_verified_at timestamptz,
      failed_sign_ins integer NOT NULL DEFAULT 0,
      locked_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);

    await q.query(`CREATE TABLE memberships (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, account_id))`);
    await q.query(`CREATE INDEX memberships_account_idx ON memberships (account_id)`);

    await q.query(`CREATE TABLE dashboard_sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      token_hash bytea NOT NULL,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      account_id uuid REFERENCES accounts(id) ON DELETE SET NULL,
      livemode boolean NOT NULL DEFAULT false,
      csrf_token text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      password_confirmed_at timestamptz,
      revoked_at timestamptz,
      ip text,
      user_agent text)`);
    await q.query(
      `CREATE UNIQUE INDEX dashboard_sessions_token_key ON dashboard_sessions (token_hash)`,
    );
    await q.query(`CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id)
      WHERE revoked_at IS NULL`);

    await q.query(`CREATE TABLE user_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password', 'invitation')),
      token_hash bytea NOT NULL,
      user_id uuid REFERENCES users(id) ON DELETE CASCADE,
      email text NOT NULL CHECK (email = lower(email)),
      account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
      role text CHECK (role IN ('owner', 'developer', 'viewer')),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE UNIQUE INDEX user_tokens_hash_key ON user_tokens (token_hash)`);
    await q.query(`CREATE INDEX user_tokens_email_idx ON user_tokens (email, purpose)
      WHERE used_at IS NULL`);

    await q.query(`CREATE TABLE sign_in_failures (
      id bigserial PRIMARY KEY,
      email text NOT NULL,
      ip_prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(
      `CREATE INDEX sign_in_failures_ip_idx ON sign_in_failures (ip_prefix, created_at)`,
    );
    await q.query(`CREATE INDEX sign_in_failures_email_idx
      ON sign_in_failures (email, ip_prefix, created_at)`);

    await q.query(`CREATE TABLE mail_outbox (
      id bigserial PRIMARY KEY,
      to_address text NOT NULL,
      subject text NOT NULL,
      body_text text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX mail_outbox_to_idx ON mail_outbox (lower(to_address), id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mail_outbox`);
    await q.query(`DROP TABLE sign_in_failures`);
    await q.query(`DROP TABLE user_tokens`);
    await q.query(`DROP TABLE dashboard_sessions`);
    await q.query(`DROP TABLE memberships`);
    await q.query(`DROP TABLE users`);
  }
}
