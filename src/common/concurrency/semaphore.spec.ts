import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('runs at most `size` tasks at once, the rest in arrival order, failures included', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = Array.from({ length: 5 }, (_, i) =>
      semaphore.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        if (i === 1) throw new Error('task 1 failed');
        return i;
      }),
    );
    const settled = Promise.allSettled(tasks);
    while (started.length < 5 || releases.length > 0) {
      await new Promise((r) => setImmediate(r));
      releases.shift()?.();
    }
    const outcomes = await settled;
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
  });
});
