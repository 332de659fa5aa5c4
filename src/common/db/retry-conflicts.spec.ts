import { QueryFailedError } from 'typeorm';
import { retryingConflicts } from './retry-conflicts';

/** An error as TypeORM throws it for a statement PostgreSQL refused with `code`. */
const pgError = (code: string) =>
  new QueryFailedError('UPDATE listings …', [], Object.assign(new Error('refused'), { code }));

describe('retryingConflicts', () => {
  it.each([
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('runs the transaction again after %s', async (_name, code) => {
    const outcomes = [pgError(code), pgError(code), 'done'];
    const transaction = jest.fn(async () => {
      const next = outcomes.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    await expect(retryingConflicts(transaction)).resolves.toBe('done');
    expect(transaction).toHaveBeenCalledTimes(3);
  });

  it('gives up after four runs, with the conflict', async () => {
    const transaction = jest.fn(async () => {
      throw pgError('40P01');
    });
    await expect(retryingConflicts(transaction)).rejects.toThrow('refused');
    expect(transaction).toHaveBeenCalledTimes(4);
  });

  it('does not run again after any other error', async () => {
    const transaction = jest.fn(async () => {
      throw pgError('23505');
    });
    await expect(retryingConflicts(transaction)).rejects.toThrow('refused');
    expect(transaction).toHaveBeenCalledTimes(1);
  });
});
