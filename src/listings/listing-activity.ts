import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../events/event-types';
import type { FavoritedDto, MessageReceivedDto } from './dto/listing-activity.dto';
import type { ListingRow } from './listing-row';

const refOf = (row: ListingRow) => ({
  id: row.id,
  externalId: row.external_id,
  livemode: row.livemode,
});

/** The message.received event of a listing: what the marketplace's messaging would write. */
export function messageReceived(
  row: ListingRow,
  dto: MessageReceivedDto,
): DomainEvent<'message.received'> {
  return {
    accountId: row.account_id,
    event: 'message.received',
    data: {
      ...refOf(row),
      messageId: dto.messageId ?? randomUUID(),
      receivedAt: new Date().toISOString(),
      preview: dto.preview ?? null,
    },
  };
}

/** The listing.favorited event of a listing: what the marketplace's favourites would write. */
export function favorited(row: ListingRow, dto: FavoritedDto): DomainEvent<'listing.favorited'> {
  return {
    accountId: row.account_id,
    event: 'listing.favorited',
    data: { ...refOf(row), favoritedAt: new Date().toISOString(), userRef: dto.userRef ?? null },
  };
}
