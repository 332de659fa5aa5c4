/**
 * Preloaded into the API process by the bench when BENCH_PROFILE is set
 * (`node -r ts-node/register/transpile-only -r bench/lib/cpu-profile.ts`): SIGWINCH starts V8's
 * CPU profiler, the next SIGWINCH stops it and writes the profile to
 * $CPU_PROFILE_DIR/api-<n>.cpuprofile (open it in Chrome DevTools, or summarise it with
 * bench/lib/profile-summary.ts). Unlike --cpu-prof, it profiles only the runs asked for and does
 * not depend on a clean exit (Nest re-raises SIGTERM). SIGWINCH because nothing else in the
 * process listens to it: Nest's shutdown hooks take SIGUSR2, Node's inspector SIGUSR1.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const session = new Session();
session.connect();
let running = false;
let written = 0;

process.on('SIGWINCH', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 200 }, () =>
        session.post('Profiler.start'),
      ),
    );
    return;
  }
  running = false;
  session.post('Profiler.stop', (error, result) => {
    if (error) return console.error(error);
    const file = join(process.env.CPU_PROFILE_DIR ?? '.', `api-${++written}.cpuprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
    console.error(`CPU profile written to ${file}`);
  });
});
