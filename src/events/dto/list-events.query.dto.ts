import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsIn, IsOptional, IsUUID } from 'class-validator';
import { LimitQueryDto } from '../../common/pagination/page-query.dto';
import { EVENT_NAMES, EventName } from '../event-types';

/** A cursor feed: `limit` as on every list, `after` instead of a page number. */
export class ListEventsQueryDto extends LimitQueryDto {
  /** an event id from an earlier page: the page starts after it; omitted = the oldest kept event */
  @IsUUID('all', { message: 'after must be an event id from an earlier page' })
  @IsOptional()
  after?: string;

  /** comma-separated event names, e.g. `listing.sold,listing.expired`; omitted = every event */
  @IsIn(EVENT_NAMES, {
    each: true,
    message: `types must contain only: ${EVENT_NAMES.join(', ')}`,
  })
  @ArrayNotEmpty({ message: 'types must name at least one event' })
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((name) => name.trim()) : value,
  )
  @IsOptional()
  types?: EventName[];

  /** only the events of this listing */
  @IsUUID('all', { message: 'listingId must be a UUID' })
  @IsOptional()
  listingId?: string;
}
