export const CONDITIONS = ['NEW', 'LIKE_NEW', 'GOOD', 'FAIR', 'POOR'] as const;
export type Condition = (typeof CONDITIONS)[number];

export const LISTING_STATUSES = ['DRAFT', 'ACTIVE', 'SOLD', 'EXPIRED', 'REMOVED'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export const LISTING_SORTS = ['newest', 'oldest', 'price_asc', 'price_desc'] as const;
export type ListingSort = (typeof LISTING_SORTS)[number];

/** States in which the owner may still edit a listing (PATCH, PUT, image changes). */
export const EDITABLE_STATUSES: readonly ListingStatus[] = ['DRAFT', 'ACTIVE', 'EXPIRED'];

/** Fields every create needs; on PATCH they may be changed but never cleared. */
export const REQUIRED_LISTING_FIELDS = [
  'title',
  'description',
  'price',
  'condition',
  'categorySlug',
  'locationLan',
  'locationKommun',
] as const;
