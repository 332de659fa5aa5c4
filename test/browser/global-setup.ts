import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ensureBuiltDist } from '../support/build-dist';
import { startServiceProcess } from '../support/service-process';
import { databaseUrl, withAdminClient } from '../support/test-database';
import { BROWSER_ADMIN_TOKEN } from './service';

/**
 * Builds dist/ when stale, makes a database and a Redis prefix of this run, and starts the
 * service (API and worker in one process, migrations on start, mail kept in the outbox). The
 * returned function stops it and drops everything it made.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  ensureBuiltDist();
  const id = randomBytes(4).toString('hex');
  const database = `lsvc_browser_${id}`;
  const redisPrefix = `b${id}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE "${database}"`));
  const service = await startServiceProcess({
    PROCESS_ROLE: 'all',
    DATABASE_URL: databaseUrl(database),
    REDIS_KEY_PREFIX: redisPrefix,
    ADMIN_TOKEN: BROWSER_ADMIN_TOKEN,
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    DASHBOARD_COOKIE_SECURE: 'false',
    SMTP_URL: '',
    WEBHOOK_ALLOW_HTTP: 'true',
    FETCH_ALLOW_PRIVATE_TARGETS: 'true',
    SHUTDOWN_DRAIN_MS: '0',
    // A journey may name its client address (X-Forwarded-For), e.g. to reach the lockout.
    TRUST_PROXY: '1',
  });
  process.env.DASHBOARD_TEST_URL = service.baseUrl;

  return async () => {
    await service.stop();
    await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  };
}
