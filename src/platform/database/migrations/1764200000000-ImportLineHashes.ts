import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `listing_line_hashes`: the hash of the import line that last wrote a listing or was found to
 * match it, so that the same line imported again is known unchanged without being validated and
 * compared (see
 * ImportsStore.linesByHash). The listing's owner, mode and externalId are copied so that the
 * lookup reads this table alone; they cannot go stale, as any change to them drops the row. A hash stands only while nothing else has written the listing or
 * its gallery; these triggers drop it on any such write:
 * - `listings_line_hash_update`, after each statement updating listings, for every row where
 *   anything but `rendered` changed (a re-render alone, as the gallery triggers do, keeps it);
 * - `listing_images_line_hash_*`, after each statement inserting or deleting images, or changing
 *   an image's url or position, for the listings concerned;
 * - a deleted listing takes its hash with it (the foreign key).
 * An import writes its hashes after the chunk's listing and gallery statements, in the same
 * transaction, so the triggers those statements fire never drop the hash it is about to store.
 */
export class ImportLineHashes1764200000000 implements MigrationInterface {
  name = 'ImportLineHashes1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE listing_line_hashes (
        listing_id uuid PRIMARY KEY REFERENCES listings(id) ON DELETE CASCADE,
        account_id uuid NOT NULL,
        livemode boolean NOT NULL,
        external_id text NOT NULL,
        hash bytea NOT NULL
      )`);
    // The import's lookup: one probe per line, whatever the planner's statistics of listings say.
    await q.query(`CREATE UNIQUE INDEX listing_line_hashes_external_id_uq
      ON listing_line_hashes (account_id, livemode, external_id)`);
    await q.query(`CREATE FUNCTION listings_line_hash_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM listing_line_hashes h USING new_rows n, old_rows o
        WHERE h.listing_id = n.id AND o.id = n.id
          AND (to_jsonb(n) - 'rendered') IS DISTINCT FROM (to_jsonb(o) - 'rendered');
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER listings_line_hash_update AFTER UPDATE ON listings
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION listings_line_hash_update()`);
    await q.query(`CREATE FUNCTION listing_images_line_hash() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          DELETE FROM listing_line_hashes h WHERE h.listing_id IN (SELECT listing_id FROM new_images);
        ELSIF TG_OP = 'DELETE' THEN
          DELETE FROM listing_line_hashes h WHERE h.listing_id IN (SELECT listing_id FROM old_images);
        ELSE
          DELETE FROM listing_line_hashes h WHERE h.listing_id IN (
            SELECT o.listing_id FROM old_images o JOIN new_images n ON n.id = o.id
            WHERE (n.listing_id, n.url, n.position) IS DISTINCT FROM (o.listing_id, o.url, o.position)
            UNION ALL
            SELECT n.listing_id FROM old_images o JOIN new_images n ON n.id = o.id
            WHERE n.listing_id IS DISTINCT FROM o.listing_id);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER listing_images_line_hash_insert AFTER INSERT ON listing_images
      REFERENCING NEW TABLE AS new_images FOR EACH STATEMENT EXECUTE FUNCTION listing_images_line_hash()`);
    await q.query(`CREATE TRIGGER listing_images_line_hash_update AFTER UPDATE ON listing_images
      REFERENCING OLD TABLE AS old_images NEW TABLE AS new_images
      FOR EACH STATEMENT EXECUTE FUNCTION listing_images_line_hash()`);
    await q.query(`CREATE TRIGGER listing_images_line_hash_delete AFTER DELETE ON listing_images
      REFERENCING OLD TABLE AS old_images FOR EACH STATEMENT EXECUTE FUNCTION listing_images_line_hash()`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const op of ['insert', 'update', 'delete'])
      await q.query(`DROP TRIGGER listing_images_line_hash_${op} ON listing_images`);
    await q.query(`DROP FUNCTION listing_images_line_hash()`);
    await q.query(`DROP TRIGGER listings_line_hash_update ON listings`);
    await q.query(`DROP FUNCTION listings_line_hash_update()`);
    await q.query(`DROP TABLE listing_line_hashes`);
  }
}
