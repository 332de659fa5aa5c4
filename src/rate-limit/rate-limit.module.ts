import { ExecutionContext, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule, ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import Redis from 'ioredis';
import type { AllConfig } from '../platform/config';
import { REDIS } from '../platform/redis/redis.module';
import { AuthFailureLimiter } from '../auth/auth-failure.limiter';
import { RATE_LIMIT_WINDOW_MS } from '../common/api-limits';
import { RateLimitWindows } from './rate-limit-windows';
import { RedisThrottlerStorage } from './redis-throttler.storage';

const isRead = (context: ExecutionContext) => {
  const method = context.switchToHttp().getRequest<Request>().method;
  return method === 'GET' || method === 'HEAD';
};

/** Per-key limits shared through Redis: GET and writes in separate one-minute windows. */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService, REDIS],
      useFactory: (
        config: ConfigService<AllConfig, true>,
        redis: Redis,
      ): ThrottlerModuleOptions => {
        const limits = config.get('rateLimit', { infer: true });
        const keyPrefix = `${config.get('redis.keyPrefix', { infer: true })}:rl`;
        return {
          storage: new RedisThrottlerStorage(redis, keyPrefix),
          throttlers: [
            {
              name: 'read',
              ttl: RATE_LIMIT_WINDOW_MS,
              limit: limits.readPerMin,
              skipIf: (context) => !isRead(context),
            },
            {
              name: 'write',
              ttl: RATE_LIMIT_WINDOW_MS,
              limit: limits.writePerMin,
              skipIf: isRead,
            },
          ],
        };
      },
    }),
  ],
  providers: [AuthFailureLimiter, RateLimitWindows],
  exports: [AuthFailureLimiter, RateLimitWindows],
})
export class RateLimitModule {}
