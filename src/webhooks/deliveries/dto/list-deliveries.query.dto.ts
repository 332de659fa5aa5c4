import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../../common/pagination/page-query.dto';
import { EVENT_NAMES } from '../../../events/event-types';
import { TEST_EVENT } from '../delivery-payload';
import { DELIVERY_STATUSES, DeliveryStatus } from '../webhook-delivery.entity';

const DELIVERY_EVENTS = [...EVENT_NAMES, TEST_EVENT];

export class ListDeliveriesQueryDto extends PageQueryDto {
  /** only deliveries in this status */
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of: ${DELIVERY_STATUSES.join(', ')}` })
  @IsOptional()
  status?: DeliveryStatus;

  /** only deliveries of this event (`webhook.test` included) */
  @IsIn(DELIVERY_EVENTS, { message: `event must be one of: ${DELIVERY_EVENTS.join(', ')}` })
  @IsOptional()
  event?: string;
}
