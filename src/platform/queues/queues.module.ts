import { BullModule, InjectQueue } from '@nestjs/bull';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { JobStatus, Queue } from 'bull';
import type { AllConfig } from '../config';
import { Metrics } from '../metrics/metrics';
import {
  DELIVERY_QUEUE,
  deliveryQueueOptions,
  FANOUT_QUEUE,
  fanoutQueueOptions,
} from '../../webhooks/dispatch/webhook-queues';

const JOB_STATES: JobStatus[] = ['waiting', 'active', 'delayed', 'completed', 'failed', 'paused'];

/** Jobs per queue and state, counted in Redis when Prometheus scrapes. */
@Injectable()
class QueueGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    @InjectQueue(FANOUT_QUEUE) private readonly fanoutQueue: Queue,
    @InjectQueue(DELIVERY_QUEUE) private readonly deliveryQueue: Queue,
  ) {}

  onModuleInit(): void {
    const queues = [this.fanoutQueue, this.deliveryQueue];
    this.metrics.scrapedGauge(
      'queue_jobs',
      'Jobs per queue and state',
      ['queue', 'state'],
      async function () {
        // With Redis away the scrape still answers; these keep their last value.
        const counts = await Promise.all(
          queues.map((queue) => queue.getJobCounts().catch(() => undefined)),
        );
        queues.forEach((queue, i) => {
          const count = counts[i] as Partial<Record<JobStatus, number>> | undefined;
          if (!count) return;
          for (const state of JOB_STATES) this.set({ queue: queue.name, state }, count[state] ?? 0);
        });
      },
    );
  }
}

/** Queue handles only (no processing); register new queues here to get their gauges. */
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
            // Back within 2 s of Redis returning (Bull's default waits up to 20 s).
            retryStrategy: (times: number) => Math.min(times * 200, 2_000),
            ...(url.startsWith('rediss://') ? { tls: {} } : {}),
          },
        };
      },
    }),
    BullModule.registerQueueAsync({
      name: FANOUT_QUEUE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        fanoutQueueOptions(config.get('webhooks.jobLockMs', { infer: true })),
    }),
    BullModule.registerQueueAsync({
      name: DELIVERY_QUEUE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        deliveryQueueOptions(
          config.get('webhooks.retryDelaysMs', { infer: true }),
          config.get('webhooks.jobLockMs', { infer: true }),
        ),
    }),
  ],
  providers: [QueueGauges],
  exports: [BullModule],
})
export class QueuesModule {}
