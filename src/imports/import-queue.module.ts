import { BullModule, InjectQueue } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import type { Queue } from 'bull';
import { QueueGauges } from '../platform/queues/queue-gauges';
import { QueuesModule } from '../platform/queues/queues.module';
import { IMPORT_QUEUE } from './import-queue';

/** The imports queue as a handle: registering it starts no processing. */
@Module({
  imports: [QueuesModule, BullModule.registerQueue({ name: IMPORT_QUEUE })],
  exports: [BullModule],
})
export class ImportQueueModule {
  constructor(gauges: QueueGauges, @InjectQueue(IMPORT_QUEUE) queue: Queue) {
    gauges.watch(queue);
  }
}
