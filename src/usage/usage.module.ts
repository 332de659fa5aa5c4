import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { UsageController } from './usage.controller';
import { UsageMiddleware } from './usage.middleware';
import { UsageRecorder } from './usage.recorder';
import { UsageService } from './usage.service';

/** Counts requests per key (UsageRecorder) and reports them (UsageService, GET /me/usage). */
@Module({
  controllers: [UsageController],
  providers: [UsageRecorder, UsageService],
  exports: [UsageService],
})
export class UsageModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(UsageMiddleware).forRoutes('{*path}');
  }
}
