import { inBatches } from './in-batches';

describe('inBatches', () => {
  afterEach(() => jest.restoreAllMocks());

  it('runs batches until one comes back short, resting after each full one twice as long as it took', async () => {
    const removed = [5, 5, 2];
    // Each batch takes the time the clock is moved on by while it runs: 40 ms, then 70 ms.
    const took = [40, 70, 10];
    let now = 1_000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    const calls: string[] = [];
    const total = await inBatches(
      async (size) => {
        calls.push(`batch ${size}`);
        now += took.shift()!;
        return removed.shift()!;
      },
      () => false,
      5,
      async (ms) => {
        calls.push(`rest ${ms}`);
      },
    );
    expect(total).toBe(12);
    expect(calls).toEqual(['batch 5', 'rest 80', 'batch 5', 'rest 140', 'batch 5']);
  });

  it('ends after the batch in progress once the worker is stopping', async () => {
    let stopping = false;
    const sizes: number[] = [];
    const total = await inBatches(
      async (size) => {
        sizes.push(size);
        stopping = true;
        return size;
      },
      () => stopping,
      5,
      async () => undefined,
    );
    expect(total).toBe(5);
    expect(sizes).toEqual([5]);
  });

  it('does not rest when nothing more is due', async () => {
    const rest = jest.fn(async () => undefined);
    expect(
      await inBatches(
        async () => 0,
        () => false,
        5,
        rest,
      ),
    ).toBe(0);
    expect(rest).not.toHaveBeenCalled();
  });
});
