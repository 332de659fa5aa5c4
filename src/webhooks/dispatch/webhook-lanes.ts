import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { EVENT_LANES, type EventLane } from '../../events/event-lane';
import {
  DELIVERY_BULK_QUEUE,
  DELIVERY_QUEUE,
  DeliveryJob,
  FANOUT_BULK_QUEUE,
  FANOUT_QUEUE,
  FanoutJob,
} from './webhook-queues';

/** The fan-out and delivery queue of each lane. */
@Injectable()
export class WebhookLanes {
  private readonly fanouts: Record<EventLane, Queue<FanoutJob>>;
  private readonly deliveries: Record<EventLane, Queue<DeliveryJob>>;

  constructor(
    @InjectQueue(FANOUT_QUEUE) fanout: Queue<FanoutJob>,
    @InjectQueue(FANOUT_BULK_QUEUE) fanoutBulk: Queue<FanoutJob>,
    @InjectQueue(DELIVERY_QUEUE) delivery: Queue<DeliveryJob>,
    @InjectQueue(DELIVERY_BULK_QUEUE) deliveryBulk: Queue<DeliveryJob>,
  ) {
    this.fanouts = { interactive: fanout, bulk: fanoutBulk };
    this.deliveries = { interactive: delivery, bulk: deliveryBulk };
  }

  fanout(lane: EventLane): Queue<FanoutJob> {
    return this.fanouts[lane];
  }

  delivery(lane: EventLane): Queue<DeliveryJob> {
    return this.deliveries[lane];
  }

  /** Where a pending delivery goes again, and the lane checked for a live job of it. */
  requeueTarget(lane: EventLane): { target: Queue<DeliveryJob>; other: Queue<DeliveryJob> } {
    const other = lane === 'bulk' ? 'interactive' : 'bulk';
    return { target: this.deliveries[lane], other: this.deliveries[other] };
  }

  /** Every queue, fan-outs first: the order the worker closes them in. */
  all(): Queue[] {
    return [
      ...EVENT_LANES.map((lane) => this.fanouts[lane]),
      ...EVENT_LANES.map((lane) => this.deliveries[lane]),
    ];
  }
}
