import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The node flag the Dockerfile (and `npm run start:prod`) runs the service with: see the Dockerfile. */
export const DEPLOYED_HEAP_FLAG = '--heap-growing-percent=100';

/** The malloc settings the Dockerfile's ENV (and `npm run start:prod`) give the service: see there. */
export const DEPLOYED_MALLOC_ENV: Record<string, string> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_ARENA_MAX: '2',
};

export interface Started {
  child: ChildProcess;
  stop: () => Promise<void>;
  /** resident memory in MB, read from /proc */
  rssMb: () => number;
}

/**
 * Starts a node process and waits until `readyUrl` answers 200 (a worker has no HTTP: none).
 * `cpus` (a taskset list such as "0") pins it to those cores: `taskset` execs node, so the
 * child's pid is node's.
 */
export async function startNode(
  args: string[],
  env: Record<string, string>,
  readyUrl?: string,
  cpus?: string,
): Promise<Started> {
  const [command, commandArgs] = cpus
    ? ['taskset', ['-c', cpus, process.execPath, ...args]]
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

/** CPU time (user + system) a process has used, in ms, from /proc; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    // The fields after the command name (which may hold spaces) start at the state, field 3.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time of each PostgreSQL process on the machine, in ms, by pid (a sample for postgresCpuMsSince). */
export function postgresCpuSample(): Map<number, number> {
  const sample = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'postgres') sample.set(Number(entry), cpuMs(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return sample;
}

/**
 * CPU time PostgreSQL's processes used since `before`, in ms: per process, so that one that exits
 * meanwhile (an autovacuum worker, a backend) drops out instead of subtracting all the time it had
 * ever used, as a difference of two machine-wide sums did (it printed negative figures). Its time
 * within the window is lost, so use it across runs whose connections stay open. Anything else
 * using the same server (another checkout's tests) counts too.
 */
export function postgresCpuMsSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresCpuSample()) total += ms - (before.get(pid) ?? 0);
  return total;
}
