import { ApiProperty } from '@nestjs/swagger';
import { EVENT_NAMES, EventName } from '../event-types';

export class EventResponse {
  /** the event's id; equals `eventId` in every webhook delivery of this event */
  @ApiProperty({ type: String })
  id: string;
  @ApiProperty({ enum: EVENT_NAMES })
  event: EventName;
  /** when the event happened (the change committed), ISO 8601 UTC */
  @ApiProperty({ type: String })
  timestamp: string;
  @ApiProperty({ type: Boolean })
  livemode: boolean;
  /** exactly the webhook payload's `data`; the document's `Event` union names its schema per `event` */
  @ApiProperty({ type: 'object', additionalProperties: true })
  data: Record<string, unknown>;
}
