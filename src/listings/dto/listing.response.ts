import type { Condition, ListingStatus } from '../listing.constants';

export class ImageResponse {
  id: string;
  url: string;
  /** stored position; 0 is the primary image */
  order: number;
}

export class ListingResponse {
  id: string;
  externalId: string | null;
  title: string;
  description: string;
  price: number;
  currency: 'SEK';
  condition: Condition;
  categorySlug: string;
  locationLan: string;
  locationKommun: string;
  phone: string | null;
  attributes: Record<string, unknown>;
  images: ImageResponse[];
  status: ListingStatus;
  livemode: boolean;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  expiresAt: string | null;
  soldAt: string | null;
  removedAt: string | null;
}
