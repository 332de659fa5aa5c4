import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The nightly sync's import columns: `renew` (the request's option), the tallies of the three
 * new outcomes, `planned_removals` (null until a mirror import has planned them), and a result's
 * `reason` (`SOLD` for a skipped line).
 */
export class NightlySyncImports1765500000000 implements MigrationInterface {
  name = 'NightlySyncImports1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE imports
      ADD COLUMN renew boolean NOT NULL DEFAULT false,
      ADD COLUMN renewed integer NOT NULL DEFAULT 0,
      ADD COLUMN restored integer NOT NULL DEFAULT 0,
      ADD COLUMN skipped integer NOT NULL DEFAULT 0,
      ADD COLUMN planned_removals integer`);
    await q.query(`ALTER TABLE import_results DROP CONSTRAINT import_results_outcome_check`);
    await q.query(`ALTER TABLE import_results ADD CONSTRAINT import_results_outcome_check
      CHECK (outcome IN ('created', 'updated', 'unchanged', 'failed', 'removed', 'renewed',
        'restored', 'skipped'))`);
    await q.query(`ALTER TABLE import_results ADD COLUMN reason text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE import_results DROP COLUMN reason`);
    await q.query(`DELETE FROM import_results WHERE outcome IN ('renewed', 'restored', 'skipped')`);
    await q.query(`ALTER TABLE import_results DROP CONSTRAINT import_results_outcome_check`);
    await q.query(`ALTER TABLE import_results ADD CONSTRAINT import_results_outcome_check
      CHECK (outcome IN ('created', 'updated', 'unchanged', 'failed', 'removed'))`);
    await q.query(`ALTER TABLE imports DROP COLUMN planned_removals, DROP COLUMN skipped,
      DROP COLUMN restored, DROP COLUMN renewed, DROP COLUMN renew`);
  }
}
