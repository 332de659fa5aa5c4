import { BullModule, InjectQueue } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Queue } from 'bull';
import type { AllConfig } from '../../platform/config';
import { QueueGauges } from '../../platform/queues/queue-gauges';
import { QueuesModule } from '../../platform/queues/queues.module';
import {
  DELIVERY_QUEUE,
  deliveryQueueOptions,
  FANOUT_QUEUE,
  fanoutQueueOptions,
} from './webhook-queues';

/** The webhook queues as handles: registering them starts no processing. */
@Module({
  imports: [
    QueuesModule,
    BullModule.registerQueueAsync({
      name: FANOUT_QUEUE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        fanoutQueueOptions(config.get('webhooks.jobLockMs', { infer: true })),
    }),
    BullModule.registerQueueAsync({
      name: DELIVERY_QUEUE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        deliveryQueueOptions(
          config.get('webhooks.retryDelaysMs', { infer: true }),
          config.get('webhooks.jobLockMs', { infer: true }),
        ),
    }),
  ],
  exports: [BullModule],
})
export class WebhookQueuesModule {
  constructor(
    gauges: QueueGauges,
    @InjectQueue(FANOUT_QUEUE) fanout: Queue,
    @InjectQueue(DELIVERY_QUEUE) delivery: Queue,
  ) {
    gauges.watch(fanout, delivery);
  }
}
