import Bull, { Queue } from 'bull';
import { randomUUID } from 'node:crypto';
import { stalledJobSettings } from '../../src/platform/queues/stalled-jobs';

const LOCK_MS = 2_000;
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A worker that dies holding a job (its lock no longer renewed) must not keep it from the other
 * workers much longer than the lock: imports wait on it (one runs at a time per account), and
 * webhook deliveries are owed. Real Bull on Redis; the dead worker is a queue closed without
 * waiting for its job, so its lock runs out as a killed process's does.
 */
describe('A job whose worker died', () => {
  const queues: Queue[] = [];
  const prefix = `stalled-test-${randomUUID()}`;
  const open = () => {
    const queue = new Bull('jobs', REDIS, { prefix, settings: stalledJobSettings(LOCK_MS) });
    queues.push(queue);
    return queue;
  };
  afterAll(async () => {
    const [first] = queues;
    await first?.obliterate({ force: true }).catch(() => undefined);
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
  });

  it('goes to a live worker within about one and a half locks after the last renewal', async () => {
    const dead = open();
    let taken!: () => void;
    const takenByDead = new Promise<void>((resolve) => (taken = resolve));
    void dead.process(async () => {
      taken();
      return new Promise(() => undefined); // never finishes: the worker dies first
    });
    await dead.add({}, { jobId: 'import-1', attempts: 1 });
    await takenByDead;
    const diedAt = Date.now();
    await dead.close(true); // stops renewing its lock, leaves the job active

    const live = open();
    const takenAt = await new Promise<number>((resolve) => {
      void live.process(async () => resolve(Date.now()));
    });
    // The lock runs out at most LOCK_MS after the death; then at most two checks a fifth apart.
    expect(takenAt - diedAt).toBeLessThan(LOCK_MS * 1.5 + 500);
  });
});
