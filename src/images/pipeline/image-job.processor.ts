import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import type { AllConfig } from '../../platform/config';
import type { ImagesConfig } from '../../platform/config/images.config';
import { Metrics } from '../../platform/metrics/metrics';
import { startProcessing } from '../../platform/queues/queue-processing';
import { STORAGE_DRIVER, StorageDriver } from '../../storage/storage-driver';
import {
  type Rendered,
  type RenditionName,
  renderRenditions,
} from '../renditions/render-renditions';
import { imageFailureOf, retryAt } from './image-failure';
import { ImageJobsStore, ImageToProcess } from './image-jobs.store';
import { IMAGE_QUEUE, ImageJob } from './image-queue';
import { ImageSource } from './image-source';
import { renditionKeys } from './rendition-keys';

const RENDITION_TYPE = 'image/webp';

/**
 * One image: its source read or fetched, its three renditions rendered, named in its row and
 * stored, then one UPDATE, which clears the names and requests the deletion of killed runs' files.
 * The image's own failures end in its row (retried or failed); anything else (database,
 * storage, Redis) fails the job, and the image is handed over again after its lease.
 */
@Injectable()
export class ImageJobProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(ImageJobProcessor.name);
  private readonly config: ImagesConfig;

  constructor(
    @InjectQueue(IMAGE_QUEUE) private readonly queue: Queue<ImageJob>,
    private readonly store: ImageJobsStore,
    private readonly source: ImageSource,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly metrics: Metrics,
    config: ConfigService<AllConfig, true>,
  ) {
    this.config = config.get('images', { infer: true });
  }

  onApplicationBootstrap(): void {
    if (this.config.concurrency === 0) return;
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.queue, this.config.concurrency, (job: Job<ImageJob>) =>
      this.process(job.data.imageId).catch((error: unknown) => {
        this.logger.warn(
          { err: error, imageId: job.data.imageId },
          'Image processing failed (not the image’s fault); it is handed over again after the lease',
        );
        throw error;
      }),
    );
  }

  async process(imageId: string): Promise<void> {
    const image = await this.store.load(imageId);
    // Deleted, or finished by an earlier hand-over: nothing to do.
    if (!image || image.status !== 'pending') return;
    let rendered: Rendered;
    try {
      const source = await this.timed(this.metrics.imageFetchDuration, () =>
        this.source.read(image),
      );
      rendered = await this.timed(this.metrics.imageRenderDuration, () => renderRenditions(source));
    } catch (error) {
      return this.failed(image, error);
    }
    await this.storeRenditions(image, rendered);
  }

  private async storeRenditions(image: ImageToProcess, rendered: Rendered): Promise<void> {
    const keys = renditionKeys(image.id);
    const names = Object.keys(keys) as RenditionName[];
    const files = Object.values(keys);
    // Named in the row before written, so a worker killed from here on leaves no unnamed file.
    if (!(await this.store.recordPending(image.id, files))) return;
    const written = await Promise.allSettled(
      names.map((name) =>
        this.storage.put(keys[name], rendered.renditions[name].data, RENDITION_TYPE),
      ),
    );
    const failure = written.find((result) => result.status === 'rejected');
    let recorded = false;
    try {
      if (failure) throw failure.reason;
      recorded = await this.store.markReady(image.id, {
        width: rendered.width,
        height: rendered.height,
        variants: Object.fromEntries(
          names.map((name) => [name, this.storage.publicUrl(keys[name])]),
        ) as Record<RenditionName, string>,
        keys: files,
      });
    } finally {
      // Deleted while it was processed (or not recorded): its files must not outlive it.
      if (!recorded) await this.discard(files);
    }
    if (recorded) this.metrics.imagesProcessed.inc({ outcome: 'ready' });
  }

  private async failed(image: ImageToProcess, error: unknown): Promise<void> {
    const failure = imageFailureOf(error);
    if (!failure) throw error;
    const at = retryAt(failure, image.attempts, this.config.retryDelaysMs, new Date());
    await this.store.recordFailure(image.id, failure, at);
    this.metrics.imagesFailed.inc({ reason: failure.reason });
    this.metrics.imagesProcessed.inc({ outcome: at ? 'retry' : 'failed' });
  }

  private async discard(keys: string[]): Promise<void> {
    await Promise.all(
      keys.map((key) =>
        this.storage
          .delete(key)
          .catch((error: unknown) =>
            this.logger.warn({ err: error, key }, 'Could not delete a rendition file'),
          ),
      ),
    );
  }

  private async timed<T>(
    histogram: { startTimer(): () => number },
    work: () => Promise<T>,
  ): Promise<T> {
    const end = histogram.startTimer();
    try {
      return await work();
    } finally {
      end();
    }
  }
}
