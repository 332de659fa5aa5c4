import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Module } from '@nestjs/common';
import type { Queue } from 'bull';
import { settleWorkerNaming } from '../platform/queues/queue-processing';
import { StorageModule } from '../storage/storage.module';
import { ImageDispatcher } from './pipeline/image-dispatcher';
import { ImageGauges } from './pipeline/image-gauges';
import { ImageJobProcessor } from './pipeline/image-job.processor';
import { ImageJobsStore } from './pipeline/image-jobs.store';
import { IMAGE_QUEUE } from './pipeline/image-queue';
import { ImageQueueModule } from './pipeline/image-queue.module';
import { ImageSource } from './pipeline/image-source';

/**
 * The image pipeline, for the worker role only (URL images are never fetched by the API): the
 * dispatcher and IMAGE_CONCURRENCY processors; IMAGE_CONCURRENCY=0 runs neither. Its gauge of
 * pending images is every worker's.
 */
@Module({
  imports: [ImageQueueModule, StorageModule],
  providers: [ImageJobsStore, ImageSource, ImageDispatcher, ImageJobProcessor, ImageGauges],
})
export class ImagesWorkerModule implements BeforeApplicationShutdown {
  constructor(@InjectQueue(IMAGE_QUEUE) private readonly queue: Queue) {
    settleWorkerNaming(queue);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
