/** Every event a webhook endpoint can subscribe to, with the `data` each one carries. */
export const EVENT_NAMES = [
  'listing.created',
  'listing.updated',
  'listing.sold',
  'listing.expired',
  'listing.removed',
  'message.received',
  'listing.favorited',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

interface ListingRef {
  id: string;
  externalId: string | null;
  livemode: boolean;
}

export interface EventPayloads {
  'listing.created': ListingRef & { status: string; updatedAt: string };
  'listing.updated': ListingRef & { status: string; updatedAt: string; changedFields: string[] };
  'listing.sold': ListingRef & { soldAt: string };
  'listing.expired': ListingRef & { expiredAt: string };
  'listing.removed': ListingRef & { removedAt: string; reason: string | null };
  'message.received': ListingRef & {
    messageId: string;
    receivedAt: string;
    preview?: string | null;
  };
  'listing.favorited': ListingRef & { favoritedAt: string; userRef?: string | null };
}

export interface DomainEvent<E extends EventName = EventName> {
  accountId: string;
  event: E;
  data: EventPayloads[E];
}
