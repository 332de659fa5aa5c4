import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { WebhookAttemptsService } from './webhook-attempts.service';
import { WebhookFanoutService } from './webhook-fanout.service';
import {
  DELIVERY_QUEUE,
  DeliveryJob,
  deliveryJobOptions,
  FANOUT_QUEUE,
  FanoutJob,
  startProcessing,
} from './webhook-queues';

/** The concurrency of fan-out: short database work per event. */
const FANOUT_CONCURRENCY = 5;

/**
 * One event → one delivery record and one delivery job per subscribed active endpoint.
 * Throws on any failure so Bull retries the whole, idempotent, step.
 */
@Injectable()
export class WebhookFanoutProcessor implements OnApplicationBootstrap {
  constructor(
    @InjectQueue(FANOUT_QUEUE) private readonly fanoutQueue: Queue<FanoutJob>,
    @InjectQueue(DELIVERY_QUEUE) private readonly deliveryQueue: Queue<DeliveryJob>,
    private readonly fanout: WebhookFanoutService,
    private readonly attempts: WebhookAttemptsService,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.fanoutQueue, FANOUT_CONCURRENCY, (job: Job<FanoutJob>) =>
      this.process(job),
    );
  }

  async process(job: Job<FanoutJob>): Promise<void> {
    const pending = await this.fanout.createForEvent(job.data.eventId);
    const maxAttempts = this.attempts.maxAttempts;
    await this.deliveryQueue.addBulk(
      pending.map(({ id, attempts }) => ({
        data: { deliveryId: id },
        opts: deliveryJobOptions(id, maxAttempts - attempts),
      })),
    );
  }
}
