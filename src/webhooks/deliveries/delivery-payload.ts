import { randomUUID } from 'node:crypto';
import type { NewDelivery } from './webhook-delivery.store';

export const TEST_EVENT = 'webhook.test';

/** What a delivery's body says; fixed when the delivery is created and sent byte for byte. */
export interface DeliveryPayload {
  event: string;
  /** the feed's id of the event; null for webhook.test, which comes from no event */
  eventId: string | null;
  deliveryId: string;
  /** when the event happened, ISO 8601 UTC */
  timestamp: string;
  data: unknown;
}

/** The body of a delivery, in one key order for every path that makes one. */
export function deliveryPayload(p: DeliveryPayload): string {
  return JSON.stringify({
    event: p.event,
    eventId: p.eventId,
    deliveryId: p.deliveryId,
    timestamp: p.timestamp,
    data: p.data,
  });
}

/** A new delivery of an event to an endpoint, with a fresh deliveryId and its body fixed. */
export function newEventDelivery(
  endpointId: string,
  event: { id: string; event: string; data: unknown; createdAt: Date },
): NewDelivery {
  const id = randomUUID();
  const payload = deliveryPayload({
    event: event.event,
    eventId: event.id,
    deliveryId: id,
    timestamp: event.createdAt.toISOString(),
    data: event.data,
  });
  return { id, endpointId, eventId: event.id, event: event.event, payload };
}
