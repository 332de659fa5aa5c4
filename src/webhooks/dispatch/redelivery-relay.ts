import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PollingLoop } from '../../platform/scheduling/polling-loop';
import { WebhookAttemptsService } from './webhook-attempts.service';
import { RedeliveryRequest, WebhookDeliveryStore } from '../deliveries/webhook-delivery.store';
import { manualRetryJobOptions, requeueDelivery } from './webhook-queues';
import { WebhookLanes } from './webhook-lanes';

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
      if (this.lanes.delivery('interactive').client.status !== 'ready') return;
      while (!stopped() && (await this.relayBatch()) === BATCH_SIZE);
    },
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly attempts: WebhookAttemptsService,
    private readonly lanes: WebhookLanes,
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
    // Asked for by a person: the interactive lane, whatever the event's.
    if (status === 'pending')
      await requeueDelivery(
        this.lanes.requeueTarget('interactive'),
        deliveryId,
        this.attempts.maxAttempts - attempts,
      );
    if (manual)
      await this.lanes
        .delivery('interactive')
        .add({ deliveryId, manual: true }, manualRetryJobOptions(deliveryId, Date.now()));
  }
}
