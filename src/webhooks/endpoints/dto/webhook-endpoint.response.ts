import { ApiProperty } from '@nestjs/swagger';
import type { DeliveryStatus } from '../../deliveries/webhook-delivery.entity';

export class WebhookEndpointResponse {
  id: string;
  url: string;
  /** the mode of the key that created it; it receives only that mode's events */
  livemode: boolean;
  description: string | null;
  /** empty means every event */
  events: string[];
  isActive: boolean;
  /** failed attempts since the last successful delivery: a health signal, not the disable rule */
  consecutiveFailures: number;
  /** when the endpoint was last disabled, automatically or by PATCH isActive false */
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export class CreatedWebhookEndpointResponse extends WebhookEndpointResponse {
  /** `whsec_…`, the signing secret; shown in this answer only */
  secret: string;
}

export class WebhookDeliveryResponse {
  deliveryId: string;
  endpointId: string;
  event: string;
  /** the feed's id of the event (GET /events); null for webhook.test */
  eventId: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

export class DeliveryAttemptResponse {
  @ApiProperty({ type: String })
  attemptedAt: string;
  /** the receiver's HTTP status; null when no answer came (time-out, refused connection) */
  @ApiProperty({ type: Number, nullable: true })
  responseStatus: number | null;
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
  @ApiProperty({ type: Number })
  durationMs: number;
  /** a manual retry: not part of the schedule, not counted toward auto-disable */
  @ApiProperty({ type: Boolean })
  manual: boolean;
}

export class WebhookDeliveryDetailResponse extends WebhookDeliveryResponse {
  /** every attempt, oldest first */
  @ApiProperty({ type: () => [DeliveryAttemptResponse] })
  attemptLog: DeliveryAttemptResponse[];
}

export class RecoverResponse {
  /** how many deliveries were queued again */
  @ApiProperty({ type: Number })
  queued: number;
}
