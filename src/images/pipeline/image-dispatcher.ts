import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Queue } from 'bull';
import type { AllConfig } from '../../platform/config';
import type { ImagesConfig } from '../../platform/config/images.config';
import { PollingLoop } from '../../platform/scheduling/polling-loop';
import { ImageJobsStore } from './image-jobs.store';
import { IMAGE_QUEUE, ImageJob, imageJobOptions } from './image-queue';

/**
 * Hands due images to the queue, so no insert path (create, PATCH, PUT, bulk, imports, uploads)
 * has to, and an image whose job vanished is handed over again once its lease ends. The queue is
 * kept short (IMAGE_DISPATCH_BATCH waiting jobs): the rest wait in the database, so a lease
 * outlives any wait in the queue, and which image runs next is decided when it is claimed
 * (single requests' first, accounts in turn: ImageJobsStore.claimDue). Images stored before the
 * pipeline (backfill) only fill the room fresh ones leave, a few per run.
 */
@Injectable()
export class ImageDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ImageDispatcher.name);
  private readonly loop: PollingLoop;
  private readonly config: ImagesConfig;

  constructor(
    private readonly store: ImageJobsStore,
    @InjectQueue(IMAGE_QUEUE) private readonly queue: Queue<ImageJob>,
    config: ConfigService<AllConfig, true>,
  ) {
    this.config = config.get('images', { infer: true });
    this.loop = new PollingLoop(
      this.logger,
      this.config.dispatchEveryMs,
      'Image dispatch failed',
      () => this.dispatch(),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.concurrency > 0) this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** One run: returns how many images it handed over. */
  async dispatch(): Promise<number> {
    const waiting = await this.queue.getWaitingCount();
    const room = this.config.dispatchBatch - waiting;
    const { leaseMs, backfillBatch } = this.config;
    const fresh = await this.store.claimDue(room, false, leaseMs);
    const backfill = await this.store.claimDue(
      Math.min(room - fresh.length, backfillBatch),
      true,
      leaseMs,
    );
    const claimed = [...fresh, ...backfill];
    if (claimed.length > 0)
      await this.queue.addBulk(
        claimed.map(({ id, priority }) => ({
          data: { imageId: id },
          opts: imageJobOptions(id, priority),
        })),
      );
    return claimed.length;
  }
}
