import { BullModule, InjectQueue } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Queue } from 'bull';
import type { AllConfig } from '../../platform/config';
import { QueueGauges } from '../../platform/queues/queue-gauges';
import { QueuesModule } from '../../platform/queues/queues.module';
import { IMAGE_QUEUE, imageQueueOptions } from './image-queue';

/** The images queue as a handle: registering it starts no processing. */
@Module({
  imports: [
    QueuesModule,
    BullModule.registerQueueAsync({
      name: IMAGE_QUEUE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        imageQueueOptions(config.get('images.leaseMs', { infer: true })),
    }),
  ],
  exports: [BullModule],
})
export class ImageQueueModule {
  constructor(gauges: QueueGauges, @InjectQueue(IMAGE_QUEUE) queue: Queue) {
    gauges.watch(queue);
  }
}
