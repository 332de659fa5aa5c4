import { Injectable } from '@nestjs/common';
import { Batcher } from '../../common/batching/batcher';
import type { EventLane } from '../../events/event-lane';
import { DispatchStore } from './dispatch.store';
import { newEventDelivery } from '../deliveries/delivery-payload';
import type { PendingDelivery } from '../deliveries/webhook-delivery.store';

/** The most events whose fan-outs share their statements. */
const BATCH_SIZE = 100;

/** What fan-out did for one event. */
export interface EventFanout {
  /** this call's deliveries: their first attempt is the caller's */
  created: string[];
  /** the event's other pending deliveries, re-enqueued in case their job was lost */
  resumed: PendingDelivery[];
}

const nothing = (): EventFanout => ({ created: [], resumed: [] });

@Injectable()
export class WebhookFanoutService {
  /**
   * Fan-outs arriving together share two statements, a read and a write, not two each: a
   * worker's fan-out jobs run side by side, each statement costs the worker more than its rows
   * do, and under load each waits for a CPU. One batch in flight per lane, so an interactive
   * event never waits for a batch of bulk ones.
   */
  private readonly batches: Record<EventLane, Batcher<string, EventFanout>> = {
    interactive: this.batcher(),
    bulk: this.batcher(),
  };

  constructor(private readonly dispatch: DispatchStore) {}

  /** Idempotent: an event fanned out again creates nothing and resumes what is still pending. */
  createForEvent(eventId: string, lane: EventLane): Promise<EventFanout> {
    return this.batches[lane].add(eventId);
  }

  private batcher(): Batcher<string, EventFanout> {
    return new Batcher((eventIds) => this.createForEvents(eventIds), BATCH_SIZE);
  }

  private async createForEvents(eventIds: string[]): Promise<EventFanout[]> {
    const events = await this.dispatch.eventsToFanOut([...new Set(eventIds)]);
    if (events.length === 0) return eventIds.map(nothing);
    const rows = events.flatMap((event) =>
      event.subscribers.map((endpointId) => newEventDelivery(endpointId, event)),
    );
    const found = events.map((event) => event.id);
    const { created, pending } = await this.dispatch.recordFanout(rows, found);
    const fanouts = new Map(found.map((id): [string, EventFanout] => [id, nothing()]));
    const createdIds = new Set(created);
    for (const row of rows)
      if (createdIds.has(row.id)) fanouts.get(row.eventId)!.created.push(row.id);
    for (const { eventId, ...delivery } of pending) fanouts.get(eventId)!.resumed.push(delivery);
    // An event asked for twice in one batch is fanned out by its first call; the second has nothing to do.
    const answered = new Set<string>();
    return eventIds.map((id) => {
      const fanout = fanouts.get(id);
      if (!fanout || answered.has(id)) return nothing();
      answered.add(id);
      return fanout;
    });
  }
}
