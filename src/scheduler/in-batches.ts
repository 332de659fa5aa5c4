/** Small: each batch is one short statement, so no lock is held for long. */
const RETENTION_BATCH = 2_000;

/** Runs a purge batch after batch until one comes back short; returns the total removed. */
export async function inBatches(
  batch: (size: number) => Promise<number>,
  size = RETENTION_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await batch(size);
    total += removed;
    if (removed < size) return total;
  }
}
