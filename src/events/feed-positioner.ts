import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { OutboxStore } from './outbox.store';

/** An event enters the feed at most about this long after its commit (plus one batch's work). */
const POLL_INTERVAL_MS = 100;
const BATCH_SIZE = 1_000;

/**
 * The worker's half of the events feed: places committed events into the feed, in commit order
 * (see OutboxStore.assignFeedPositions for why that order is sound). It runs apart from the
 * relay and needs only PostgreSQL, so the feed keeps up while Redis is down.
 */
@Injectable()
export class FeedPositioner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(FeedPositioner.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(private readonly outbox: OutboxStore) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule(POLL_INTERVAL_MS);
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    try {
      while (!this.stopped && (await this.outbox.assignFeedPositions(BATCH_SIZE)) === BATCH_SIZE);
      if (this.failing) this.logger.log('Events feed positioning recovered');
      this.failing = false;
    } catch (error) {
      // Once per outage, as the relay does.
      if (!this.failing) this.logger.warn({ err: error }, 'Events feed positioning failed');
      this.failing = true;
    }
  }
}
