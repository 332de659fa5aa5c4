import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PollingLoop } from '../platform/scheduling/polling-loop';
import { OutboxStore } from './outbox.store';

/** An event enters the feed at most about this long after its commit (plus one batch's work). */
const POLL_INTERVAL_MS = 100;
/**
 * Small, because a batch holds its rows locked until it commits, and the relay skips locked rows:
 * a sale committed beside an import's events waits for the batch that caught it.
 */
const BATCH_SIZE = 100;

/**
 * The worker's half of the events feed: places committed events into the feed, in commit order
 * (see OutboxStore.assignFeedPositions for why that order is sound). It runs apart from the
 * relay and needs only PostgreSQL, so the feed keeps up while Redis is down.
 */
@Injectable()
export class FeedPositioner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: PollingLoop;

  constructor(outbox: OutboxStore) {
    this.loop = new PollingLoop(
      new Logger(FeedPositioner.name),
      POLL_INTERVAL_MS,
      'Events feed positioning failed; events wait unpositioned',
      async (stopped) => {
        while (!stopped() && (await outbox.assignFeedPositions(BATCH_SIZE)) === BATCH_SIZE);
      },
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }
}
