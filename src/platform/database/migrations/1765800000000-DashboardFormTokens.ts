import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One-time form tokens of the dashboard (FormOnce): a form that makes something shown once (a key,
 * a signing secret) carries one, and only its first submit counts. Only the token's SHA-256 is
 * kept, with the session it was issued to; the rows go with the session.
 */
export class DashboardFormTokens1765800000000 implements MigrationInterface {
  name = 'DashboardFormTokens1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE dashboard_form_tokens (
      token_hash bytea PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES dashboard_sessions(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      used_at timestamptz)`);
    await q.query(
      `CREATE INDEX dashboard_form_tokens_session_idx ON dashboard_form_tokens (session_id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dashboard_form_tokens`);
  }
}
