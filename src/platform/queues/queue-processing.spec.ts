import Bull, { Queue } from 'bull';
import Redis, { RedisOptions } from 'ioredis';
import { settleWorkerNaming, startProcessing } from './queue-processing';

describe('a queue processing loop', () => {
  it('ends quietly when the queue closes before Redis was ever reached', async () => {
    // Bull's close() leaves a client that never connected retrying: each one is ended at the end.
    const clients: Redis[] = [];
    const createClient = (_type: string, options?: RedisOptions) => {
      // Port 1 refuses at once.
      const client = new Redis(1, '127.0.0.1', options ?? {});
      clients.push(client);
      return client;
    };
    try {
      // Bull's own process() rejected on about six closes in ten here.
      for (let i = 0; i < 10; i++) {
        const queue = new Bull(`closing-${i}`, { createClient });
        settleWorkerNaming(queue);
        const loop = startProcessing(queue, 1, async () => undefined);
        await queue.close();
        await expect(loop).resolves.toBeUndefined();
      }
    } finally {
      clients.forEach((client) => client.disconnect());
    }
  }, 30_000);

  it('rejects when the loop fails while the queue is open', async () => {
    const failure = new Error('Redis went away for good');
    const queue = { process: () => Promise.reject(failure) } as unknown as Queue;
    await expect(startProcessing(queue, 1, async () => undefined)).rejects.toBe(failure);
  });
});
