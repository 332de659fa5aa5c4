import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../platform/metrics/metrics';
import { OutboxStore } from './outbox.store';

/** The outbox backlog, read once per scrape on the pending-events index. */
@Injectable()
export class OutboxGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly outbox: OutboxStore,
  ) {}

  onModuleInit(): void {
    // One query, both gauges; with the database away the scrape answers, these keep their value.
    let backlog: Promise<{ count: number; oldestAgeSeconds: number } | undefined> | undefined;
    const readBacklog = () =>
      (backlog ??= this.outbox
        .backlog()
        .catch(() => undefined)
        .finally(() => (backlog = undefined)));
    this.metrics.scrapedGauge(
      'outbox_backlog_events',
      'Events committed but not yet relayed to the queue',
      [],
      async function () {
        const read = await readBacklog();
        if (read) this.set(read.count);
      },
    );
    this.metrics.scrapedGauge(
      'outbox_lag_seconds',
      'Age of the oldest event not yet relayed (0 when none)',
      [],
      async function () {
        const read = await readBacklog();
        if (read) this.set(read.oldestAgeSeconds);
      },
    );
  }
}
