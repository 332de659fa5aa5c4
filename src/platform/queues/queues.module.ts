import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../config';
import { reconnectWithin2s } from '../redis/reconnect';
import { QueueGauges } from './queue-gauges';

/**
 * Bull's connection to Redis. A feature registers its own queues (with their options beside its
 * code) in a module that imports this one, and hands them to QueueGauges.
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => {
        const { url, keyPrefix } = config.get('redis', { infer: true });
        return {
          url,
          // Per deployment and per test run, like every other key.
          prefix: keyPrefix,
          redis: {
            retryStrategy: reconnectWithin2s,
            ...(url.startsWith('rediss://') ? { tls: {} } : {}),
          },
        };
      },
    }),
  ],
  providers: [QueueGauges],
  exports: [QueueGauges],
})
export class QueuesModule {}
