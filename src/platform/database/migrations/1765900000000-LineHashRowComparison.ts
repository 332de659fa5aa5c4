import { MigrationInterface, QueryRunner } from 'typeorm';
import { LineHashKeptOnRenewal1765650000000 } from './1765650000000-LineHashKeptOnRenewal';

/**
 * `listings_line_hash_update` compares the old row, with the columns a change may touch copied
 * from the new one, to the new row, instead of both rows as `jsonb`: the same rule
 * (LineHashKeptOnRenewal) for every column, future ones included, at half the cost per row
 * (two `to_jsonb` of a whole row, `rendered` included, were most of a renewal's trigger time).
 */
export class LineHashRowComparison1765900000000 implements MigrationInterface {
  name = 'LineHashRowComparison1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION listings_line_hash_update() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        kept listings;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM listing_line_hashes WHERE listing_id = NEW.id) THEN
          RETURN NULL;
        END IF;
        -- The row as it may be while its line still matches: rendered anew, or renewed.
        kept := OLD;
        kept.rendered := NEW.rendered;
        IF NEW.status = 'ACTIVE' AND OLD.status IN ('ACTIVE', 'EXPIRED')
           AND NEW.expires_at > OLD.expires_at AND NEW.expired_at IS NULL THEN
          kept.status := NEW.status;
          kept.expires_at := NEW.expires_at;
          kept.expired_at := NEW.expired_at;
          kept.updated_at := NEW.updated_at;
        END IF;
        IF NEW IS DISTINCT FROM kept THEN
          DELETE FROM listing_line_hashes WHERE listing_id = NEW.id;
        END IF;
        RETURN NULL;
      END $$`);
  }

  /** Back to the function as LineHashKeptOnRenewal wrote it. */
  async down(q: QueryRunner): Promise<void> {
    await new LineHashKeptOnRenewal1765650000000().up(q);
  }
}
