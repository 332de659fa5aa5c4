import { ApiProperty } from '@nestjs/swagger';
import { EVENT_NAMES, EventName } from '../event-types';

export class EventResponse {
  /** the event's id; equals `eventId` in every webhook delivery of this event */
  id: string;
  @ApiProperty({ enum: EVENT_NAMES })
  event: EventName;
  /** when the event happened (the change committed), ISO 8601 UTC */
  timestamp: string;
  livemode: boolean;
  /** exactly the webhook payload's `data` for this event (see the event payload schemas) */
  @ApiProperty({ type: 'object', additionalProperties: true })
  data: Record<string, unknown>;
}
