import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import Redis from 'ioredis';
import type { AllConfig } from '../config';
import { reconnectWithin2s } from './reconnect';

export const REDIS = Symbol('REDIS');

/** No offline queue: commands fail fast while Redis is away, so callers can fail open. */
@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => {
        const logger = new Logger('Redis');
        const redis = new Redis(config.get('redis.url', { infer: true }), {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 2_000,
          // A Redis that accepts connections but stops answering must not hold requests either.
          commandTimeout: 500,
          retryStrategy: reconnectWithin2s,
        });
        let down = false;
        redis.on('error', (error: Error) => {
          if (!down) logger.warn(`Redis unavailable: ${error.message}`);
          down = true;
        });
        redis.on('ready', () => {
          if (down) logger.log('Redis connection restored');
          down = false;
        });
        return redis;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS],
})
export class RedisModule {}
