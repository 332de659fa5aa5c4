import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Job } from 'bull';
import type { EventLane } from '../../events/event-lane';
import type { AllConfig } from '../../platform/config';
import { WebhookAttemptRunner } from './webhook-attempt-runner';
import { DeliveryAttemptError, DeliveryJob } from './webhook-queues';
import { WebhookLanes } from './webhook-lanes';
import { startProcessing } from '../../platform/queues/queue-processing';

/** Failed attempts are recorded, then thrown, so Bull retries with the recorded backoff. */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap {
  private readonly concurrency: number;
  private readonly served: readonly EventLane[];

  constructor(
    private readonly lanes: WebhookLanes,
    private readonly runner: WebhookAttemptRunner,
    config: ConfigService<AllConfig, true>,
  ) {
    this.concurrency = config.get('webhooks.workerConcurrency', { infer: true });
    this.served = config.get('app.workerLanes', { infer: true });
  }

  onApplicationBootstrap(): void {
    // Not awaited: the loops run for the life of the process (see startProcessing).
    for (const lane of this.served)
      void startProcessing(this.lanes.delivery(lane), this.concurrency, (job: Job<DeliveryJob>) =>
        this.process(job, lane),
      );
  }

  async process(job: Job<DeliveryJob>, lane: EventLane): Promise<void> {
    const { deliveryId, manual } = job.data;
    if (manual) return this.runner.attemptManually(deliveryId);
    const outcome = await this.runner.attemptScheduled(deliveryId, lane);
    if (!outcome.failed) return;
    if (outcome.final) await job.discard();
    throw new DeliveryAttemptError(outcome.error, outcome.retryDelayMs);
  }
}
