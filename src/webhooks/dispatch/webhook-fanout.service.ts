import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DispatchStore } from './dispatch.store';
import { newEventDelivery } from '../deliveries/delivery-payload';
import { PendingDelivery, WebhookDeliveryStore } from '../deliveries/webhook-delivery.store';
import { WebhookEndpointStore } from '../endpoints/webhook-endpoint.store';

@Injectable()
export class WebhookFanoutService {
  constructor(
    private readonly dispatch: DispatchStore,
    private readonly endpoints: WebhookEndpointStore,
    private readonly store: WebhookDeliveryStore,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Idempotent. `created`: this call's deliveries (their first attempt is the caller's);
   * `resumed`: the event's other pending ones, re-enqueued in case their job was lost.
   */
  async createForEvent(
    eventId: string,
  ): Promise<{ created: string[]; resumed: PendingDelivery[] }> {
    const event = await this.dispatch.find(eventId);
    if (!event) return { created: [], resumed: [] };
    const subscribers = await this.endpoints.activeSubscribers({
      accountId: event.accountId,
      livemode: event.data.livemode,
      event: event.event,
      xid: event.xid,
    });
    const created = await this.store.insertMany(
      this.dataSource.manager,
      subscribers.map((endpointId) => newEventDelivery(endpointId, event)),
    );
    await this.dispatch.markFannedOut(eventId);
    const fresh = new Set(created);
    const pending = await this.store.pendingOfEvent(eventId);
    return { created, resumed: pending.filter(({ id }) => !fresh.has(id)) };
  }
}
