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
  /** how long ago a connection last came back without an error: the server answered then */
  lastAnswerAgoMs: number;
}

/** When each watched pool last had a connection handed back without an error. */
const lastAnswers = new WeakMap<Pool, number>();

/**
 * Starts noting when the pool's connections come back without an error (a query or transaction
 * ended, so the server answered). A pool whose connections are all out and none has come back
 * for a while is waiting on a server that does not answer, not merely busy.
 */
export function watchAnswers(pool: Pool): void {
  if (lastAnswers.has(pool)) return;
  lastAnswers.set(pool, Date.now());
  pool.on('release', (error: Error | undefined) => {
    if (!error) lastAnswers.set(pool, Date.now());
  });
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
    lastAnswerAgoMs: Date.now() - (lastAnswers.get(pool) ?? 0),
  };
}

/** TypeORM's pool, which every write and transaction uses. */
export function writePoolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

export function writePoolUsage(dataSource: DataSource): PoolUsage {
  return poolUsage(writePoolOf(dataSource));
}
