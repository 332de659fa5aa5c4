import Redis from 'ioredis';
import { runId, withAdminClient } from './test-database';

/** Drops every database and Redis key this run made. */
export default async function globalTeardown(): Promise<void> {
  const id = runId();
  await withAdminClient(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`lsvc_test_${id}_%`],
    );
    for (const { datname } of rows)
      await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
  });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `t${id}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // Redis may have been stopped by a fault test; its keys then expire on their own TTLs.
  } finally {
    redis.disconnect();
  }
}
