import type {
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
} from './dto/webhook-delivery.response';
import type { WebhookDelivery } from './webhook-delivery.entity';
import type { DeliveryAttempt } from './webhook-delivery.store';

export function toDeliveryResponse(delivery: WebhookDelivery): WebhookDeliveryResponse {
  return {
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    event: delivery.event,
    eventId: delivery.eventId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    lastResponseStatus: delivery.lastResponseStatus,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
  };
}

export function toDeliveryDetailResponse(
  delivery: WebhookDelivery,
  attempts: DeliveryAttempt[],
): WebhookDeliveryDetailResponse {
  return {
    ...toDeliveryResponse(delivery),
    attemptLog: attempts.map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      responseStatus: a.responseStatus,
      error: a.error,
      durationMs: a.durationMs,
      manual: a.manual,
    })),
  };
}
