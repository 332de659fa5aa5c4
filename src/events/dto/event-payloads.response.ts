import { ApiProperty } from '@nestjs/swagger';
import type { EventName } from '../event-types';

/** What every listing event's `data` carries: the listing it is about. */
export class ListingRefData {
  /** the listing's id */
  @ApiProperty({ type: String })
  id: string;
  /** your own id for the listing; null when it has none */
  @ApiProperty({ type: String, nullable: true })
  externalId: string | null;
  @ApiProperty({ type: Boolean })
  livemode: boolean;
}

/** `listing.created` */
export class ListingCreatedData extends ListingRefData {
  @ApiProperty({ type: String })
  status: string;
  @ApiProperty({ type: String })
  updatedAt: string;
}

/** `listing.updated` */
export class ListingUpdatedData extends ListingRefData {
  @ApiProperty({ type: String })
  status: string;
  @ApiProperty({ type: String })
  updatedAt: string;
  /** the fields the change touched */
  @ApiProperty({ type: [String] })
  changedFields: string[];
}

/** `listing.sold` */
export class ListingSoldData extends ListingRefData {
  @ApiProperty({ type: String })
  soldAt: string;
}

/** `listing.expired` */
export class ListingExpiredData extends ListingRefData {
  @ApiProperty({ type: String })
  expiredAt: string;
}

/** `listing.removed` */
export class ListingRemovedData extends ListingRefData {
  @ApiProperty({ type: String })
  removedAt: string;
  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}

/** `message.received` */
export class MessageReceivedData extends ListingRefData {
  @ApiProperty({ type: String })
  messageId: string;
  @ApiProperty({ type: String })
  receivedAt: string;
  /** the start of the message; null when none was given */
  @ApiProperty({ type: String, nullable: true })
  preview: string | null;
}

/** `listing.favorited` */
export class ListingFavoritedData extends ListingRefData {
  @ApiProperty({ type: String })
  favoritedAt: string;
  /** who favorited it, as the marketplace refers to them; null when none was given */
  @ApiProperty({ type: String, nullable: true })
  userRef: string | null;
}

/** An import's tallies; `lines` is null until the file has been read. */
export class ImportCountsData {
  @ApiProperty({ type: Number, nullable: true })
  lines: number | null;
  @ApiProperty({ type: Number })
  processed: number;
  @ApiProperty({ type: Number })
  created: number;
  @ApiProperty({ type: Number })
  updated: number;
  @ApiProperty({ type: Number })
  unchanged: number;
  /** lines that renewed their listing and changed nothing else (`renew=true`) */
  @ApiProperty({ type: Number })
  renewed: number;
  /** lines that brought back a listing a mirror import had removed, with its id */
  @ApiProperty({ type: Number })
  restored: number;
  /** lines whose listing is SOLD: left alone, not a failure */
  @ApiProperty({ type: Number })
  skipped: number;
  @ApiProperty({ type: Number })
  removed: number;
  @ApiProperty({ type: Number })
  failed: number;
  /** mirror imports: the listings the import removes (or would, while held); null until planned */
  @ApiProperty({ type: Number, nullable: true })
  plannedRemovals: number | null;
}

/** `import.held` and `import.finished` */
export class ImportEventData {
  /** the import's id */
  @ApiProperty({ type: String })
  id: string;
  @ApiProperty({ type: Boolean })
  livemode: boolean;
  @ApiProperty({ type: String })
  status: string;
  @ApiProperty({ type: String })
  mode: string;
  @ApiProperty({ type: Boolean })
  dryRun: boolean;
  @ApiProperty({ type: () => ImportCountsData })
  counts: ImportCountsData;
}

/** Every event's `data` schema, by event name (the OpenAPI document lists each). */
export const EVENT_DATA_SCHEMAS = {
  'listing.created': ListingCreatedData,
  'listing.updated': ListingUpdatedData,
  'listing.sold': ListingSoldData,
  'listing.expired': ListingExpiredData,
  'listing.removed': ListingRemovedData,
  'message.received': MessageReceivedData,
  'listing.favorited': ListingFavoritedData,
  'import.held': ImportEventData,
  'import.finished': ImportEventData,
} as const satisfies Record<EventName, new () => object>;
