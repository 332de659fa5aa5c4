import { setTimeout as sleep } from 'node:timers/promises';

/** Small: each batch is one short statement, so no lock is held for long. */
const RETENTION_BATCH = 2_000;

/**
 * Runs purge batches until one comes back short or `stopping()` turns true; returns the total
 * removed. After each full batch it rests as long as the batch took, so a backlog takes at most
 * half the database's time.
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
    await rest(performance.now() - started);
  }
  return total;
}
