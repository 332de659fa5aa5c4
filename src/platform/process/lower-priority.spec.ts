import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The nice value of every thread of a child (started under `nice -n started`) that started
 * libuv's pool, then lowered itself to `asked`.
 */
function childThreadNices(started: number, asked: number): number[] {
  const script = `
    const { lowerProcessPriority } = require(${JSON.stringify(join(__dirname, 'lower-priority'))});
    const { readdirSync, readFileSync } = require('node:fs');
    const { pbkdf2 } = require('node:crypto');
    // Four pool jobs at once start libuv's pool threads before the priority is lowered.
    const jobs = Array.from({ length: 4 }, () => new Promise((r) => pbkdf2('k', 's', 1e5, 32, 'sha256', r)));
    Promise.all(jobs).then(() => {
      lowerProcessPriority(${asked});
      const nices = readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
      process.stdout.write(JSON.stringify(nices));
    });
  `;
  const out = execFileSync('nice', [
    '-n',
    String(started),
    process.execPath,
    '-r',
    'ts-node/register/transpile-only',
    '-e',
    script,
  ]);
  return JSON.parse(out.toString()) as number[];
}

describe('lowerProcessPriority', () => {
  it('lowers every thread, including the pool threads started before it', () => {
    const nices = childThreadNices(0, 7);
    // main, V8's platform threads and libuv's four pool threads at least
    expect(nices.length).toBeGreaterThanOrEqual(6);
    expect(new Set(nices)).toEqual(new Set([7]));
  });

  it('never raises a priority: a process started lower stays where it started', () => {
    expect(new Set(childThreadNices(5, 0))).toEqual(new Set([5]));
  });
});
