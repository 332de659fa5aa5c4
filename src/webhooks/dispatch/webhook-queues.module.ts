import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../../platform/config';
import { QueueGauges } from '../../platform/queues/queue-gauges';
import { QueuesModule } from '../../platform/queues/queues.module';
import { EVENT_LANES } from '../../events/event-lane';
import {
  DELIVERY_QUEUES,
  deliveryQueueOptions,
  FANOUT_QUEUES,
  fanoutQueueOptions,
} from './webhook-queues';
import { WebhookLanes } from './webhook-lanes';

/** The webhook queues of both lanes as handles: registering them starts no processing. */
@Module({
  imports: [
    QueuesModule,
    ...EVENT_LANES.flatMap((lane) => [
      BullModule.registerQueueAsync({
        name: FANOUT_QUEUES[lane],
        inject: [ConfigService],
        useFactory: (config: ConfigService<AllConfig, true>) =>
          fanoutQueueOptions(config.get('webhooks.jobLockMs', { infer: true })),
      }),
      BullModule.registerQueueAsync({
        name: DELIVERY_QUEUES[lane],
        inject: [ConfigService],
        useFactory: (config: ConfigService<AllConfig, true>) =>
          deliveryQueueOptions(
            config.get('webhooks.retryDelaysMs', { infer: true }),
            config.get('webhooks.jobLockMs', { infer: true }),
          ),
      }),
    ]),
  ],
  providers: [WebhookLanes],
  exports: [BullModule, WebhookLanes],
})
export class WebhookQueuesModule {
  constructor(gauges: QueueGauges, lanes: WebhookLanes) {
    gauges.watch(...lanes.all());
  }
}
