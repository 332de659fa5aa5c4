import type {
  CreatedWebhookEndpointResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import type { DeliveryAttempt } from '../deliveries/webhook-delivery.store';
import type { WebhookDelivery } from '../deliveries/webhook-delivery.entity';
import type { WebhookEndpoint } from './webhook-endpoint.entity';

/** Never includes the secret: only toCreatedEndpoint does, for the one answer that shows it. */
export function toEndpointResponse(endpoint: WebhookEndpoint): WebhookEndpointResponse {
  return {
    id: endpoint.id,
    url: endpoint.url,
    livemode: endpoint.livemode,
    description: endpoint.description,
    events: endpoint.events,
    isActive: endpoint.isActive,
    consecutiveFailures: endpoint.consecutiveFailures,
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export function toCreatedEndpointResponse(
  endpoint: WebhookEndpoint,
): CreatedWebhookEndpointResponse {
  return { ...toEndpointResponse(endpoint), secret: endpoint.secret };
}

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
