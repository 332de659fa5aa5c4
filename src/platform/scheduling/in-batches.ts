import { setTimeout as sleep } from 'node:timers/promises';

/** Small: each batch is one short statement, so no lock is held for long. */
const RETENTION_BATCH = 2_000;
/** Rest after a full batch, in that batch's times: a backlog takes at most a third of the database. */
const REST_PER_BATCH = 2;

/**
 * Runs purge batches until one comes back short or `stopping()` turns true; returns the total
 * removed. After each full batch it rests twice as long as the batch took, so a purge's backlog
 * gives way to the writers beside it (docs/performance.md, "The purge and concurrent writes").
 */
export async function inBatches(
  batch: (size: number) => Promise<number>,
  stopping: () => boolean = () => false,
  size = RETENTION_BATCH,
  rest: (ms: number) => Promise<unknown> = sleep,
): Promise<number> {
  let total = 0;
  while (!stopping()) {
    const started = performance.now();
    const removed = await batch(size);
    total += removed;
    if (removed < size) return total;
    await rest((performance.now() - started) * REST_PER_BATCH);
  }
  return total;
}
