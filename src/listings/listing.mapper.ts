import type { ListingResponse } from './dto/listing.response';
import type { ListingRow } from './listing-row';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Must stay equal to listingJsonSql (list pages), key order included: a change needs the same
 * change there and a re-render migration (listings-rendered e2e spec checks the two).
 */
export function toListingResponse(row: ListingRow): ListingResponse {
  return {
    id: row.id,
    externalId: row.external_id,
    title: row.title,
    description: row.description,
    price: row.price,
    currency: row.currency,
    condition: row.condition,
    categorySlug: row.category_slug,
    locationLan: row.location_lan,
    locationKommun: row.location_kommun,
    phone: row.phone,
    attributes: row.attributes,
    images: row.images,
    status: row.status,
    livemode: row.livemode,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    publishedAt: iso(row.published_at),
    expiresAt: iso(row.expires_at),
    soldAt: iso(row.sold_at),
    removedAt: iso(row.removed_at),
  };
}
