import { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns `rendered` shows before `"status"`; the gallery is covered by `rendered = NULL`. */
const CONTENT = [
  'id',
  'external_id',
  'title',
  'description',
  'price',
  'currency',
  'condition',
  'category_slug',
  'location_lan',
  'location_kommun',
  'phone',
  'attributes',
];
const row = (name: string) => `(${CONTENT.map((column) => `${name}.${column}`).join(', ')})`;
const contentUnchanged = `NEW.rendered IS NOT NULL AND ${row('NEW')} IS NOT DISTINCT FROM ${row('OLD')}`;
/** Where the lifecycle part of `rendered` starts: no text before it can hold this unescaped. */
const STATUS_KEY = `',"status":"'`;

/**
 * An update that changes only a listing's lifecycle (an expiry, a sale, a renewal) rewrites the
 * tail of `rendered` from `"status"` on and keeps the rest, gallery included, without reading
 * listing_images: the full render cost an expiry batch of 5,000 about 180 ms of its 600.
 * Everything else still renders in full (listings_render of ImagePipeline, unchanged): an insert,
 * a change to any shown content column, and a gallery change (the image triggers set
 * `rendered = NULL`). The two update triggers' conditions are complementary; the tail is spelled
 * as ImagePipeline spells it, and a test compares both renders.
 */
export class RenderLifecycleOnly1765100000000 implements MigrationInterface {
  name = 'RenderLifecycleOnly1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION listings_render_lifecycle() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.rendered := left(NEW.rendered,
          -length(split_part(NEW.rendered, ${STATUS_KEY}, -1)) - length(${STATUS_KEY}))
  || ${STATUS_KEY} || NEW.status
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
    await q.query(`DROP TRIGGER listings_render ON listings`);
    await q.query(`CREATE TRIGGER listings_render BEFORE INSERT ON listings
      FOR EACH ROW EXECUTE FUNCTION listings_render()`);
    // BEFORE triggers of one event fire in name order: "lifecycle" runs before "update".
    await q.query(`CREATE TRIGGER listings_render_lifecycle BEFORE UPDATE ON listings
      FOR EACH ROW WHEN (${contentUnchanged}) EXECUTE FUNCTION listings_render_lifecycle()`);
    await q.query(`CREATE TRIGGER listings_render_update BEFORE UPDATE ON listings
      FOR EACH ROW WHEN (NOT (${contentUnchanged})) EXECUTE FUNCTION listings_render()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER listings_render_update ON listings`);
    await q.query(`DROP TRIGGER listings_render_lifecycle ON listings`);
    await q.query(`DROP FUNCTION listings_render_lifecycle()`);
    await q.query(`DROP TRIGGER listings_render ON listings`);
    await q.query(`CREATE TRIGGER listings_render BEFORE INSERT OR UPDATE ON listings
      FOR EACH ROW EXECUTE FUNCTION listings_render()`);
  }
}
