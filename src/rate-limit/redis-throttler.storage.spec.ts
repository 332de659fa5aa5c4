import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import {
  RedisThrottlerStorage,
  SKIP_REDIS_AFTER_FAILURE_MS,
  toStorageRecord,
} from './redis-throttler.storage';

describe('RedisThrottlerStorage', () => {
  describe('toStorageRecord', () => {
    it('reports an admitted request with the seconds until a slot frees, rounded up', () => {
      expect(toStorageRecord([1, 3, 59_001])).toEqual({
        totalHits: 3,
        timeToExpire: 60,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
    });

    it('reports a refused request one past the limit, blocked until a slot frees', () => {
      expect(toStorageRecord([0, 30, 12_400])).toEqual({
        totalHits: 31,
        timeToExpire: 13,
        isBlocked: true,
        timeToBlockExpire: 13,
      });
    });

    it('never says 0 seconds: a slot freeing this instant is still a second away for the client', () => {
      expect(toStorageRecord([0, 30, 0]).timeToBlockExpire).toBe(1);
    });
  });

  describe('talking to Redis', () => {
    const reply: [number, number, number] = [1, 1, 60_000];
    let warn: jest.SpyInstance;
    let log: jest.SpyInstance;

    beforeEach(() => {
      warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    });
    afterEach(() => jest.restoreAllMocks());

    it('prefixes the key and sends the script by hash, with a member unique to the request', async () => {
      const evalsha = jest.fn().mockResolvedValue(reply);
      const storage = new RedisThrottlerStorage({ evalsha } as unknown as Redis, 'lsvc:rl');
      await storage.increment('write:key-1', 60_000, 30);
      await storage.increment('write:key-1', 60_000, 30);
      const [first, second] = evalsha.mock.calls;
      expect(first.slice(0, 5)).toEqual([
        expect.stringMatching(/^[0-9a-f]{40}$/),
        1,
        'lsvc:rl:write:key-1',
        60_000,
        30,
      ]);
      expect(first[5]).not.toEqual(second[5]);
    });

    it('sends the script itself when Redis does not know it yet', async () => {
      const evalsha = jest.fn().mockRejectedValue(new Error('NOSCRIPT No matching script.'));
      const evalScript = jest.fn().mockResolvedValue(reply);
      const storage = new RedisThrottlerStorage(
        { evalsha, eval: evalScript } as unknown as Redis,
        'lsvc:rl',
      );
      await expect(storage.increment('read:k', 60_000, 300)).resolves.toMatchObject({
        totalHits: 1,
      });
      expect(evalScript).toHaveBeenCalledWith(
        expect.stringContaining('ZREMRANGEBYSCORE'),
        1,
        'lsvc:rl:read:k',
        60_000,
        300,
        expect.any(String),
      );
    });

    it('throws while Redis fails, logging the outage once and the recovery once', async () => {
      let now = 1_000_000;
      jest.spyOn(Date, 'now').mockImplementation(() => now);
      const evalsha = jest.fn().mockRejectedValue(new Error("Stream isn't writeable"));
      const storage = new RedisThrottlerStorage({ evalsha } as unknown as Redis, 'lsvc:rl');
      for (let i = 0; i < 5; i++) {
        await expect(storage.increment('read:k', 60_000, 300)).rejects.toThrow('writeable');
        now += SKIP_REDIS_AFTER_FAILURE_MS;
      }
      expect(evalsha).toHaveBeenCalledTimes(5);
      expect(warn).toHaveBeenCalledTimes(1);
      evalsha.mockResolvedValue(reply);
      await storage.increment('read:k', 60_000, 300);
      await storage.increment('read:k', 60_000, 300);
      expect(log).toHaveBeenCalledTimes(1);
    });

    it('after a failure, fails at once without asking Redis for a while (a Redis that hangs)', async () => {
      let now = 1_000_000;
      jest.spyOn(Date, 'now').mockImplementation(() => now);
      const evalsha = jest.fn().mockRejectedValue(new Error('Command timed out'));
      const storage = new RedisThrottlerStorage({ evalsha } as unknown as Redis, 'lsvc:rl');
      await expect(storage.increment('read:k', 60_000, 300)).rejects.toThrow('timed out');
      now += SKIP_REDIS_AFTER_FAILURE_MS - 1;
      for (let i = 0; i < 10; i++)
        await expect(storage.increment('read:k', 60_000, 300)).rejects.toThrow('timed out');
      expect(evalsha).toHaveBeenCalledTimes(1);
      // then Redis is asked again, and answers
      now += 1;
      evalsha.mockResolvedValue(reply);
      await expect(storage.increment('read:k', 60_000, 300)).resolves.toMatchObject({
        totalHits: 1,
      });
      expect(evalsha).toHaveBeenCalledTimes(2);
    });
  });
});
