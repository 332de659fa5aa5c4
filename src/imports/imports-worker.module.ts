import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Module } from '@nestjs/common';
import type { Queue } from 'bull';
import { ListingsModule } from '../listings/listings.module';
import { settleWorkerNaming } from '../platform/queues/queue-processing';
import { ReferenceModule } from '../reference/reference.module';
import { StorageModule } from '../storage/storage.module';
import { ImportFeedSource } from './import-feed-source';
import { ImportProcessor } from './import.processor';
import { IMPORT_QUEUE } from './import-queue';
import { ImportRunner } from './import-runner';
import { ImportSweeper } from './import.sweeper';
import { ImportsModule } from './imports.module';

/** Runs imports, for the worker role; on shutdown the queue closes after the running imports' chunks. */
@Module({
  imports: [ImportsModule, ListingsModule, ReferenceModule, StorageModule],
  providers: [ImportRunner, ImportFeedSource, ImportProcessor, ImportSweeper],
})
export class ImportsWorkerModule implements BeforeApplicationShutdown {
  constructor(@InjectQueue(IMPORT_QUEUE) private readonly queue: Queue) {
    settleWorkerNaming(queue);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
