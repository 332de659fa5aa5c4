import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../platform/metrics/metrics';
import { IMPORT_STATUSES, ImportsStore } from './imports.store';

/** Imports per status, counted when Prometheus scrapes. */
@Injectable()
export class ImportGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly store: ImportsStore,
  ) {}

  onModuleInit(): void {
    const store = this.store;
    this.metrics.scrapedGauge('imports', 'Imports by status', ['status'], async function () {
      // With the database away the scrape still answers; these keep their last value.
      const counts = await store.countByStatus().catch(() => undefined);
      if (!counts) return;
      for (const status of IMPORT_STATUSES) this.set({ status }, 0);
      for (const { status, count } of counts) this.set({ status }, count);
    });
  }
}
