import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `storage_deletions`: the keys of image files to delete, written in the transaction that drops
 * the image rows naming them, so the intent commits (or rolls back) with the drop. A row goes once
 * its file is deleted or found held again; one a crash or a failed storage call leaves is taken
 * by the worker's sweep. `requested_at` is also moved on when a sweep claims the row: another
 * sweep takes it only a grace period later, and a key that keeps failing goes to the back.
 */
export class StorageDeletions1764400000000 implements MigrationInterface {
  name = 'StorageDeletions1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE storage_deletions (
      key text PRIMARY KEY,
      requested_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(
      `CREATE INDEX storage_deletions_requested_idx ON storage_deletions (requested_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE storage_deletions`);
  }
}
