import { Module } from '@nestjs/common';
import { ExpiryModule } from '../listings/expiry/expiry.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ImportsModule } from '../imports/imports.module';
import { ListingsModule } from '../listings/listings.module';
import { StorageModule } from '../storage/storage.module';
import { UsageModule } from '../usage/usage.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PeriodicJobs } from './periodic-jobs';

/**
 * The worker's periodic jobs: listing expiry, count folding, idempotency and usage purges, event
 * delivery and import retention, the storage-deletion sweep. A new job is one line in
 * PeriodicJobs plus its feature's module here.
 */
@Module({
  imports: [
    ExpiryModule,
    ListingsModule,
    IdempotencyModule,
    UsageModule,
    WebhooksModule,
    ImportsModule,
    StorageModule,
  ],
  providers: [PeriodicJobs],
})
export class SchedulerModule {}
