import type {
  CreatedWebhookEndpointResponse,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
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
