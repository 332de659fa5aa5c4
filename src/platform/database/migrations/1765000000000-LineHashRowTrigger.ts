import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `listings_line_hash_update` drops a listing's line hash per row, no longer per statement by
 * joining the statement's old and new rows: a session plans that join once, for the sizes of the
 * first statement it fires on, and a connection whose first update was small (an expiry sweep
 * that found nothing) compared every row with every other from then on. A row trigger needs no
 * join: the same rows (anything but `rendered` changed) drop their hash, looked up by primary
 * key, and only a row that has a hash pays for the comparison.
 */
export class LineHashRowTrigger1765000000000 implements MigrationInterface {
  name = 'LineHashRowTrigger1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER listings_line_hash_update ON listings`);
    await q.query(`CREATE OR REPLACE FUNCTION listings_line_hash_update() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM listing_line_hashes WHERE listing_id = NEW.id) THEN
          IF (to_jsonb(NEW) - 'rendered') IS DISTINCT FROM (to_jsonb(OLD) - 'rendered') THEN
            DELETE FROM listing_line_hashes WHERE listing_id = NEW.id;
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
    // No WHEN clause: it would build both rows' JSON for every update, hash or not.
    await q.query(`CREATE TRIGGER listings_line_hash_update AFTER UPDATE ON listings
      FOR EACH ROW EXECUTE FUNCTION listings_line_hash_update()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER listings_line_hash_update ON listings`);
    await q.query(`CREATE OR REPLACE FUNCTION listings_line_hash_update() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM listing_line_hashes h USING new_rows n, old_rows o
        WHERE h.listing_id = n.id AND o.id = n.id
          AND (to_jsonb(n) - 'rendered') IS DISTINCT FROM (to_jsonb(o) - 'rendered');
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER listings_line_hash_update AFTER UPDATE ON listings
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION listings_line_hash_update()`);
  }
}
