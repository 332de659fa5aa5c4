import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ListingsModule } from '../listings/listings.module';
import { UsageModule } from '../usage/usage.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ExpiryScheduler } from './expiry.scheduler';
import { ExpiryService } from './expiry.service';

/** Periodic jobs of the worker role: listing expiry, count folding, idempotency, usage, event and delivery purges. */
@Module({
  imports: [
    ScheduleModule.forRoot(),
    ListingsModule,
    IdempotencyModule,
    UsageModule,
    WebhooksModule,
  ],
  providers: [ExpiryService, ExpiryScheduler],
  exports: [ExpiryService],
})
export class ExpiryModule {}
