import { Injectable, OnModuleInit } from '@nestjs/common';
import { IMAGE_PRIORITY } from '../../listings/gallery/image-priority';
import { Metrics } from '../../platform/metrics/metrics';
import { ImageJobsStore } from './image-jobs.store';

const PRIORITIES = Object.entries(IMAGE_PRIORITY) as [keyof typeof IMAGE_PRIORITY, number][];

/** Fresh images waiting to be processed, by who added them, counted when Prometheus scrapes. */
@Injectable()
export class ImageGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly store: ImageJobsStore,
  ) {}

  onModuleInit(): void {
    const store = this.store;
    this.metrics.scrapedGauge(
      'images_pending',
      'Images waiting to be processed (backfill aside), by priority',
      ['priority'],
      async function () {
        // With the database away the scrape still answers; these keep their last value.
        const counts = await store.countPending().catch(() => undefined);
        if (!counts) return;
        for (const [name, priority] of PRIORITIES)
          this.set({ priority: name }, counts.get(priority) ?? 0);
      },
    );
  }
}
