import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import type { EventLane } from '../../events/event-lane';
import type { AllConfig } from '../../platform/config';
import { OutboxWake } from '../../events/outbox-wake';
import { PollingLoop } from '../../platform/scheduling/polling-loop';
import { withTimeout } from '../../platform/queues/with-timeout';
import { fanoutJobOptions } from './webhook-queues';
import { DispatchStore, lastAccountServed } from './dispatch.store';
import { WebhookLanes } from './webhook-lanes';

/**
 * How often an idle relay polls when no wake comes (OutboxWake); the poll delivers an event
 * whose wake was lost, and tops up a lane's queue as it drains. Why polling, not LISTEN/NOTIFY:
 * docs/performance.md, History.
 */
const POLL_INTERVAL_MS = 50;
const BATCH_SIZE = 100;
/**
 * Fan-out jobs a lane's queue holds waiting at most: fairness between accounts is decided when
 * the relay claims, so the queue stays short and an account's backlog waits in the outbox.
 */
const QUEUED_PER_LANE = 200;
/** Bull queues commands while Redis is away; past this, the batch is rolled back and retried. */
const ENQUEUE_TIMEOUT_MS = 3_000;
/**
 * A claim that found its lane's waiting events all locked looks again this soon, a few times:
 * the feed positioner holds a batch for one statement, and its wake comes later, from a worker
 * busy with an import.
 */
const LOCKED_RETRY_MS = 5;
const LOCKED_RETRIES = 10;

type RelayOutcome = 'full' | 'locked' | 'done';

/**
 * Moves committed events into their lane's fan-out queue: rows claimed with SKIP LOCKED and
 * marked relayed only once Bull took the jobs, so with Redis down an event waits, never lost.
 * Job id = event id, so enqueueing twice is harmless. Each turn serves the interactive lane
 * first; within a lane, accounts take turns (DispatchStore.claimUnrelayed). It relays only the
 * lanes this worker serves (WORKER_LANES).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop = new PollingLoop(
    new Logger(OutboxRelay.name),
    POLL_INTERVAL_MS,
    'Outbox relay failed; events wait in the outbox',
    async (stopped) => {
      // While Redis is away there is nothing to do but wait; do not hold row locks meanwhile.
      if (this.lanes.fanout('interactive').client.status !== 'ready') return;
      // The idle case, most polls: one cheap read on the pending index instead of a transaction.
      let lanes = await this.unrelayedLanes();
      let lockedRetries = 0;
      while (!stopped() && lanes.length > 0) {
        const outcomes: RelayOutcome[] = [];
        for (const lane of lanes) outcomes.push(await this.relayBatch(lane));
        // A lane that filled its batch goes again; the interactive one is looked at every turn.
        if (outcomes.includes('full')) lockedRetries = 0;
        else if (outcomes.includes('locked') && lockedRetries++ < LOCKED_RETRIES)
          await sleep(LOCKED_RETRY_MS);
        else return;
        lanes = await this.unrelayedLanes();
      }
    },
  );
  /** Per lane, the account served last: the next claim starts after it. */
  private readonly servedLast: Record<EventLane, string | null> = { interactive: null, bulk: null };
  private readonly served: readonly EventLane[];

  constructor(
    private readonly dataSource: DataSource,
    private readonly dispatch: DispatchStore,
    private readonly wake: OutboxWake,
    private readonly lanes: WebhookLanes,
    config: ConfigService<AllConfig, true>,
  ) {
    this.served = config.get('app.workerLanes', { infer: true });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.loop.start();
    await this.wake.listen(() => this.loop.wake());
  }

  /** Lets an in-flight batch finish (or roll back) before the database closes. */
  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }

  private unrelayedLanes(): Promise<EventLane[]> {
    return this.dispatch.unrelayedLanes(this.served);
  }

  /**
   * `full`: the lane filled its batch and may have more now; `locked`: it had events waiting yet
   * claimed none, all locked (by the feed positioner's batch, which commits within milliseconds,
   * or another relay); `done` otherwise, or when its queue has no room.
   */
  private async relayBatch(lane: EventLane): Promise<RelayOutcome> {
    const queue = this.lanes.fanout(lane);
    const room = QUEUED_PER_LANE - (await queue.getWaitingCount());
    if (room <= 0) return 'done';
    const limit = Math.min(BATCH_SIZE, room);
    return this.dataSource.transaction(async (em) => {
      // Only accounts with an active endpoint; the positioner settles the others' events. An
      // endpoint hears only of events committed after its creation (fan-out's rule).
      const rows = await this.dispatch.claimUnrelayed(em, lane, limit, this.servedLast[lane]);
      if (rows.length === 0) return 'locked';
      // Marked relayed by the claim: committed only once Bull took the jobs.
      await withTimeout(
        // One round trip for the whole batch; job ids still deduplicate each event.
        queue.addBulk(
          rows.map(({ id }) => ({ data: { eventId: id }, opts: fanoutJobOptions(id) })),
        ),
        ENQUEUE_TIMEOUT_MS,
      );
      this.servedLast[lane] = lastAccountServed(rows);
      return rows.length === limit ? 'full' : 'done';
    });
  }
}
