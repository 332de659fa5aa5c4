import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';
import type { WorkerLane } from '../config/app.config';

/**
 * A worker's OS priorities (niceness, 19 the lowest): its event loop's and that of libuv's pool,
 * where sharp, zlib and file work run (libvips' own threads start from the pool's and inherit it).
 */
export interface WorkerPriority {
  eventLoop: number;
  pool: number;
}

/**
 * The bulk worker gives way to everything: on a host shared with the API, 19 held the API's p95
 * best in the image bench (docs/performance.md). The interactive worker's event loop runs at the
 * API's and PostgreSQL's priority: each step of a sale (relay, fan-out, delivery) is short and
 * someone waits for it, and at 10 it waited behind the import's database backends (a sale during
 * a 100,000-line import, docs/performance.md). Its pool, the image renders, stays at 10 so that
 * a burst of images still gives way to the API.
 */
export function workerPriority(lanes: readonly WorkerLane[]): WorkerPriority {
  return lanes.includes('bulk') ? { eventLoop: 19, pool: 19 } : { eventLoop: 0, pool: 10 };
}

/**
 * Sets every thread of this process to `eventLoop`, then starts libuv's pool and sets the threads
 * it started to `pool`. Call it before anything uses the pool: the threads that exist by then
 * count as the event loop's (main and V8's own).
 */
export async function setWorkerPriority({ eventLoop, pool }: WorkerPriority): Promise<void> {
  lowerProcessPriority(eventLoop);
  if (pool === eventLoop) return;
  const before = new Set(threadIds());
  await stat(__filename); // libuv starts all of its pool's threads for the first job
  setThreads(
    threadIds().filter((thread) => !before.has(thread)),
    pool,
  );
}

/**
 * Lowers the OS priority of every thread of this process to `nice`. On Linux a priority belongs
 * to a thread and os.setPriority() without a pid sets only the calling one, so each thread in
 * /proc/self/task is set (libuv's pool among them); threads started later inherit from their starter.
 * Never raises it: a process started lower (say under `nice`) stays there.
 */
export function lowerProcessPriority(nice: number): void {
  setThreads(threadIds(), nice);
}

function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [0]; // no /proc (not Linux): the calling thread, as the platform allows
  }
}

function setThreads(threads: number[], nice: number): void {
  nice = Math.max(nice, getPriority()); // raising a priority needs a privilege a worker lacks
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch (error) {
      // A thread that ended since the listing; anything else is a real failure.
      if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') throw error;
    }
  }
}
