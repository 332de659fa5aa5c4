import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { PollingLoop } from '../platform/scheduling/polling-loop';
import type { AllConfig } from '../platform/config';
import { OutboxStore } from '../events/outbox.store';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { ListingCountsService } from '../listings/listing-counts.service';
import { ExpiryService } from '../listings/expiry/expiry.service';
import { ImportRetention } from '../imports/import-retention';
import { ImageFileCleanup } from '../storage/image-file-cleanup';
import { UsageService } from '../usage/usage.service';
import { WebhookDeliveryStore } from '../webhooks/deliveries/webhook-delivery.store';
import { inBatches } from './in-batches';

const FOLD_COUNTS_EVERY_MS = 5_000;
const PURGE_IDEMPOTENCY_EVERY_MS = 10 * 60_000;
const PURGE_USAGE_EVERY_MS = 60 * 60_000;
const SWEEP_STORAGE_DELETIONS_EVERY_MS = 60_000;
/** /me/usage reaches 90 days back; a margin keeps the boundary day whole across time zones. */
const USAGE_RETENTION_DAYS = 92;

/**
 * The worker's periodic jobs in one place, triggers only: each job's work lives in its
 * feature and is safe when every instance runs it at once. (The relay and the delivery sweep
 * stay in the webhooks worker module, stopped in order with Bull's queues.)
 */
@Injectable()
export class PeriodicJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PeriodicJobs.name);
  private readonly loops: PollingLoop[] = [];

  constructor(
    private readonly expiry: ExpiryService,
    private readonly counts: ListingCountsService,
    private readonly idempotency: IdempotencyService,
    private readonly usage: UsageService,
    private readonly outbox: OutboxStore,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly imports: ImportRetention,
    private readonly imageFiles: ImageFileCleanup,
    private readonly config: ConfigService<AllConfig, true>,
  ) {}

  onApplicationBootstrap(): void {
    this.every(
      'listing-expiry',
      this.config.get('listings.expirySweepEveryMs', { infer: true }),
      async () => {
        const expired = await this.expiry.sweep();
        if (expired > 0) this.logger.log(`Expired ${expired} listings`);
      },
    );
    this.every('listing-counts-fold', FOLD_COUNTS_EVERY_MS, () => this.counts.fold());
    this.every('idempotency-purge', PURGE_IDEMPOTENCY_EVERY_MS, () =>
      this.idempotency.purgeExpired(),
    );
    this.every('usage-purge', PURGE_USAGE_EVERY_MS, () =>
      this.usage.purgeOlderThan(USAGE_RETENTION_DAYS),
    );
    const { eventRetentionMs, deliveryRetentionMs, purgeEveryMs } = this.config.get('events', {
      infer: true,
    });
    this.every('event-purge', purgeEveryMs, () =>
      inBatches((n) => this.outbox.purgeBatch(eventRetentionMs, n)),
    );
    this.every('delivery-purge', purgeEveryMs, () =>
      inBatches((n) => this.deliveries.purgeBatch(deliveryRetentionMs, n)),
    );
    this.every('import-purge', purgeEveryMs, () => inBatches((n) => this.imports.purgeBatch(n)));
    this.every('storage-deletion-sweep', SWEEP_STORAGE_DELETIONS_EVERY_MS, () =>
      inBatches((n) => this.imageFiles.sweepBatch(n)),
    );
  }

  /** Stops the timers without waiting for a run: a large purge would hold shutdown. */
  onApplicationShutdown(): void {
    for (const loop of this.loops) void loop.stop();
  }

  /** First run one interval after start; every failure is logged, each run retries the job. */
  private every(name: string, ms: number, job: () => Promise<unknown>): void {
    const loop = new PollingLoop(
      this.logger,
      ms,
      (error) => this.logger.error({ err: error }, `${name} failed`),
      job,
      { runAtStart: false },
    );
    this.loops.push(loop);
    loop.start();
  }
}
