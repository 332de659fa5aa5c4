import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { EVENT_DATA_SCHEMAS } from './event-payloads.response';
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
  /** exactly the webhook payload's `data` for this event: the `…Data` schema named by `event` */
  @ApiProperty({
    oneOf: Object.values(EVENT_DATA_SCHEMAS).map((model) => ({ $ref: getSchemaPath(model) })),
  })
  data: Record<string, unknown>;
}
