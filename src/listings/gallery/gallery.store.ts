import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ImageResponse } from '../dto/listing.response';
import { IMAGE_COLUMNS, imageJsonSql } from '../listing-json.sql';
import type { ImagePriority } from './image-priority';

/** An image as a gallery lists it: `order` is its position, 0 the primary image. */
export type GalleryImage = ImageResponse;

/** One image as the API shows it, from a row aliased `i`. */
const IMAGE = `${imageJsonSql('i')} AS image`;

/** A new image row's account (the dispatcher serves accounts in turn): its listing's, `$1`. */
const OWNER = '(SELECT account_id FROM listings WHERE id = $1)';

/**
 * The one owner of `listing_images`' writes (but for ListingsStore.insertCreated), always under the
 * caller's lock on the listing row, so positions stay 0..n-1 (a deferred unique constraint too).
 */
@Injectable()
export class GalleryStore {
  async list(em: EntityManager, listingId: string): Promise<GalleryImage[]> {
    const rows: { image: GalleryImage }[] = await em.query(
      `SELECT ${IMAGE} FROM listing_images i WHERE listing_id = $1 ORDER BY position`,
      [listingId],
    );
    return rows.map((row) => row.image);
  }

  /** Inserts an image at `position`, moving those at and after it one place on. */
  async insertAt(
    em: EntityManager,
    listingId: string,
    image: { url: string; storageKey: string | null },
    position: number,
    priority: ImagePriority,
  ): Promise<GalleryImage> {
    await em.query(
      'UPDATE listing_images SET position = position + 1 WHERE listing_id = $1 AND position >= $2',
      [listingId, position],
    );
    const [inserted]: { image: GalleryImage }[] = await em.query(
      `WITH i AS (
         INSERT INTO listing_images (listing_id, url, storage_key, position, account_id, priority)
         VALUES ($1, $2, $3, $4, ${OWNER}, $5)
         RETURNING ${IMAGE_COLUMNS})
       SELECT ${IMAGE} FROM i`,
      [listingId, image.url, image.storageKey, position, priority],
    );
    return inserted.image;
  }

  /**
   * Deletes the image at its position, closing the gap; returns the keys of its files (the upload,
   * if any, its renditions and those a processing run named but never recorded as its result).
   */
  async delete(em: EntityManager, listingId: string, image: GalleryImage): Promise<string[]> {
    const [[row]]: [{ keys: string[] }[]] = await em.query(
      `DELETE FROM listing_images WHERE id = $1 AND listing_id = $2
       RETURNING array_remove(storage_key || COALESCE(rendition_keys, '{}')
         || COALESCE(pending_rendition_keys, '{}'), NULL) AS keys`,
      [image.id, listingId],
    );
    await em.query(
      'UPDATE listing_images SET position = position - 1 WHERE listing_id = $1 AND position > $2',
      [listingId, image.order],
    );
    return row.keys;
  }

  /** Gives the images the positions of their place in `imageIds`, which names each exactly once. */
  async reorder(em: EntityManager, listingId: string, imageIds: string[]): Promise<void> {
    await em.query(
      `UPDATE listing_images i SET position = x.ord - 1
       FROM unnest($2::uuid[]) WITH ORDINALITY AS x(id, ord) WHERE i.id = x.id AND i.listing_id = $1`,
      [listingId, imageIds],
    );
  }

  /**
   * Replaces the gallery; returns it and the storage keys of files no longer shown in it (uploads
   * and the renditions, pending ones too, of dropped rows).
   *
   * An image whose URL stays keeps its row (id, storage key, every other column): only its
   * position changes. A URL listed twice pairs its k-th place in the new list with its k-th row
   * in the old gallery (by position), so the first place keeps the old row and a further place is
   * a new row; rows left unpaired are deleted, places left unpaired are inserted (with the key of
   * an old row of that URL, as that row's file is the one shown). A kept row keeps its processing
   * state and renditions, so nothing is fetched again; an inserted one starts pending.
   *
   * One statement, on the hot paths of PUT, bulk and imports: each listing_images_render_*
   * trigger re-renders the listing after its statement, so the delete, the moves and the inserts
   * share one (each fires once, after all three; the moves touch only rows whose position
   * changes, so a trigger with nothing to do updates no listing). The deferred unique
   * (listing_id, position) allows the renumbering inside it.
   */
  async replace(
    em: EntityManager,
    listingId: string,
    images: { url: string }[],
    priority: ImagePriority,
  ): Promise<{ gallery: GalleryImage[]; droppedKeys: string[] }> {
    const [result]: { gallery: GalleryImage[]; droppedKeys: string[] }[] = await em.query(
      `WITH wanted AS (
         SELECT u.url, (u.ord - 1)::int AS position,
                row_number() OVER (PARTITION BY u.url ORDER BY u.ord) AS nth
         FROM unnest($2::text[]) WITH ORDINALITY AS u(url, ord)
       ), held AS (
         SELECT id, url, storage_key, position::int AS position,
                row_number() OVER (PARTITION BY url ORDER BY position) AS nth
         FROM listing_images WHERE listing_id = $1
       ), plan AS (
         SELECT w.url, w.position, h.id, h.position AS was
         FROM wanted w LEFT JOIN held h USING (url, nth)
       ), dropped AS (
         DELETE FROM listing_images i USING held h
         WHERE i.id = h.id AND NOT EXISTS (SELECT FROM plan p WHERE p.id = h.id)
         RETURNING i.url, i.storage_key, i.rendition_keys, i.pending_rendition_keys
       ), moved AS (
         UPDATE listing_images i SET position = p.position
         FROM plan p WHERE i.id = p.id AND p.position <> p.was
       ), added AS (
         INSERT INTO listing_images (listing_id, url, storage_key, position, account_id, priority)
         SELECT $1, p.url, (SELECT max(h.storage_key) FROM held h WHERE h.url = p.url), p.position,
                ${OWNER}, $3
         FROM plan p WHERE p.id IS NULL
         RETURNING ${IMAGE_COLUMNS}
       ), shown AS (
         -- The columns of IMAGE_COLUMNS, in its order (a union matches them by place).
         SELECT i.id, i.url, p.position, i.status, i.width, i.height, i.variants, i.error_reason,
                i.error_message
         FROM plan p JOIN listing_images i ON i.id = p.id
         UNION ALL
         SELECT ${IMAGE_COLUMNS} FROM added
       )
       SELECT
         (SELECT COALESCE(json_agg(${imageJsonSql('i')} ORDER BY i.position), '[]')
          FROM shown i) AS gallery,
         (SELECT COALESCE(array_agg(DISTINCT k.key), '{}') FROM (
            SELECT d.storage_key AS key FROM dropped d
            WHERE d.storage_key IS NOT NULL AND d.url <> ALL ($2::text[])
            UNION ALL
            SELECT unnest(d.rendition_keys || d.pending_rendition_keys) FROM dropped d) k)
          AS "droppedKeys"`,
      [listingId, images.map((image) => image.url), priority],
    );
    return result;
  }
}
