import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Job } from 'bull';
import type { EventLane } from '../../events/event-lane';
import type { AllConfig } from '../../platform/config';
import { WebhookAttemptRunner } from './webhook-attempt-runner';
import { WebhookAttemptsService } from './webhook-attempts.service';
import { WebhookFanoutService } from './webhook-fanout.service';
import { deliveryJobOptions, FanoutJob } from './webhook-queues';
import { WebhookLanes } from './webhook-lanes';
import { startProcessing } from '../../platform/queues/queue-processing';

/**
 * Creates an event's deliveries and makes each new one's first attempt here (why: design
 * notes in docs/performance.md); failures and earlier deliveries get jobs in the event's lane,
 * deduplicated by id.
 */
@Injectable()
export class WebhookFanoutProcessor implements OnApplicationBootstrap {
  /** As many as delivery jobs, per lane: a fan-out job now waits for its receivers. */
  private readonly concurrency: number;
  private readonly served: readonly EventLane[];

  constructor(
    private readonly lanes: WebhookLanes,
    private readonly fanout: WebhookFanoutService,
    private readonly attempts: WebhookAttemptsService,
    private readonly runner: WebhookAttemptRunner,
    config: ConfigService<AllConfig, true>,
  ) {
    this.concurrency = config.get('webhooks.workerConcurrency', { infer: true });
    this.served = config.get('app.workerLanes', { infer: true });
  }

  onApplicationBootstrap(): void {
    // Not awaited: the loops run for the life of the process (see startProcessing).
    for (const lane of this.served)
      void startProcessing(this.lanes.fanout(lane), this.concurrency, (job: Job<FanoutJob>) =>
        this.process(job, lane),
      );
  }

  async process(job: Job<FanoutJob>, lane: EventLane): Promise<void> {
    const { created, resumed } = await this.fanout.createForEvent(job.data.eventId, lane);
    const maxAttempts = this.attempts.maxAttempts;
    const deliveryQueue = this.lanes.delivery(lane);
    if (resumed.length > 0)
      await deliveryQueue.addBulk(
        resumed.map(({ id, attempts }) => ({
          data: { deliveryId: id },
          opts: deliveryJobOptions(id, maxAttempts - attempts),
        })),
      );
    await Promise.all(
      created.map(async (id) => {
        const outcome = await this.runner.attemptScheduled(id, lane);
        if (outcome.failed && !outcome.final)
          await deliveryQueue.add(
            { deliveryId: id },
            { ...deliveryJobOptions(id, maxAttempts - 1), delay: outcome.retryDelayMs },
          );
      }),
    );
  }
}
