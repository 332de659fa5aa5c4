import type { ListingRow } from './listing-row';

/** A feed with `renew=true` renews a listing with this little validity left, or an EXPIRED one. */
export const RENEW_WHEN_LEFT_MS = 7 * 24 * 3600 * 1000;

/**
 * Whether a renewing feed line renews this listing: ACTIVE with at most 7 days left, or EXPIRED.
 * Listings with more left are not written, so a nightly feed renews about one in 23 a night.
 */
export function renewalDue(
  row: Pick<ListingRow, 'status' | 'expires_at'>,
  now: Date = new Date(),
): boolean {
  if (row.status === 'EXPIRED') return true;
  if (row.status !== 'ACTIVE' || !row.expires_at) return false;
  return row.expires_at.getTime() - now.getTime() <= RENEW_WHEN_LEFT_MS;
}
