import { MigrationInterface, QueryRunner } from 'typeorm';
import { galleryJsonSql, listingJsonSql } from '../../../listings/listing-json.sql';

/**
 * `listings.rendered`: each listing as GET /listings shows it, as JSON text (listingJsonSql), so
 * that a list page is a concatenation the API sends without parsing rows, mapping them or
 * serialising them again (see docs/performance.md).
 *
 * Triggers keep it current, so no write path can forget it:
 * - `listings_render`, before every insert and update of a listing, renders the row with its
 *   gallery. A new listing has no gallery yet: its images can only be inserted after it (the
 *   foreign key), which the next trigger covers.
 * - `listing_images_render_*`, after each statement that inserts, updates or deletes images,
 *   updates the listings whose gallery it changed, once per listing and statement, so the first
 *   trigger renders them again. A create without images inserts no image rows and pays nothing
 *   here (ListingsStore.insertCreated leaves the gallery out of its statement then).
 *
 * Existing rows are rendered here, with their galleries.
 */
export class RenderedListings1763940000000 implements MigrationInterface {
  name = 'RenderedListings1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listings ADD COLUMN rendered text`);
    await q.query(`CREATE FUNCTION listings_render() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        gallery text := '[]';
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          SELECT ${galleryJsonSql('i')} INTO gallery FROM listing_images i WHERE i.listing_id = NEW.id;
        END IF;
        NEW.rendered := ${listingJsonSql('NEW', 'gallery')};
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER listings_render BEFORE INSERT OR UPDATE ON listings
      FOR EACH ROW EXECUTE FUNCTION listings_render()`);
    // The update is only there to fire listings_render, which sets the value.
    const rerender = (table: string) =>
      `UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM ${table})`;
    await q.query(`CREATE FUNCTION listing_images_render() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') THEN ${rerender('new_images')}; END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN ${rerender('old_images')}; END IF;
        RETURN NULL;
      END $$`);
    for (const [op, referencing] of [
      ['insert', 'NEW TABLE AS new_images'],
      ['update', 'OLD TABLE AS old_images NEW TABLE AS new_images'],
      ['delete', 'OLD TABLE AS old_images'],
    ]) {
      await q.query(`CREATE TRIGGER listing_images_render_${op} AFTER ${op.toUpperCase()} ON listing_images
        REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION listing_images_render()`);
    }
    // Every existing row, with its gallery, through the same trigger.
    await q.query(`UPDATE listings SET rendered = NULL`);
    await q.query(`ALTER TABLE listings ALTER COLUMN rendered SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const op of ['insert', 'update', 'delete'])
      await q.query(`DROP TRIGGER listing_images_render_${op} ON listing_images`);
    await q.query(`DROP FUNCTION listing_images_render()`);
    await q.query(`DROP TRIGGER listings_render ON listings`);
    await q.query(`DROP FUNCTION listings_render()`);
    await q.query(`ALTER TABLE listings DROP COLUMN rendered`);
  }
}
