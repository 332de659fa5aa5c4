import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { PollingLoop } from '../../platform/scheduling/polling-loop';
import { withTimeout } from '../../platform/queues/with-timeout';
import { FANOUT_QUEUE, FanoutJob, fanoutJobOptions } from './webhook-queues';
import { DispatchStore } from './dispatch.store';
import { OutboxWake } from '../../events/outbox-wake';

/**
 * How often an idle relay polls when no wake comes (OutboxWake); the poll delivers an event
 * whose wake was lost. Why polling, not LISTEN/NOTIFY: docs/performance.md, History.
 */
const POLL_INTERVAL_MS = 50;
const BATCH_SIZE = 100;
/** Bull queues commands while Redis is away; past this, the batch is rolled back and retried. */
const ENQUEUE_TIMEOUT_MS = 3_000;

/**
 * Moves committed events into the fan-out queue: rows claimed with SKIP LOCKED and marked
 * relayed only once Bull took the jobs, so with Redis down an event waits, never lost.
 * Job id = event id, so enqueueing twice is harmless.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop = new PollingLoop(
    new Logger(OutboxRelay.name),
    POLL_INTERVAL_MS,
    'Outbox relay failed; events wait in the outbox',
    async (stopped) => {
      // While Redis is away there is nothing to do but wait; do not hold row locks meanwhile.
      if (this.queue.client.status !== 'ready') return;
      while (!stopped() && (await this.relayBatch()) === BATCH_SIZE);
    },
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly dispatch: DispatchStore,
    private readonly wake: OutboxWake,
    @InjectQueue(FANOUT_QUEUE) private readonly queue: Queue<FanoutJob>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.loop.start();
    await this.wake.listen(() => this.loop.wake());
  }

  /** Lets an in-flight batch finish (or roll back) before the database closes. */
  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }

  private async relayBatch(): Promise<number> {
    // The idle case, most polls: one cheap read on the pending index instead of a transaction.
    if (!(await this.dispatch.hasUnrelayed())) return 0;
    return this.dataSource.transaction(async (em) => {
      // Events of accounts with no active endpoint have nobody to tell: they are settled here,
      // without a fan-out job. An endpoint hears of events relayed after it exists.
      const rows = await this.dispatch.claimUnrelayed(em, BATCH_SIZE);
      if (rows.length === 0) return 0;
      const toFanOut = rows.filter((row) => row.subscribed).map((row) => row.id);
      if (toFanOut.length > 0) {
        await withTimeout(
          // One round trip for the whole batch; job ids still deduplicate each event.
          this.queue.addBulk(
            toFanOut.map((id) => ({ data: { eventId: id }, opts: fanoutJobOptions(id) })),
          ),
          ENQUEUE_TIMEOUT_MS,
        );
      }
      await this.dispatch.markRelayed(
        em,
        rows.map((row) => row.id),
        toFanOut,
      );
      return rows.length;
    });
  }
}
