import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import type { AllConfig } from '../../platform/config';
import { WebhookAttemptRunner } from './webhook-attempt-runner';
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

/**
 * One event → one delivery record per subscribed active endpoint, and each new delivery's first
 * attempt, made here rather than by a delivery job of its own: most deliveries succeed at once,
 * and a Bull job per delivery (several Redis round trips, a lock) cost the worker more than the
 * POST itself (docs/performance.md). A first attempt that fails gets a delivery job, delayed
 * by the schedule, for the rest. The event's deliveries made before (by recover, or by a fan-out
 * cut off before its attempts) get a delivery job, deduplicated by id, so nothing is sent twice
 * at once and nothing is left without an attempt. Throws on any failure so Bull retries the step.
 */
@Injectable()
export class WebhookFanoutProcessor implements OnApplicationBootstrap {
  /** As many as delivery jobs: a fan-out job now waits for its receivers. */
  private readonly concurrency: number;

  constructor(
    @InjectQueue(FANOUT_QUEUE) private readonly fanoutQueue: Queue<FanoutJob>,
    @InjectQueue(DELIVERY_QUEUE) private readonly deliveryQueue: Queue<DeliveryJob>,
    private readonly fanout: WebhookFanoutService,
    private readonly attempts: WebhookAttemptsService,
    private readonly runner: WebhookAttemptRunner,
    config: ConfigService<AllConfig, true>,
  ) {
    this.concurrency = config.get('webhooks.workerConcurrency', { infer: true });
  }

  onApplicationBootstrap(): void {
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.fanoutQueue, this.concurrency, (job: Job<FanoutJob>) =>
      this.process(job),
    );
  }

  async process(job: Job<FanoutJob>): Promise<void> {
    const { created, resumed } = await this.fanout.createForEvent(job.data.eventId);
    const maxAttempts = this.attempts.maxAttempts;
    if (resumed.length > 0)
      await this.deliveryQueue.addBulk(
        resumed.map(({ id, attempts }) => ({
          data: { deliveryId: id },
          opts: deliveryJobOptions(id, maxAttempts - attempts),
        })),
      );
    await Promise.all(
      created.map(async (id) => {
        const outcome = await this.runner.attemptScheduled(id);
        if (outcome.failed && !outcome.final)
          await this.deliveryQueue.add(
            { deliveryId: id },
            { ...deliveryJobOptions(id, maxAttempts - 1), delay: outcome.retryDelayMs },
          );
      }),
    );
  }
}
