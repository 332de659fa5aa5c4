import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the OS priority of every thread of this process to `nice`. On Linux a priority belongs
 * to a thread, and os.setPriority() without a pid changes only the calling one: libuv's pool
 * threads, often started while modules load, kept 0, and so did the libvips threads they start.
 * Threads started later inherit from their starter, so after this call every thread runs at `nice`.
 */
export function lowerProcessPriority(nice: number): void {
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0]; // no /proc (not Linux): the calling thread, as the platform allows
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch {
      // a thread that ended since the listing
    }
  }
}
