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
} from './webhook-queues';
import { startProcessing } from '../../platform/queues/queue-processing';

/**
 * Creates an event's deliveries and makes each new one's first attempt here (why: design
 * notes in docs/performance.md); failures and earlier deliveries get jobs, deduplicated by id.
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
