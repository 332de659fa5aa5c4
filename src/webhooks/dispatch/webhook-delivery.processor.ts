import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import type { AllConfig } from '../../platform/config';
import { WebhookAttemptRunner } from './webhook-attempt-runner';
import { DELIVERY_QUEUE, DeliveryAttemptError, DeliveryJob } from './webhook-queues';
import { startProcessing } from '../../platform/queues/queue-processing';

/** Failed attempts are recorded, then thrown, so Bull retries with the recorded backoff. */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap {
  private readonly concurrency: number;

  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue<DeliveryJob>,
    private readonly runner: WebhookAttemptRunner,
    config: ConfigService<AllConfig, true>,
  ) {
    this.concurrency = config.get('webhooks.workerConcurrency', { infer: true });
  }

  onApplicationBootstrap(): void {
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.queue, this.concurrency, (job: Job<DeliveryJob>) =>
      this.process(job),
    );
  }

  async process(job: Job<DeliveryJob>): Promise<void> {
    const { deliveryId, manual } = job.data;
    if (manual) return this.runner.attemptManually(deliveryId);
    const outcome = await this.runner.attemptScheduled(deliveryId);
    if (!outcome.failed) return;
    if (outcome.final) await job.discard();
    throw new DeliveryAttemptError(outcome.error, outcome.retryDelayMs);
  }
}
