import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ScheduleModule } from '@nestjs/schedule';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AccountsModule } from './accounts/accounts.module';
import { AuditWorkerModule } from './audit/audit.module';
import { ApiLoadModule } from './platform/api-load/api-load.module';
import { AdminModule } from './admin/admin.module';
import { BulkModule } from './bulk/bulk.module';
import { dashboardConfig } from './dashboard/dashboard.config';
import { DashboardModule } from './dashboard/dashboard.module';
import { OwnerNoticesModule } from './dashboard/owner-notices';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthenticateMiddleware } from './auth/authenticate.middleware';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { createValidationPipe } from './common/http/validation.pipe';
import { CONFIG_LOADERS } from './platform/config';
import { appConfig, type ProcessRole } from './platform/config/app.config';
import { DatabaseModule } from './platform/database/database.module';
import { seedReferenceData } from './reference/reference-seed';
import { ImagesModule } from './images/images.module';
import { ImagesWorkerModule } from './images/images-worker.module';
import { ListingsModule } from './listings/listings.module';
import { ExpiryModule } from './listings/expiry/expiry.module';
import { SchedulingModule } from './platform/scheduling/scheduling.module';
import { EventsFeedModule } from './events/events-feed.module';
import { EventsModule } from './events/events.module';
import { EventsWorkerModule } from './events/events-worker.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './platform/logging/logging.module';
import { MetricsModule } from './platform/metrics/metrics.module';
import { QueueDashboardModule } from './queue-dashboard/queue-dashboard.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './platform/redis/redis.module';
import { ReferenceModule } from './reference/reference.module';
import { ImportsWorkerModule } from './imports/imports-worker.module';
import { ImportsModule } from './imports/imports.module';
import { TestHelpersModule } from './test-helpers/test-helpers.module';
import { UsageModule } from './usage/usage.module';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { UnreadInputInterceptor } from './common/http/unread-input.interceptor';

/** Everything an API replica or a worker needs: config, logs, database, Redis. */
@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      load: CONFIG_LOADERS,
      ignoreEnvFile: true,
      cache: true,
    }),
    LoggingModule,
    DatabaseModule.forRoot(seedReferenceData),
    RedisModule,
    ApiLoadModule,
    EventsModule,
    MetricsModule,
  ],
})
export class CoreModule {}

@Module({})
export class AppModule {
  /** `api` serves HTTP, `worker` runs queues and schedules, `all` does both in one process. */
  static forRole(role: ProcessRole): DynamicModule {
    const http = role === 'api' || role === 'all';
    const worker = role === 'worker' || role === 'all';
    // An interactive-only worker (WORKER_LANES) dispatches its lane's events and nothing else, so
    // a sale never shares it with background work: imports, renders, the feed positioner and the
    // periodic jobs run where the bulk lane is served, at the lowest priority.
    const bulk = worker && appConfig().workerLanes.includes('bulk');
    return {
      module: AppModule,
      imports: [
        CoreModule,
        // mails the owners of access decisions and live keys, whichever door made them
        OwnerNoticesModule,
        AccountsModule,
        UsageModule,
        ReferenceModule,
        // Bulk first: Express matches routes in registration order, and /listings/bulk must not
        // be taken for /listings/:id (whose UUID check would answer 404).
        ...(http
          ? [
              BulkModule,
              ListingsModule,
              ImagesModule,
              AdminModule,
              HealthModule,
              RateLimitModule,
              WebhooksModule,
              ImportsModule,
              TestHelpersModule,
              EventsFeedModule,
              QueueDashboardModule,
              // Read here, not through ConfigService: the setting decides the module graph.
              ...(dashboardConfig().enabled ? [DashboardModule] : []),
            ]
          : []),
        ...(worker ? [WebhooksWorkerModule] : []),
        ...(bulk
          ? [
              // Each feature declares its periodic jobs (@Every); SchedulingModule starts them.
              ScheduleModule.forRoot(),
              SchedulingModule,
              ExpiryModule,
              EventsWorkerModule,
              ImportsWorkerModule,
              ImagesWorkerModule,
              AuditWorkerModule,
            ]
          : []),
      ],
      providers: http
        ? [
            AuthenticateMiddleware,
            // Global guards run in the order they are registered: a recognised key is counted,
            // and its answer carries the limit headers, before its status or scopes refuse it.
            { provide: APP_GUARD, useClass: RateLimitGuard },
            { provide: APP_GUARD, useClass: ApiKeyGuard },
            { provide: APP_PIPE, useFactory: createValidationPipe },
            { provide: APP_FILTER, useClass: AllExceptionsFilter },
            { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
            { provide: APP_INTERCEPTOR, useClass: UnreadInputInterceptor },
          ]
        : [],
    };
  }
}
