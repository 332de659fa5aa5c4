import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A mirror import removes only listings that existed when it was accepted (its 202), no longer
 * those that existed when it had read its file: a listing created while the import waited or read
 * was removed though the feed had been made without it. `planned_snapshot` keeps its name (code of
 * the previous release, still running during an upgrade, reads and writes it) and takes its value
 * from a default at insert, whichever release inserts; planning keeps a value already there.
 * Unfinished imports accepted before this migration without one take the snapshot of now.
 */
export class MirrorSnapshotAtAcceptance1764900000000 implements MigrationInterface {
  name = 'MirrorSnapshotAtAcceptance1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE imports ALTER COLUMN planned_snapshot SET DEFAULT pg_current_snapshot()`,
    );
    await q.query(`UPDATE imports SET planned_snapshot = pg_current_snapshot()
      WHERE planned_snapshot IS NULL AND status IN ('queued', 'running', 'held')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE imports ALTER COLUMN planned_snapshot DROP DEFAULT`);
  }
}
