import { MigrationInterface, QueryRunner } from 'typeorm';

/** One image row `i` as JSON text, in the API's key order. */
const IMAGE_RECORD = `'{"id":"' || i.id || '","url":' || to_json(i.url)::text
    || ',"order":' || i.position
    || ',"status":"' || i.status
    || '","width":' || COALESCE(i.width::text, 'null')
    || ',"height":' || COALESCE(i.height::text, 'null')
    || ',"variants":' || COALESCE('{"thumb":' || to_json(i.variants->>'thumb')::text
      || ',"medium":' || to_json(i.variants->>'medium')::text
      || ',"large":' || to_json(i.variants->>'large')::text || '}', 'null')
    || ',"error":' || COALESCE('{"reason":' || to_json(i.error_reason)::text
      || ',"message":' || to_json(i.error_message)::text || '}', 'null')
    || '}'`;

/** listings_render of RenderedListings with `image` as each image's JSON text. */
const renderFunction = (image: string) => `CREATE OR REPLACE FUNCTION listings_render()
  RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        gallery text := '[]';
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          SELECT COALESCE('[' || string_agg(${image}, ',' ORDER BY i.position) || ']', '[]')
            INTO gallery FROM listing_images i WHERE i.listing_id = NEW.id;
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
      END $$`;

/**
 * The image pipeline (docs/operations.md, "Image processing"): each image row carries its
 * processing state, and the database is the queue's truth.
 *
 * - `status` pending|ready|failed; `width`, `height`, `variants` ({thumb, medium, large} as
 *   absolute URLs, as upload URLs are stored) once ready; `rendition_keys` the files to delete with
 *   the row; `error_reason`, `error_message` once failed.
 * - `attempts`, `next_attempt_at` (a retry waits for it), `queued_at` (when the dispatcher last
 *   handed the image to Bull: a job older than the lease is taken for lost), `backfill` (images
 *   stored before this release, processed behind fresh ones). Existing rows become pending
 *   backfill; new rows get the column defaults, so no insert path changes.
 *
 * The render triggers are replaced: the stored JSON shows the whole image record, and an update
 * that changes only bookkeeping columns (a dispatcher's claim) renders no listing again. A status
 * change re-renders the listing but never touches `updated_at` (listings_render sets `rendered`
 * only). Existing rows are rendered again. As in RenderedListings, the rendering is spelled out
 * here so later code changes cannot change this migration.
 */
export class ImagePipeline1764100000000 implements MigrationInterface {
  name = 'ImagePipeline1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listing_images
      ADD COLUMN status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
      ADD COLUMN width integer,
      ADD COLUMN height integer,
      ADD COLUMN variants jsonb,
      ADD COLUMN rendition_keys text[],
      ADD COLUMN error_reason text,
      ADD COLUMN error_message text,
      ADD COLUMN attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN queued_at timestamptz,
      ADD COLUMN backfill boolean NOT NULL DEFAULT true`);
    // Every row stored so far is backfill; every later one is not (no rewrite of the table).
    await q.query(`ALTER TABLE listing_images ALTER COLUMN backfill SET DEFAULT false`);
    // The dispatcher: due pending images, fresh before backfill, oldest due first.
    await q.query(`CREATE INDEX listing_images_due_idx ON listing_images (backfill, next_attempt_at)
      WHERE status = 'pending'`);
    // GET /listings?imageStatus=: the listings holding an image in that status.
    await q.query(`CREATE INDEX listing_images_unfinished_idx ON listing_images (status, listing_id)
      WHERE status <> 'ready'`);
    // Files of a dropped image: is another row still showing one of them?
    await q.query(`CREATE INDEX listing_images_rendition_keys_idx ON listing_images
      USING gin (rendition_keys) WHERE rendition_keys IS NOT NULL`);

    await q.query(renderFunction(IMAGE_RECORD));
    // An update renders only the listings where a shown column changed.
    await q.query(`CREATE OR REPLACE FUNCTION listing_images_render() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM new_images); END IF;
        IF TG_OP = 'DELETE' THEN UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM old_images); END IF;
        IF TG_OP = 'UPDATE' THEN
          UPDATE listings l SET rendered = NULL WHERE l.id IN (
            SELECT n.listing_id FROM new_images n JOIN old_images o USING (id)
            WHERE (n.url, n.position, n.status, n.width, n.height, n.variants, n.error_reason, n.error_message)
              IS DISTINCT FROM (o.url, o.position, o.status, o.width, o.height, o.variants, o.error_reason, o.error_message)
);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`UPDATE listings SET rendered = NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION listing_images_render() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') THEN UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM new_images); END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN UPDATE listings l SET rendered = NULL WHERE l.id IN (SELECT listing_id FROM old_images); END IF;
        RETURN NULL;
      END $$`);
    await q.query(`DROP INDEX listing_images_rendition_keys_idx`);
    await q.query(`DROP INDEX listing_images_unfinished_idx`);
    await q.query(`DROP INDEX listing_images_due_idx`);
    await q.query(`ALTER TABLE listing_images
      DROP COLUMN status, DROP COLUMN width, DROP COLUMN height, DROP COLUMN variants,
      DROP COLUMN rendition_keys, DROP COLUMN error_reason, DROP COLUMN error_message,
      DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN queued_at, DROP COLUMN backfill`);
    await q.query(
      renderFunction(`'{"id":"' || i.id || '","url":' || to_json(i.url)::text
    || ',"order":' || i.position || '}'`),
    );
    await q.query(`UPDATE listings SET rendered = NULL`);
  }
}
