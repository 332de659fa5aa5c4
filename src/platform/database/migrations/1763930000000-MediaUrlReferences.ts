import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A listing may show another listing's uploaded image by its /media URL (a relisted item, a copied
 * gallery); such a row has the URL but no storage key. Before deleting a dropped upload's file,
 * the clean-up asks whether any row still shows it by URL. This partial index answers that and
 * holds only those rare rows, so image inserts barely pay for it.
 */
export class MediaUrlReferences1763930000000 implements MigrationInterface {
  name = 'MediaUrlReferences1763930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX listing_images_media_url_idx ON listing_images (url)
      WHERE storage_key IS NULL AND url LIKE '%/media/%'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX listing_images_media_url_idx`);
  }
}
