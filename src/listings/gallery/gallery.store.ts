import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** An image as a gallery lists it: `order` is its position, 0 the primary image. */
export interface GalleryImage {
  id: string;
  url: string;
  order: number;
}

/**
 * The one owner of `listing_images`' writes (but for ListingsStore.insertCreated), always under the
 * caller's lock on the listing row, so positions stay 0..n-1 (a deferred unique constraint too).
 */
@Injectable()
export class GalleryStore {
  list(em: EntityManager, listingId: string): Promise<GalleryImage[]> {
    return em.query(
      'SELECT id, url, position AS "order" FROM listing_images WHERE listing_id = $1 ORDER BY position',
      [listingId],
    );
  }

  /** Inserts an image at `position`, moving those at and after it one place on. */
  async insertAt(
    em: EntityManager,
    listingId: string,
    image: { url: string; storageKey: string | null },
    position: number,
  ): Promise<GalleryImage> {
    await em.query(
      'UPDATE listing_images SET position = position + 1 WHERE listing_id = $1 AND position >= $2',
      [listingId, position],
    );
    const [inserted] = await em.query(
      `INSERT INTO listing_images (listing_id, url, storage_key, position) VALUES ($1, $2, $3, $4)
       RETURNING id, url, position AS "order"`,
      [listingId, image.url, image.storageKey, position],
    );
    return inserted;
  }

  /** Deletes the image at its position, closing the gap; returns its file's storage key, if any. */
  async delete(em: EntityManager, listingId: string, image: GalleryImage): Promise<string | null> {
    const [[row]] = await em.query(
      'DELETE FROM listing_images WHERE id = $1 AND listing_id = $2 RETURNING storage_key',
      [image.id, listingId],
    );
    await em.query(
      'UPDATE listing_images SET position = position - 1 WHERE listing_id = $1 AND position > $2',
      [listingId, image.order],
    );
    return row.storage_key;
  }

  /** Gives the images the positions of their place in `imageIds`, which names each exactly once. */
  async reorder(em: EntityManager, listingId: string, imageIds: string[]): Promise<void> {
    await em.query(
      `UPDATE listing_images i SET position = x.ord - 1
       FROM unnest($2::uuid[]) WITH ORDINALITY AS x(id, ord) WHERE i.id = x.id AND i.listing_id = $1`,
      [listingId, imageIds],
    );
  }

  /** Replaces the gallery; returns it and the storage keys of uploads no longer shown in it. */
  async replace(
    em: EntityManager,
    listingId: string,
    images: { url: string }[],
  ): Promise<{ gallery: GalleryImage[]; droppedKeys: string[] }> {
    const [previous]: [{ url: string; storage_key: string | null }[]] = await em.query(
      'DELETE FROM listing_images WHERE listing_id = $1 RETURNING url, storage_key',
      [listingId],
    );
    const keyOf = new Map(
      previous.filter((image) => image.storage_key).map((image) => [image.url, image.storage_key]),
    );
    const urls = images.map((image) => image.url);
    const droppedKeys = [...keyOf].filter(([url]) => !urls.includes(url)).map(([, key]) => key!);
    if (images.length === 0) return { gallery: [], droppedKeys };
    const gallery: GalleryImage[] = await em.query(
      `INSERT INTO listing_images (listing_id, url, storage_key, position)
       SELECT $1, url, key, position - 1
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(url, key, position)
       RETURNING id, url, position AS "order"`,
      [listingId, urls, urls.map((url) => keyOf.get(url) ?? null)],
    );
    return { gallery: gallery.sort((a, b) => a.order - b.order), droppedKeys };
  }
}
