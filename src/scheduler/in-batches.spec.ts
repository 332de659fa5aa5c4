import { inBatches } from './in-batches';

describe('inBatches', () => {
  it('runs batches until one comes back short, resting after each full one as long as it took', async () => {
    const removed = [5, 5, 2];
    const calls: string[] = [];
    const total = await inBatches(
      async (size) => {
        calls.push(`batch ${size}`);
        return removed.shift()!;
      },
      5,
      async (ms) => {
        expect(ms).toBeGreaterThanOrEqual(0);
        calls.push('rest');
      },
    );
    expect(total).toBe(12);
    expect(calls).toEqual(['batch 5', 'rest', 'batch 5', 'rest', 'batch 5']);
  });

  it('does not rest when nothing more is due', async () => {
    const rest = jest.fn(async () => undefined);
    expect(await inBatches(async () => 0, 5, rest)).toBe(0);
    expect(rest).not.toHaveBeenCalled();
  });
});
