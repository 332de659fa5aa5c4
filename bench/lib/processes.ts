import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The node flag the Dockerfile (and `npm run start:prod`) runs the service with: see the Dockerfile. */
export const DEPLOYED_HEAP_FLAG = '--heap-growing-percent=100';

export interface Started {
  child: ChildProcess;
  stop: () => Promise<void>;
  /** resident memory in MB, read from /proc */
  rssMb: () => number;
}

/**
 * BENCH_PIN_CORE=<cpu list> (taskset's syntax, e.g. `0`) runs the processes started with
 * `pin: true` on those cores only: a stand-in for a slower machine.
 */
const PIN_CORE = process.env.BENCH_PIN_CORE;

/**
 * Starts a node process and waits until `readyUrl` answers 200 (a worker has no HTTP: none).
 * `pin`: restricted to BENCH_PIN_CORE when that is set.
 */
export async function startNode(
  args: string[],
  env: Record<string, string>,
  readyUrl?: string,
  { pin = false }: { pin?: boolean } = {},
): Promise<Started> {
  // taskset execs node, so the child's pid is node's.
  const [command, commandArgs] =
    pin && PIN_CORE
      ? ['taskset', ['-c', PIN_CORE, process.execPath, ...args]]
      : [process.execPath, args];
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const script = args[args.length - 1];
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!readyUrl) break;
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await fetch(readyUrl)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${script} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    rssMb: () => {
      try {
        const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb ? Math.round(Number(kb) / 1024) : 0;
      } catch {
        return 0;
      }
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Samples a process's RSS while `work` runs; returns the work's result and the peak. */
export async function withPeakRss<T>(
  process: Started,
  work: () => Promise<T>,
): Promise<{ result: T; peakRssMb: number }> {
  let peak = process.rssMb();
  const timer = setInterval(() => (peak = Math.max(peak, process.rssMb())), 250);
  try {
    return { result: await work(), peakRssMb: peak };
  } finally {
    clearInterval(timer);
  }
}
