import { Module } from '@nestjs/common';
import { ExpiryModule } from '../listings/expiry/expiry.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ListingsModule } from '../listings/listings.module';
import { UsageModule } from '../usage/usage.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PeriodicJobs } from './periodic-jobs';

/**
 * The worker's periodic jobs: listing expiry, count folding, idempotency and usage purges, event
 * and delivery retention. A new job is one line in PeriodicJobs plus its feature's module here.
 */
@Module({
  imports: [ExpiryModule, ListingsModule, IdempotencyModule, UsageModule, WebhooksModule],
  providers: [PeriodicJobs],
})
export class SchedulerModule {}
