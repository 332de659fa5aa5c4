import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { AuthFailureLimiter } from '../auth/auth-failure.limiter';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { DELIVERY_QUEUES, FANOUT_QUEUES } from '../webhooks/dispatch/webhook-queues';
import { WebhookQueuesModule } from '../webhooks/dispatch/webhook-queues.module';
import { IMPORT_QUEUE } from '../imports/import-queue';
import { ImportQueueModule } from '../imports/import-queue.module';
import { IMAGE_QUEUE } from '../images/pipeline/image-queue';
import { ImageQueueModule } from '../images/pipeline/image-queue.module';
import { dashboardAuth } from './dashboard-auth.middleware';

/** Outside the versioned API (configure-app leaves it out of the /v1 prefix): a page, not an API. */
export const QUEUE_DASHBOARD_ROUTE = 'admin/queues';

/** Read-only: retrying or removing jobs would bypass the delivery records kept in step with it. */
@Module({
  imports: [
    WebhookQueuesModule,
    ImportQueueModule,
    ImageQueueModule,
    BullBoardModule.forRootAsync({
      imports: [RateLimitModule],
      inject: [ConfigService, AuthFailureLimiter],
      useFactory: (config: ConfigService<AllConfig, true>, authFailures: AuthFailureLimiter) => ({
        route: `/${QUEUE_DASHBOARD_ROUTE}`,
        adapter: ExpressAdapter,
        middleware: dashboardAuth(config, authFailures),
        boardOptions: { uiConfig: { boardTitle: 'Listings queues' } },
      }),
    }),
    BullBoardModule.forFeature(
      ...[
        ...Object.values(FANOUT_QUEUES),
        ...Object.values(DELIVERY_QUEUES),
        IMPORT_QUEUE,
        IMAGE_QUEUE,
      ].map((name) => ({
        name,
        adapter: BullAdapter,
        options: { readOnlyMode: true },
      })),
    ),
  ],
})
export class QueueDashboardModule {}
