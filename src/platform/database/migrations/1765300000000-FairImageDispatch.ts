import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The image dispatcher claims a single request's images before those of bulk requests and
 * imports, and serves each priority's backlogs round-robin across accounts (docs/architecture.md,
 * "Image priority and fairness").
 *
 * - `priority` 0 (a single request) or 1 (a bulk request or an import), written by every insert
 *   path; existing rows and rows written by the previous release take the default, 1.
 * - `account_id`, the listing's account, written by every insert path. Only an image that is not
 *   ready can be pending again (a failed one, by a retry), so only those are filled here: no
 *   rewrite of the whole table. Rows the previous release inserts during an upgrade get theirs
 *   from `listing_images_owner`, after their statement (a listing inserted by the same statement
 *   is visible only then); it updates nothing when the insert named the account.
 * - `listing_images_fair_due_idx` (replacing `listing_images_due_idx`): the claim walks the
 *   accounts with pending images per priority (a loose index scan) and each account's oldest due
 *   images. `listing_images_in_flight_idx`: an account's images handed to the queue and not
 *   finished, counted per account so those with fewer in flight go first.
 */
export class FairImageDispatch1765300000000 implements MigrationInterface {
  name = 'FairImageDispatch1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listing_images
      ADD COLUMN priority smallint NOT NULL DEFAULT 1 CHECK (priority IN (0, 1)),
      ADD COLUMN account_id uuid`);
    await q.query(`UPDATE listing_images i SET account_id = l.account_id FROM listings l
      WHERE l.id = i.listing_id AND i.status <> 'ready'`);
    await q.query(`CREATE FUNCTION listing_images_owner() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE listing_images i SET account_id = l.account_id
        FROM new_images n JOIN listings l ON l.id = n.listing_id
        WHERE n.account_id IS NULL AND i.id = n.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER listing_images_owner AFTER INSERT ON listing_images
      REFERENCING NEW TABLE AS new_images FOR EACH STATEMENT EXECUTE FUNCTION listing_images_owner()`);
    await q.query(`DROP INDEX listing_images_due_idx`);
    await q.query(`CREATE INDEX listing_images_fair_due_idx
      ON listing_images (backfill, priority, account_id, next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX listing_images_in_flight_idx ON listing_images (account_id, queued_at)
      WHERE status = 'pending' AND queued_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX listing_images_in_flight_idx`);
    await q.query(`DROP INDEX listing_images_fair_due_idx`);
    await q.query(`CREATE INDEX listing_images_due_idx ON listing_images (backfill, next_attempt_at)
      WHERE status = 'pending'`);
    await q.query(`DROP TRIGGER listing_images_owner ON listing_images`);
    await q.query(`DROP FUNCTION listing_images_owner()`);
    await q.query(`ALTER TABLE listing_images DROP COLUMN priority, DROP COLUMN account_id`);
  }
}
