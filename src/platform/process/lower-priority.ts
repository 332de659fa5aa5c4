import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { WorkerLane } from '../config/app.config';

/**
 * A worker's niceness (the lowest priority): on a host shared with the API, background work gives
 * way to requests for the CPU; 19 held the API's p95 best in the image bench (docs/performance.md).
 */
const WORKER_NICENESS = 19;

/**
 * A worker that serves only the interactive lane runs at the API's priority: it does nothing but
 * dispatch the lane's events (no background work, AppModule.forRole), its steps are short and
 * someone waits for each, and under an import it must win the CPU from the bulk work.
 */
const INTERACTIVE_WORKER_NICENESS = 0;

export function workerNiceness(lanes: readonly WorkerLane[]): number {
  return lanes.includes('bulk') ? WORKER_NICENESS : INTERACTIVE_WORKER_NICENESS;
}

/**
 * Lowers the OS priority of every thread of this process to `nice`. On Linux a priority belongs
 * to a thread and os.setPriority() without a pid sets only the calling one, so each thread in
 * /proc/self/task is set (libuv's pool among them); threads started later inherit from their starter.
 * Never raises it: a process started lower (say under `nice`) stays there, since raising needs a
 * privilege a worker lacks (the interactive worker asks for 0).
 */
export function lowerProcessPriority(nice: number): void {
  nice = Math.max(nice, getPriority());
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0]; // no /proc (not Linux): the calling thread, as the platform allows
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch (error) {
      // A thread that ended since the listing; anything else is a real failure.
      if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') throw error;
    }
  }
}
