import type { Pool } from 'pg';

export interface PoolUsage {
  /** connections checked out by a query or transaction */
  inUse: number;
  /** callers queued for a connection because all `max` are in use */
  waiting: number;
}

export function poolUsage(pool: Pool): PoolUsage {
  // pg-pool queues a caller even when a connection is idle and hands it over on the next tick
  // (a scrape's own outbox query is one): only those beyond the idle connections wait.
  return {
    inUse: pool.totalCount - pool.idleCount,
    waiting: Math.max(0, pool.waitingCount - pool.idleCount),
  };
}
