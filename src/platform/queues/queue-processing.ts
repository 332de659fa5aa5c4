import type { ProcessPromiseFunction, Queue } from 'bull';

/** Bull leaves a failed (cosmetic) connection naming unhandled, crashing the process: drop it. */
export function settleWorkerNaming(queue: Queue): void {
  const setWorkerName = queue.setWorkerName.bind(queue);
  queue.setWorkerName = () => setWorkerName().catch(() => undefined);
}

/** Resolves on a normal shutdown; any other stop rejects, so the process ends and is restarted. */
export async function startProcessing<T>(
  queue: Queue<T>,
  concurrency: number,
  handler: ProcessPromiseFunction<T>,
): Promise<void> {
  try {
    await queue.process(concurrency, handler);
  } catch (error) {
    // Bull sets `closing` as `close()` begins; it is not in its typings.
    if (!(queue as Queue<T> & { closing?: unknown }).closing) throw error;
  }
}
