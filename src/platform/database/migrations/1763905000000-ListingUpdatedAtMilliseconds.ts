import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `updatedAt` is an incremental-sync cursor: integrators send back the value they saw, with the
 * last id, and get the rows after `(updatedAt, id)`. The API shows milliseconds, so the column
 * keeps exactly that: a row stored at .123456 would otherwise sort after the cursor .123 whatever
 * its id, and a burst sharing one updatedAt would page with repeats. Rewrites the table and its
 * indexes once (migrations run without the statement time-out: see prepareDatabase).
 */
export class ListingUpdatedAtMilliseconds1763905000000 implements MigrationInterface {
  name = 'ListingUpdatedAtMilliseconds1763905000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listings ALTER COLUMN updated_at TYPE timestamptz(3)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listings ALTER COLUMN updated_at TYPE timestamptz`);
  }
}
