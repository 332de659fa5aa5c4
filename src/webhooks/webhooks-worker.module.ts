import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Module } from '@nestjs/common';
import type { Queue } from 'bull';
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
import { DELIVERY_QUEUE, FANOUT_QUEUE } from './dispatch/webhook-queues';
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
  constructor(
    @InjectQueue(FANOUT_QUEUE) private readonly fanoutQueue: Queue,
    @InjectQueue(DELIVERY_QUEUE) private readonly deliveryQueue: Queue,
  ) {
    // Before @nestjs/bull registers processors (onModuleInit), when Bull names the connection.
    settleWorkerNaming(fanoutQueue);
    settleWorkerNaming(deliveryQueue);
  }

  /** Before the database closes: running jobs finish, waiting ones stay in Redis for the next worker. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.fanoutQueue.close();
    await this.deliveryQueue.close();
  }
}
