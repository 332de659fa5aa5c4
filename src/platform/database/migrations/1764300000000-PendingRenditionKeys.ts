import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `listing_images.pending_rendition_keys`: the keys of the rendition files a processing run is
 * about to write, recorded before it writes them and cleared when the run's result is recorded,
 * so a run killed in between leaves files the database still names (deleted by the image's next
 * finished run, or with the image). Not a shown column: listing_images_render() compares only
 * those, so recording keys renders no listing again. Nullable without a default: no rewrite.
 */
export class PendingRenditionKeys1764300000000 implements MigrationInterface {
  name = 'PendingRenditionKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listing_images ADD COLUMN pending_rendition_keys text[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE listing_images DROP COLUMN pending_rendition_keys`);
  }
}
