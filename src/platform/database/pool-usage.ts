import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

export interface PoolUsage {
  /** connections checked out by a query or transaction */
  inUse: number;
  /** callers queued for a connection because all `max` are in use */
  waiting: number;
  /** every connection it may open is open and in use */
  saturated: boolean;
}

/** pg-pool's own default size. */
const DEFAULT_MAX = 10;

export function poolUsage(pool: Pool): PoolUsage {
  // pg-pool queues a caller even when a connection is idle and hands it over on the next tick
  // (a scrape's own outbox query is one): only those beyond the idle connections wait.
  return {
    inUse: pool.totalCount - pool.idleCount,
    waiting: Math.max(0, pool.waitingCount - pool.idleCount),
    saturated: pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? DEFAULT_MAX),
  };
}

/** TypeORM's pool, which every write and transaction uses. */
export function writePoolUsage(dataSource: DataSource): PoolUsage {
  return poolUsage((dataSource.driver as PostgresDriver).master as Pool);
}
