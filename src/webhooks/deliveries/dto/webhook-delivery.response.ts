import { ApiProperty } from '@nestjs/swagger';
import type { DeliveryStatus } from '../webhook-delivery.entity';

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
