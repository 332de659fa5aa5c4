import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dashboard_form_tokens`: one-time form tokens (FormOnce). A form that must never act twice (a
 * key's creation, a secret's rotation) carries a random token; the table keeps its SHA-256 with
 * the session, and the first submit marks it used. Gone with the session.
 */
export class DashboardFormTokens1765800000000 implements MigrationInterface {
  name = 'DashboardFormTokens1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE dashboard_form_tokens (
      token_hash bytea PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES dashboard_sessions (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      used_at timestamptz)`);
    await q.query(`CREATE INDEX dashboard_form_tokens_session_idx ON dashboard_form_tokens (session_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dashboard_form_tokens`);
  }
}
