import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { PollingLoop } from '../../platform/scheduling/polling-loop';
import { WebhookAttemptsService } from './webhook-attempts.service';
import { RedeliveryRequest, WebhookDeliveryStore } from '../deliveries/webhook-delivery.store';
import {
  DELIVERY_QUEUE,
  DeliveryJob,
  manualRetryJobOptions,
  requeueDelivery,
} from './webhook-queues';

const POLL_INTERVAL_MS = 200;
const BATCH_SIZE = 500;

/**
 * Turns committed retry and recover requests into delivery jobs, as the outbox relay does:
 * SKIP LOCKED, rows deleted only once Bull took the jobs. A manual retry adds a one-off job.
 */
@Injectable()
export class RedeliveryRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop = new PollingLoop(
    new Logger(RedeliveryRelay.name),
    POLL_INTERVAL_MS,
    'Redelivery relay failed; requests wait in the table',
    async (stopped) => {
      // While Redis is away there is nothing to do but wait; do not hold row locks meanwhile.
      if (this.queue.client.status !== 'ready') return;
      while (!stopped() && (await this.relayBatch()) === BATCH_SIZE);
    },
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly attempts: WebhookAttemptsService,
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue<DeliveryJob>,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }

  private relayBatch(): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const requests = await this.deliveries.claimRedeliveries(em, BATCH_SIZE);
      // Concurrently: the Redis client pipelines the lookups and adds of a whole batch.
      await Promise.all(requests.map((request) => this.enqueue(request)));
      await this.deliveries.settleRedeliveries(
        em,
        requests.map((r) => r.deliveryId),
      );
      return requests.length;
    });
  }

  private async enqueue({
    deliveryId,
    manual,
    status,
    attempts,
  }: RedeliveryRequest): Promise<void> {
    if (status === 'pending')
      await requeueDelivery(this.queue, deliveryId, this.attempts.maxAttempts - attempts);
    if (manual)
      await this.queue.add(
        { deliveryId, manual: true },
        manualRetryJobOptions(deliveryId, Date.now()),
      );
  }
}
