import { BullModule, InjectQueue } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Queue } from 'bull';
import type { AllConfig } from '../platform/config';
import { QueueGauges } from '../platform/queues/queue-gauges';
import { QueuesModule } from '../platform/queues/queues.module';
import { IMPORT_QUEUE, importQueueOptions } from './import-queue';

/** The imports queue as a handle: registering it starts no processing. */
@Module({
  imports: [
    QueuesModule,
    BullModule.registerQueueAsync({
      name: IMPORT_QUEUE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        importQueueOptions(config.get('imports.leaseMs', { infer: true })),
    }),
  ],
  exports: [BullModule],
})
export class ImportQueueModule {
  constructor(gauges: QueueGauges, @InjectQueue(IMPORT_QUEUE) queue: Queue) {
    gauges.watch(queue);
  }
}
