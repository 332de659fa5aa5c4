import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A mirror import removes only listings that existed when it was accepted (its 202), no longer
 * those that existed when it had read its file: a listing created while the import waited or read
 * was removed though the feed had been made without it. The snapshot is now taken by the insert.
 * Unfinished imports accepted before this migration take the snapshot of now (only a mirror
 * accepted across the upgrade can meet a listing created in between).
 */
export class MirrorAcceptedSnapshot1764900000000 implements MigrationInterface {
  name = 'MirrorAcceptedSnapshot1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE imports RENAME COLUMN planned_snapshot TO accepted_snapshot`);
    await q.query(`UPDATE imports SET accepted_snapshot = pg_current_snapshot()
      WHERE accepted_snapshot IS NULL AND status IN ('queued', 'running', 'held')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE imports RENAME COLUMN accepted_snapshot TO planned_snapshot`);
  }
}
