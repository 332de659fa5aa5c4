import { isDeepStrictEqual } from 'node:util';
import { contentOf, ListingContent, ListingRow } from './listing-row';

/** What an edit changes in a listing, decided before anything is written. */
export interface ListingChanges {
  /** the content fields whose new value differs from the stored one, and only those */
  changes: Partial<ListingContent>;
  /** the gallery to write: the new images when their urls or order differ, else undefined */
  gallery: { url: string }[] | undefined;
  /** the changedFields of the listing.updated event: the changed content fields, then `images` */
  changedFields: string[];
}

/**
 * Compares an edit with the stored listing. Values compare deeply (attributes included); a
 * gallery compares by its urls in order, and `images` undefined means the edit keeps it. An
 * empty `changedFields` means there is nothing to write.
 */
export function listingChanges(
  current: ListingRow,
  next: ListingContent,
  images: { url: string }[] | undefined,
): ListingChanges {
  const before = contentOf(current);
  const changes = Object.fromEntries(
    (Object.keys(next) as (keyof ListingContent)[])
      .filter((field) => !isDeepStrictEqual(next[field], before[field]))
      .map((field) => [field, next[field]]),
  ) as Partial<ListingContent>;
  const imagesChanged =
    images !== undefined &&
    !isDeepStrictEqual(
      images.map((i) => i.url),
      current.images.map((i) => i.url),
    );
  const changedFields = [...Object.keys(changes), ...(imagesChanged ? ['images'] : [])];
  return { changes, gallery: imagesChanged ? images : undefined, changedFields };
}
