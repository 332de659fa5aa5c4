import type { Pool } from 'pg';

export interface PoolUsage {
  /** connections checked out by a query or transaction */
  inUse: number;
  /** callers queued for a connection because all `max` are in use */
  waiting: number;
}

export function poolUsage(pool: Pool): PoolUsage {
  return { inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount };
}
