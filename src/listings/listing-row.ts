import type { ImageResponse } from './dto/listing.response';
import type { Condition, ListingStatus } from './listing.constants';

/** A listings row as PostgreSQL returns it, with its gallery aggregated. */
export interface ListingRow {
  id: string;
  account_id: string;
  livemode: boolean;
  external_id: string | null;
  title: string;
  description: string;
  price: number;
  currency: 'SEK';
  condition: Condition;
  category_slug: string;
  location_lan: string;
  location_kommun: string;
  phone: string | null;
  attributes: Record<string, unknown>;
  status: ListingStatus;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
  expires_at: Date | null;
  sold_at: Date | null;
  expired_at: Date | null;
  removed_at: Date | null;
  removal_reason: string | null;
  images: ImageResponse[];
}

export interface ListingContent {
  externalId: string | null;
  title: string;
  description: string;
  price: number;
  condition: Condition;
  categorySlug: string;
  locationLan: string;
  locationKommun: string;
  phone: string | null;
  attributes: Record<string, unknown>;
}

export const CONTENT_COLUMNS: Record<keyof ListingContent, keyof ListingRow> = {
  externalId: 'external_id',
  title: 'title',
  description: 'description',
  price: 'price',
  condition: 'condition',
  categorySlug: 'category_slug',
  locationLan: 'location_lan',
  locationKommun: 'location_kommun',
  phone: 'phone',
  attributes: 'attributes',
};

export function contentOf(row: ListingRow): ListingContent {
  return Object.fromEntries(
    Object.entries(CONTENT_COLUMNS).map(([field, column]) => [field, row[column]]),
  ) as unknown as ListingContent;
}
