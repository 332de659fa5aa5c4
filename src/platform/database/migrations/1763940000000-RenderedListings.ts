import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `listings.rendered`: each listing as GET /listings shows it, as JSON text, so that a list page
 * is a concatenation the API sends without parsing rows, mapping them or serialising them again
 * (see docs/performance.md).
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
 *
 * The rendering is spelled out here rather than imported from listingJsonSql and galleryJsonSql,
 * so that later changes to the live code cannot change what this migration does.
 */
export class RenderedListings1763940000000 implements MigrationInterface {
  name = 'RenderedListings1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listings ADD COLUMN rendered text`);
    // The listing as the API shows it; the gallery is read on update only (a new one has none).
    await q.query(`CREATE FUNCTION listings_render() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        gallery text := '[]';
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          SELECT COALESCE('[' || string_agg('{"id":"' || i.id || '","url":' || to_json(i.url)::text
    || ',"order":' || i.position || '}', ',' ORDER BY i.position) || ']', '[]') INTO gallery FROM listing_images i WHERE i.listing_id = NEW.id;
        END IF;
        NEW.rendered := '{"id":"' || NEW.id
  || '","externalId":' || COALESCE(to_json(NEW.external_id)::text, 'null')
  || ',"title":' || to_json(NEW.title)::text
  || ',"description":' || to_json(NEW.description)::text
  || ',"price":' || NEW.price
  || ',"currency":' || to_json(NEW.currency)::text
  || ',"condition":"' || NEW.condition
  || '","categorySlug":' || to_json(NEW.category_slug)::text
  || ',"locationLan":' || to_json(NEW.location_lan)::text
  || ',"locationKommun":' || to_json(NEW.location_kommun)::text
  || ',"phone":' || COALESCE(to_json(NEW.phone)::text, 'null')
  || ',"attributes":' || NEW.attributes::text
  || ',"images":' || gallery
  || ',"status":"' || NEW.status
  || '","livemode":' || NEW.livemode::text
  || ',"createdAt":"' || api_timestamp(NEW.created_at)
  || '","updatedAt":"' || api_timestamp(NEW.updated_at)
  || '","publishedAt":' || COALESCE('"' || api_timestamp(NEW.published_at) || '"', 'null')
  || ',"expiresAt":' || COALESCE('"' || api_timestamp(NEW.expires_at) || '"', 'null')
  || ',"soldAt":' || COALESCE('"' || api_timestamp(NEW.sold_at) || '"', 'null')
  || ',"removedAt":' || COALESCE('"' || api_timestamp(NEW.removed_at) || '"', 'null')
  || '}';
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER listings_render BEFORE INSERT OR UPDATE ON listings
      FOR EACH ROW EXECUTE FUNCTION listings_render()`);
    // The updates are only there to fire listings_render, which sets the value.
    await q.query(`CREATE FUNCTION listing_images_render() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') THEN UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM new_images); END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM old_images); END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER listing_images_render_insert AFTER INSERT ON listing_images
        REFERENCING NEW TABLE AS new_images FOR EACH STATEMENT EXECUTE FUNCTION listing_images_render()`);
    await q.query(`CREATE TRIGGER listing_images_render_update AFTER UPDATE ON listing_images
        REFERENCING OLD TABLE AS old_images NEW TABLE AS new_images FOR EACH STATEMENT EXECUTE FUNCTION listing_images_render()`);
    await q.query(`CREATE TRIGGER listing_images_render_delete AFTER DELETE ON listing_images
        REFERENCING OLD TABLE AS old_images FOR EACH STATEMENT EXECUTE FUNCTION listing_images_render()`);
    // Every existing row, with its gallery, through the same trigger.
    await q.query(`UPDATE listings SET rendered = NULL`);
    await q.query(`ALTER TABLE listings ALTER COLUMN rendered SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER listing_images_render_insert ON listing_images`);
    await q.query(`DROP TRIGGER listing_images_render_update ON listing_images`);
    await q.query(`DROP TRIGGER listing_images_render_delete ON listing_images`);
    await q.query(`DROP FUNCTION listing_images_render()`);
    await q.query(`DROP TRIGGER listings_render ON listings`);
    await q.query(`DROP FUNCTION listings_render()`);
    await q.query(`ALTER TABLE listings DROP COLUMN rendered`);
  }
}
