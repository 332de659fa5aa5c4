import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { RedisThrottlerStorage } from '../../src/rate-limit/redis-throttler.storage';
import { runId } from '../support/test-database';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Lua window against the real Redis, with windows short enough to watch them slide. */
describe('Sliding window in Redis', () => {
  let redis: Redis;
  let storage: RedisThrottlerStorage;
  const key = () => `k${randomBytes(4).toString('hex')}`;

  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    // The run's prefix, so the global teardown removes these keys.
    storage = new RedisThrottlerStorage(redis, `t${runId()}sw:rl`);
  });
  afterAll(() => redis.quit());

  it('admits `limit` requests, then refuses until the oldest leaves the window', async () => {
    const k = key();
    for (let i = 1; i <= 3; i++) {
      expect(await storage.increment(k, 1_000, 3)).toMatchObject({
        totalHits: i,
        isBlocked: false,
      });
    }
    expect(await storage.increment(k, 1_000, 3)).toEqual({
      totalHits: 4,
      timeToExpire: 1,
      isBlocked: true,
      timeToBlockExpire: 1,
    });
    await sleep(1_050);
    expect(await storage.increment(k, 1_000, 3)).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('slides: slots free one by one as their requests age out, not all at a boundary', async () => {
    const k = key();
    await storage.increment(k, 2_000, 2);
    await sleep(1_000);
    await storage.increment(k, 2_000, 2);
    expect((await storage.increment(k, 2_000, 2)).isBlocked).toBe(true);
    // The first request leaves the window; the second stays in it for another 900 ms or so.
    await sleep(1_100);
    expect(await storage.increment(k, 2_000, 2)).toMatchObject({ totalHits: 2, isBlocked: false });
    expect((await storage.increment(k, 2_000, 2)).isBlocked).toBe(true);
  });

  it('does not count refused requests, so hammering does not extend the wait', async () => {
    const k = key();
    await storage.increment(k, 1_000, 1);
    for (let i = 0; i < 10; i++) await storage.increment(k, 1_000, 1);
    expect(await redis.zcard(`t${runId()}sw:rl:${k}`)).toBe(1);
  });

  it('admits exactly `limit` of many simultaneous requests', async () => {
    const k = key();
    const records = await Promise.all(
      Array.from({ length: 60 }, () => storage.increment(k, 60_000, 25)),
    );
    expect(records.filter((r) => !r.isBlocked)).toHaveLength(25);
  });

  it('lets the key expire with the window', async () => {
    const k = key();
    await storage.increment(k, 1_000, 5);
    const ttl = await redis.pttl(`t${runId()}sw:rl:${k}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);
  });
});
