import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { poolUsage, PoolUsage } from '../database/pool-usage';
import { PreparedReads } from '../database/prepared-reads';
import { OutboxStore } from '../../events/outbox.store';
import { Metrics } from './metrics';

/** Read at scrape time: both connection pools and the outbox backlog (on the pending index). */
@Injectable()
export class DatabaseGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly dataSource: DataSource,
    private readonly reads: PreparedReads,
    private readonly outbox: OutboxStore,
  ) {}

  onModuleInit(): void {
    const pools = (): [string, PoolUsage][] => [
      ['write', poolUsage((this.dataSource.driver as PostgresDriver).master as Pool)],
      ['read', this.reads.usage()],
    ];
    this.metrics.scrapedGauge(
      'db_pool_connections_in_use',
      'Database connections checked out, per pool (write: TypeORM, read: prepared reads)',
      ['pool'],
      function () {
        for (const [pool, usage] of pools()) this.set({ pool }, usage.inUse);
      },
    );
    this.metrics.scrapedGauge(
      'db_pool_waiting_clients',
      'Callers waiting for a database connection, per pool',
      ['pool'],
      function () {
        for (const [pool, usage] of pools()) this.set({ pool }, usage.waiting);
      },
    );
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
