import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EVENT_LANES, laneOf } from '../../events/event-lane';
import { PollingLoop } from '../../platform/scheduling/polling-loop';
import { DispatchStore } from './dispatch.store';
import { WebhookAttemptsService } from './webhook-attempts.service';
import { WebhookDeliveryStore } from '../deliveries/webhook-delivery.store';
import { fanoutJobOptions, requeueDelivery } from './webhook-queues';
import { WebhookLanes } from './webhook-lanes';

const SWEEP_EVERY_MS = 60_000;
/** A delivery this far past its due time with no live job has lost it. */
const OVERDUE_GRACE_MS = 5 * 60_000;
const SWEEP_BATCH = 500;
/**
 * Pages of each kind a run takes at most: 10,000 lost fan-outs and 10,000 overdue deliveries a
 * minute (a backlog of 100,000 in ten). Deliveries overdue only because their live job waits
 * behind a backlog cost a Redis read each, so a run must not walk all of them.
 */
const SWEEP_MAX_PAGES = 20;

/**
 * Safety net under Redis, whose jobs PostgreSQL's records outrank: re-queues pending
 * deliveries and relayed events whose job was lost, and fan-outs out of retries. Safe on
 * every worker at once: job ids deduplicate.
 */
@Injectable()
export class WebhookDeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliverySweeper.name);
  private readonly loop = new PollingLoop(
    this.logger,
    SWEEP_EVERY_MS,
    (error) => this.logger.warn({ err: error }, 'Webhook sweep failed'),
    async (stopped) => {
      if (this.lanes.delivery('interactive').client.status === 'ready')
        await this.sweep(undefined, undefined, stopped);
    },
    { runAtStart: false },
  );

  constructor(
    private readonly lanes: WebhookLanes,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly attempts: WebhookAttemptsService,
    private readonly dispatch: DispatchStore,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }

  /**
   * Returns how many deliveries got a new job. Takes page after page of what is overdue (up to
   * SWEEP_MAX_PAGES of each, oldest first), so a Redis that came back empty has its backlog queued
   * again within minutes; a stopping worker ends it between pages.
   */
  async sweep(
    graceMs = OVERDUE_GRACE_MS,
    batch = SWEEP_BATCH,
    stopped: () => boolean = () => false,
  ): Promise<number> {
    for (const lane of EVENT_LANES)
      for (const job of await this.lanes.fanout(lane).getFailed()) {
        // Another worker's sweep may have retried it first.
        await job.retry().catch(() => undefined);
      }
    // A relayed event never fanned out lost its job: the same job id queues it again, once.
    let page = await this.dispatch.unfannedEvents(graceMs, batch);
    for (let n = 1; page.length > 0; n++) {
      for (const lane of EVENT_LANES) {
        const lost = page.filter((event) => laneOf(event.bulk) === lane);
        if (lost.length > 0)
          await this.lanes
            .fanout(lane)
            .addBulk(lost.map(({ id }) => ({ data: { eventId: id }, opts: fanoutJobOptions(id) })));
      }
      if (page.length < batch || n === SWEEP_MAX_PAGES || stopped()) break;
      page = await this.dispatch.unfannedEvents(graceMs, batch, page[page.length - 1]);
    }
    let requeued = 0;
    const maxAttempts = this.attempts.maxAttempts;
    let overdue = await this.deliveries.overdue(graceMs, batch);
    for (let n = 1; overdue.length > 0; n++) {
      for (const { id, attempts, bulk } of overdue) {
        const queues = this.lanes.requeueTarget(laneOf(bulk));
        if (await requeueDelivery(queues, id, maxAttempts - attempts)) requeued++;
      }
      if (overdue.length < batch || n === SWEEP_MAX_PAGES || stopped()) break;
      overdue = await this.deliveries.overdue(graceMs, batch, overdue[overdue.length - 1]);
    }
    if (requeued > 0)
      this.logger.warn({ requeued }, 'Re-queued webhook deliveries whose job was lost');
    return requeued;
  }
}
