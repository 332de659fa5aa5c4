import { setTimeout as sleep } from 'node:timers/promises';

/** Small: each batch is one short statement, so no lock is held for long. */
const RETENTION_BATCH = 2_000;

/**
 * Runs a purge batch after batch until one comes back short; returns the total removed. Between
 * full batches it rests as long as the last batch took, so a large backlog (a million rows due at
 * once) takes at most half of the database's time from the writers, however fast the machine:
 * the purge is background work, the writers are not.
 */
export async function inBatches(
  batch: (size: number) => Promise<number>,
  size = RETENTION_BATCH,
  rest: (ms: number) => Promise<unknown> = sleep,
): Promise<number> {
  let total = 0;
  for (;;) {
    const started = performance.now();
    const removed = await batch(size);
    total += removed;
    if (removed < size) return total;
    await rest(performance.now() - started);
  }
}
