import type { OwnerScope } from '../auth/scope';
import type { ImagePriority } from './gallery/image-priority';
import type { ListingStatus } from './listing.constants';
import type { ListingContent, ListingRow } from './listing-row';
import { IMAGE_COLUMNS, imageJsonSql } from './listing-json.sql';

/** A listing to insert: its content, owner, state and gallery. */
export interface NewListing extends ListingContent {
  scope: OwnerScope;
  status: ListingStatus;
  /** published at its creation, expiring this long after it; null: not published (a draft) */
  validityMs: number | null;
  images: { url: string }[];
}

/** A new listing with the id it is inserted under (made before the insert, not by RETURNING). */
export type IdentifiedListing = NewListing & { id: string };

export interface GalleryRow {
  listingId: string;
  accountId: string;
  url: string;
  /** the image's index in its listing's `images`, from 0 */
  position: number;
}

/** One gallery row per image of every listing, positioned in the order its images were given. */
export function galleryRows(listings: IdentifiedListing[]): GalleryRow[] {
  return listings.flatMap((listing) =>
    listing.images.map((image, position) => ({
      listingId: listing.id,
      accountId: listing.scope.accountId,
      url: image.url,
      position,
    })),
  );
}

/**
 * The statement and parameters of ListingsStore.insertCreated: the listings (as one JSON
 * recordset, `$1`), their gallery (`$2`-`$5`, unnest arrays, and `$6`, the images' priority) and
 * their listing.created events; `returning` is the listing columns the statement returns. Without
 * images the gallery insert is left out: even inserting no rows, it would fire the statement
 * trigger that renders listings again (see the RenderedListings migration).
 */
export function insertCreatedQuery(
  listings: IdentifiedListing[],
  returning: string,
  priority: ImagePriority,
): { sql: string; params: unknown[] } {
  const images = galleryRows(listings);
  const withGallery = images.length > 0;
  const gallery = withGallery
    ? `gallery AS (
           INSERT INTO listing_images (listing_id, url, position, account_id, priority)
           SELECT *, $6::smallint FROM unnest($2::uuid[], $3::text[], $4::smallint[], $5::uuid[])
           RETURNING listing_id, ${IMAGE_COLUMNS}),`
    : '';
  const galleryJson = withGallery
    ? `COALESCE((
           SELECT json_agg(${imageJsonSql('g')} ORDER BY g.position)
           FROM gallery g WHERE g.listing_id = new.id), '[]')`
    : `'[]'::json`;
  // One instant, to the millisecond the API shows, for createdAt, updatedAt and publishedAt.
  const sql = `WITH stamp AS (SELECT date_trunc('milliseconds', now()) AS at),
       new AS (
         INSERT INTO listings (id, account_id, livemode, external_id, title, description, price, condition,
           category_slug, location_lan, location_kommun, phone, attributes, status, created_at, updated_at,
           published_at, expires_at)
         SELECT x.id, x."accountId", x.livemode, x."externalId", x.title, x.description, x.price, x.condition,
           x."categorySlug", x."locationLan", x."locationKommun", x.phone, x.attributes, x.status, stamp.at, stamp.at,
           CASE WHEN x."validityMs" IS NOT NULL THEN stamp.at END,
           stamp.at + x."validityMs" * interval '1 millisecond'
         FROM stamp, jsonb_to_recordset($1::jsonb) AS x(id uuid, "accountId" uuid, livemode boolean, "externalId" text,
           title text, description text, price integer, condition text, "categorySlug" text, "locationLan" text,
           "locationKommun" text, phone text, attributes jsonb, status text, "validityMs" bigint)
         RETURNING ${returning}),
       ${gallery}
       events AS (
         INSERT INTO outbox_events (account_id, event, data)
         SELECT account_id, 'listing.created', jsonb_build_object('id', id, 'externalId', external_id,
           'livemode', livemode, 'status', status, 'updatedAt', api_timestamp(updated_at))
         FROM new)
       SELECT new.*, ${galleryJson} AS images
       FROM new`;
  const params: unknown[] = [listingsRecordset(listings)];
  if (withGallery) {
    params.push(
      images.map((i) => i.listingId),
      images.map((i) => i.url),
      images.map((i) => i.position),
      images.map((i) => i.accountId),
      priority,
    );
  }
  return { sql, params };
}

/** The `$1` JSON: each listing's columns, its owner taken from its scope, its images left out. */
export function listingsRecordset(listings: IdentifiedListing[]): string {
  return JSON.stringify(
    listings.map(({ scope, images: _images, ...listing }) => ({
      ...listing,
      accountId: scope.accountId,
      livemode: scope.livemode,
    })),
  );
}

/** The returned rows in the order the listings were given, whatever order RETURNING used. */
export function inInputOrder(listings: { id: string }[], rows: ListingRow[]): ListingRow[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return listings.map((listing) => byId.get(listing.id)!);
}
