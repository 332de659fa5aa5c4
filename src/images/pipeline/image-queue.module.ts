import { BullModule, InjectQueue } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import type { Queue } from 'bull';
import { QueueGauges } from '../../platform/queues/queue-gauges';
import { QueuesModule } from '../../platform/queues/queues.module';
import { IMAGE_QUEUE } from './image-queue';

/** The images queue as a handle: registering it starts no processing. */
@Module({
  imports: [QueuesModule, BullModule.registerQueue({ name: IMAGE_QUEUE })],
  exports: [BullModule],
})
export class ImageQueueModule {
  constructor(gauges: QueueGauges, @InjectQueue(IMAGE_QUEUE) queue: Queue) {
    gauges.watch(queue);
  }
}
