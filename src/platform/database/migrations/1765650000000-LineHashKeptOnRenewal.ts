import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every column a renewal writes, besides `rendered`'s lifecycle tail. */
const RENEWAL_COLUMNS = `'{rendered,status,expires_at,expired_at,updated_at}'::text[]`;

/**
 * A renewal keeps the listing's line hash: ACTIVE or EXPIRED before, ACTIVE after, valid longer,
 * and nothing else but `updated_at` changed. The line that matched the listing's content still
 * matches it, and whether the listing is due is read live (ImportsStore.linesByHash), so the hash
 * vouches for nothing it did not before. Dropping it made a renewing import's chunk delete each
 * renewed listing's hash and insert it again; it also lets one statement renew the listings and
 * store their hashes, which a row trigger firing at the statement's end would undo. Any other
 * change drops the hash as before (LineHashRowTrigger), an expiry or a sale included.
 */
export class LineHashKeptOnRenewal1765650000000 implements MigrationInterface {
  name = 'LineHashKeptOnRenewal1765650000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION listings_line_hash_update() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM listing_line_hashes WHERE listing_id = NEW.id) THEN
          IF NEW.status = 'ACTIVE' AND OLD.status IN ('ACTIVE', 'EXPIRED')
             AND NEW.expires_at > OLD.expires_at AND NEW.expired_at IS NULL THEN
            IF (to_jsonb(NEW) - ${RENEWAL_COLUMNS})
               IS NOT DISTINCT FROM (to_jsonb(OLD) - ${RENEWAL_COLUMNS}) THEN
              RETURN NULL;
            END IF;
          END IF;
          IF (to_jsonb(NEW) - 'rendered') IS DISTINCT FROM (to_jsonb(OLD) - 'rendered') THEN
            DELETE FROM listing_line_hashes WHERE listing_id = NEW.id;
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
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
  }
}
