import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxStore } from '../events/outbox.store';
import { newEventDelivery } from './delivery-payload';
import { PendingDelivery, WebhookDeliveryStore } from './webhook-delivery.store';
import { WebhookEndpointStore } from './webhook-endpoint.store';

/** Fan-out: one event becomes one delivery per subscribed endpoint. */
@Injectable()
export class WebhookFanoutService {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly endpoints: WebhookEndpointStore,
    private readonly store: WebhookDeliveryStore,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * One delivery per active endpoint of the event's account and mode (its data's `livemode`)
   * subscribed to the event, its body fixed now. Idempotent: a repeat creates nothing new and
   * returns the deliveries still pending, so a retried fan-out re-enqueues (deduplicated by job
   * id) what a failed one may have missed.
   */
  async createForEvent(eventId: string): Promise<PendingDelivery[]> {
    const event = await this.outbox.find(eventId);
    if (!event) return [];
    const subscribers = await this.endpoints.activeSubscribers(
      event.accountId,
      event.data.livemode,
      event.event,
    );
    await this.store.insertMany(
      this.dataSource.manager,
      subscribers.map((endpointId) => newEventDelivery(endpointId, event)),
    );
    await this.outbox.markFannedOut(eventId);
    return this.store.pendingOfEvent(eventId);
  }
}
