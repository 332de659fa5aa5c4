import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PoolUsage, writePoolUsage } from '../database/pool-usage';
import { PreparedReads } from '../database/prepared-reads';
import { Metrics } from './metrics';

/** Read at scrape time: both connection pools (TypeORM writes, prepared reads). */
@Injectable()
export class DatabaseGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly dataSource: DataSource,
    private readonly reads: PreparedReads,
  ) {}

  onModuleInit(): void {
    const pools = (): [string, PoolUsage][] => [
      ['write', writePoolUsage(this.dataSource)],
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
  }
}
