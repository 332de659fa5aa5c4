import { deleteEach } from './delete-each';

describe('deleteEach', () => {
  it('returns the items deleted, in order, and reports each failure without stopping the rest', async () => {
    const failures: [string, unknown][] = [];
    const deleted = await deleteEach(
      ['a', 'b', 'c', 'd'],
      2,
      async (key) => {
        if (key === 'b') throw new Error('storage unavailable');
      },
      (key, error) => failures.push([key, error]),
    );
    expect(deleted).toEqual(['a', 'c', 'd']);
    expect(failures).toEqual([['b', new Error('storage unavailable')]]);
  });

  it('never has more than `atOnce` deletes in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const items = Array.from({ length: 20 }, (_, i) => i);
    await deleteEach(
      items,
      3,
      async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
      },
      () => undefined,
    );
    expect(most).toBe(3);
  });
});
