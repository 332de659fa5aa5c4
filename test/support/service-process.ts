import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A free TCP port on 127.0.0.1 (bound and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<Exit>;
  stop: (signal?: NodeJS.Signals) => Promise<Exit>;
  /** Everything the process has written to stdout so far (its logs), line by line. */
  stdoutLines: () => string[];
}

/**
 * Runs the compiled dist/main.js in its own process, as production would, and waits until it is
 * ready. The slow tier's global set-up builds dist/ first (see build-dist.ts).
 */
export async function startServiceProcess(
  env: Record<string, string | undefined>,
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '../../dist/main.js')], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: env.LOG_LEVEL ?? 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (env.PROCESS_ROLE === 'worker') break;
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    if (
      await fetch(`${baseUrl}/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    baseUrl,
    exited,
    stdoutLines: () => stdout.split('\n').filter(Boolean),
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
