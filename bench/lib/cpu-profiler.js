/**
 * Preloaded (`-r`) into a benchmarked process when BENCH_PROFILE_DIR is set: SIGWINCH starts the
 * V8 CPU profiler, the next SIGWINCH stops it and writes `<pid>-<n>.cpuprofile` there (open it in
 * Chrome DevTools or speedscope). Unlike `--cpu-prof`, it covers just the measured stretch and
 * does not depend on how the process exits. SIGWINCH because Nest's shutdown hooks take SIGUSR2
 * (and SIGUSR1 starts the inspector); its default action is to do nothing. Plain JavaScript:
 * the service runs from dist/.
 */
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let profiling = false;
  let written = 0;
  process.on('SIGWINCH', () => {
    if (!profiling) {
      profiling = true;
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 200 }, () =>
          session.post('Profiler.start'),
        ),
      );
      return;
    }
    profiling = false;
    session.post('Profiler.stop', (error, result) => {
      if (error) return console.error(error);
      const file = join(dir, `${process.pid}-${++written}.cpuprofile`);
      writeFileSync(file, JSON.stringify(result.profile));
      console.error(`CPU profile written to ${file}`);
    });
  });
}
