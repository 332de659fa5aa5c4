import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../events/event-types';
import type { FavoritedDto, MessageReceivedDto } from './dto/listing-activity.dto';
import type { ListingRow } from './listing-row';
import { WrongStateError } from './listings.errors';

/** The listing's part of every listing event's data. */
export const listingRef = (row: ListingRow) => ({
  id: row.id,
  externalId: row.external_id,
  livemode: row.livemode,
});

/** listing.updated, naming the fields the change touched. */
export function listingUpdated(
  row: ListingRow,
  changedFields: string[],
): DomainEvent<'listing.updated'> {
  return {
    accountId: row.account_id,
    event: 'listing.updated',
    data: {
      ...listingRef(row),
      status: row.status,
      updatedAt: row.updated_at.toISOString(),
      changedFields,
    },
  };
}

/** listing.expired of a row the change has just expired. */
export function listingExpired(row: ListingRow): DomainEvent<'listing.expired'> {
  return {
    accountId: row.account_id,
    event: 'listing.expired',
    data: { ...listingRef(row), expiredAt: row.expired_at!.toISOString() },
  };
}

/** Buyers see only published listings: only an ACTIVE one can be written about or saved. */
function assertSeenByBuyers(row: ListingRow, action: string): void {
  if (row.status !== 'ACTIVE') throw new WrongStateError(row.status, action);
}

/**
 * The message.received event of an ACTIVE listing (locked by the caller, so that a sale or an
 * expiry comes before or after it): what the marketplace's messaging would write.
 */
export function messageReceived(
  row: ListingRow,
  dto: MessageReceivedDto,
): DomainEvent<'message.received'> {
  assertSeenByBuyers(row, 'receive a message on');
  return {
    accountId: row.account_id,
    event: 'message.received',
    data: {
      ...listingRef(row),
      messageId: dto.messageId ?? randomUUID(),
      receivedAt: new Date().toISOString(),
      preview: dto.preview ?? null,
    },
  };
}

/** The listing.favorited event of an ACTIVE, locked listing: what the marketplace's favourites would write. */
export function favorited(row: ListingRow, dto: FavoritedDto): DomainEvent<'listing.favorited'> {
  assertSeenByBuyers(row, 'favorite');
  return {
    accountId: row.account_id,
    event: 'listing.favorited',
    data: {
      ...listingRef(row),
      favoritedAt: new Date().toISOString(),
      userRef: dto.userRef ?? null,
    },
  };
}
