import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A mirror import removes only listings that existed when it was planned. `created_at` cannot say
 * so: it is when the creating transaction began, so a create still in flight at planning looked
 * older than the plan and could be removed after it answered 201. Each listing now records the
 * transaction that created it, and each import the snapshot taken when it was planned; a listing
 * existed then if its creator is visible in that snapshot. Listings older than this migration keep
 * `created_xid` null: they existed before any import planned from now on. An import already
 * planned takes the snapshot of now: it sees every listing that `created_at` counted, and also
 * those created between its planning and this migration (only a mirror running across the
 * upgrade can meet them).
 */
export class MirrorPlanningSnapshot1764700000000 implements MigrationInterface {
  name = 'MirrorPlanningSnapshot1764700000000';

  async up(q: QueryRunner): Promise<void> {
    // Added without a default, then given one: existing rows are not rewritten.
    await q.query(`ALTER TABLE listings ADD COLUMN created_xid xid8`);
    await q.query(`ALTER TABLE listings ALTER COLUMN created_xid SET DEFAULT pg_current_xact_id()`);
    await q.query(`ALTER TABLE imports ADD COLUMN planned_snapshot pg_snapshot`);
    await q.query(`UPDATE imports SET planned_snapshot = pg_current_snapshot()
      WHERE planned_at IS NOT NULL`);
    await q.query(`ALTER TABLE imports DROP COLUMN planned_at`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE imports ADD COLUMN planned_at timestamptz`);
    await q.query(`UPDATE imports SET planned_at = now() WHERE planned_snapshot IS NOT NULL`);
    await q.query(`ALTER TABLE imports DROP COLUMN planned_snapshot`);
    await q.query(`ALTER TABLE listings DROP COLUMN created_xid`);
  }
}
