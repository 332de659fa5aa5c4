import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { UsageController } from './usage.controller';
import { UsageMiddleware } from './usage.middleware';
import { UsageRecorder } from './usage.recorder';
import { UsageService } from './usage.service';
import { UsageStore } from './usage.store';

/** Counts requests per key (UsageRecorder) and reports them (UsageService, GET /me/usage). */
@Module({
  imports: [AccountsModule],
  controllers: [UsageController],
  providers: [UsageRecorder, UsageService, UsageStore],
  exports: [UsageService],
})
export class UsageModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(UsageMiddleware).forRoutes('{*path}');
  }
}
