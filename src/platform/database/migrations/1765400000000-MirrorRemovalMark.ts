import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `listings.removed_by_import`: the mirror import that removed the listing, NULL for any other
 * removal (owner, administrator). Within IMPORT_RESTORE_WINDOW such a listing comes back, with its
 * id, when a feed line or a PUT names its externalId again; the index finds the latest one.
 */
export class MirrorRemovalMark1765400000000 implements MigrationInterface {
  name = 'MirrorRemovalMark1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listings ADD COLUMN removed_by_import uuid`);
    await q.query(`CREATE INDEX listings_restorable_idx
      ON listings (account_id, livemode, external_id, removed_at DESC)
      WHERE removed_by_import IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX listings_restorable_idx`);
    await q.query(`ALTER TABLE listings DROP COLUMN removed_by_import`);
  }
}
