import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `api_keys.created_by_user_id`: the dashboard user who made the key; null for keys made by the
 * CLI or the admin API (shown as "staff") and when the user is gone.
 */
export class KeyCreatedBy1765810000000 implements MigrationInterface {
  name = 'KeyCreatedBy1765810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys
      ADD COLUMN created_by_user_id uuid REFERENCES users (id) ON DELETE SET NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN created_by_user_id`);
  }
}
