import { Batcher } from './batcher';

/** A run function that records its batches and answers when told to. */
function recorder() {
  const batches: number[][] = [];
  const answers: (() => void)[] = [];
  const run = (items: number[]) =>
    new Promise<number[]>((resolve) => {
      batches.push(items);
      answers.push(() => resolve(items.map((n) => n * 10)));
    });
  return { batches, answers, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('runs a lone call at once, and gathers the calls made meanwhile into the next batch', async () => {
    const { batches, answers, run } = recorder();
    const batcher = new Batcher(run, 100);
    const first = batcher.add(1);
    await tick();
    expect(batches).toEqual([[1]]);
    const later = [batcher.add(2), batcher.add(3), batcher.add(4)];
    await tick();
    expect(batches).toEqual([[1]]);
    answers[0]();
    expect(await first).toBe(10);
    await tick();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    answers[1]();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('never puts more than maxBatch calls in one batch', async () => {
    const { batches, answers, run } = recorder();
    const batcher = new Batcher(run, 2);
    const all = [1, 2, 3, 4, 5].map((n) => batcher.add(n));
    for (let i = 0; i < 3; i++) {
      await tick();
      answers[i]();
    }
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
    // The first call went alone, at once.
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('gives every caller of a failed batch its error, and goes on with the next batch', async () => {
    let calls = 0;
    const batcher = new Batcher(async (items: number[]) => {
      if (++calls === 2) throw new Error('database away');
      return items;
    }, 2);
    const all = [1, 2, 3, 4].map((n) => batcher.add(n).catch((error: Error) => error.message));
    expect(await Promise.all(all)).toEqual([1, 'database away', 'database away', 4]);
  });
});
