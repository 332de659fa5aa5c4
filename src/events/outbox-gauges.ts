import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../platform/metrics/metrics';
import { OutboxStore } from './outbox.store';

/** The outbox backlog per lane, read once per scrape on the pending-events index. */
@Injectable()
export class OutboxGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly outbox: OutboxStore,
  ) {}

  onModuleInit(): void {
    // One query, both gauges; with the database away the scrape answers, these keep their value.
    let backlog: Promise<Awaited<ReturnType<OutboxStore['backlog']>> | undefined> | undefined;
    const readBacklog = () =>
      (backlog ??= this.outbox
        .backlog()
        .catch(() => undefined)
        .finally(() => (backlog = undefined)));
    this.metrics.scrapedGauge(
      'outbox_backlog_events',
      'Events committed but not yet relayed to their lane’s fan-out queue',
      ['lane'],
      async function () {
        for (const { lane, count } of (await readBacklog()) ?? []) this.set({ lane }, count);
      },
    );
    this.metrics.scrapedGauge(
      'outbox_lag_seconds',
      'Age of the oldest event of the lane not yet relayed (0 when none)',
      ['lane'],
      async function () {
        for (const { lane, oldestAgeSeconds } of (await readBacklog()) ?? [])
          this.set({ lane }, oldestAgeSeconds);
      },
    );
  }
}
