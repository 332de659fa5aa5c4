import { BeforeApplicationShutdown, Module } from '@nestjs/common';
import { DispatchStore } from './dispatch/dispatch.store';
import { OutboxRelay } from './dispatch/outbox-relay';
import { RedeliveryRelay } from './dispatch/redelivery-relay';
import { WebhookAttemptRunner } from './dispatch/webhook-attempt-runner';
import { WebhookAttemptsService } from './dispatch/webhook-attempts.service';
import { WebhookDeliveryProcessor } from './dispatch/webhook-delivery.processor';
import { WebhookDeliverySweeper } from './dispatch/webhook-delivery.sweeper';
import { WebhookFanoutProcessor } from './dispatch/webhook-fanout.processor';
import { WebhookFanoutService } from './dispatch/webhook-fanout.service';
import { settleWorkerNaming } from '../platform/queues/queue-processing';
import { WebhookLanes } from './dispatch/webhook-lanes';
import { WebhookQueuesModule } from './dispatch/webhook-queues.module';
import { WebhooksModule } from './webhooks.module';

/** On shutdown the relay stops first, then each queue closes after its running jobs. */
@Module({
  imports: [WebhooksModule, WebhookQueuesModule],
  providers: [
    DispatchStore,
    WebhookAttemptsService,
    WebhookAttemptRunner,
    WebhookFanoutService,
    OutboxRelay,
    WebhookFanoutProcessor,
    WebhookDeliveryProcessor,
    WebhookDeliverySweeper,
    RedeliveryRelay,
  ],
})
export class WebhooksWorkerModule implements BeforeApplicationShutdown {
  constructor(private readonly lanes: WebhookLanes) {
    // Before @nestjs/bull registers processors (onModuleInit), when Bull names the connection.
    for (const queue of lanes.all()) settleWorkerNaming(queue);
  }

  /**
   * Before the database closes: running jobs finish, waiting ones stay in Redis for the next worker.
   * Together: Bull spends up to 500 ms quitting each queue's blocked connection.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.lanes.all().map((queue) => queue.close()));
  }
}
