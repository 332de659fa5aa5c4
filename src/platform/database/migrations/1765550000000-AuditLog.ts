import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `audit_log`: who did what to an account, from every door (dashboard, admin API, CLI, public
 * API). Append-only: rows are written in the action's own transaction, never updated, and deleted
 * only by the purge after AUDIT_RETENTION. The id orders the log and is its cursor.
 */
export class AuditLog1765550000000 implements MigrationInterface {
  name = 'AuditLog1765550000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id uuid REFERENCES accounts (id) ON DELETE CASCADE,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'admin', 'cli', 'system', 'api_key')),
      actor_id text,
      action text NOT NULL,
      target text,
      ip text,
      user_agent text,
      details jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX audit_log_account_idx ON audit_log (account_id, id DESC)`);
    await q.query(`CREATE INDEX audit_log_created_idx ON audit_log (created_at)`);
    await q.query(`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only';
      END $$`);
    await q.query(`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log`);
    await q.query(`DROP FUNCTION audit_log_append_only()`);
  }
}
