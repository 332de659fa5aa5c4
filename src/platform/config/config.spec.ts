import { appConfig } from './app.config';
import { databaseConfig } from './database.config';
import { eventsConfig } from './events.config';
import { imagesConfig } from './images.config';
import { importsConfig } from './imports.config';
import { listingsConfig } from './listings.config';
import { metricsConfig } from './metrics.config';
import { outboundConfig } from './outbound.config';
import { storageConfig } from './storage.config';
import { webhooksConfig } from './webhooks.config';
import { workerNiceness } from '../process/lower-priority';

function withEnv<T>(env: Record<string, string>, fn: () => T): T {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return fn();
  } finally {
    process.env = saved;
  }
}

describe('config validation', () => {
  it('refuses delivery records kept shorter than events, naming DELIVERY_RETENTION', () => {
    expect(() =>
      withEnv({ EVENT_RETENTION: '30d', DELIVERY_RETENTION: '7d' }, () => eventsConfig()),
    ).toThrow(/DELIVERY_RETENTION="7d": must be at least EVENT_RETENTION/);
    expect(
      withEnv({ EVENT_RETENTION: '7d', DELIVERY_RETENTION: '30d' }, () => eventsConfig())
        .deliveryRetentionMs,
    ).toBe(30 * 24 * 3600 * 1000);
  });

  it('fills sensible defaults for local use', () => {
    const saved = { ...process.env };
    for (const k of [
      'PORT',
      'PROCESS_ROLE',
      'LISTING_VALIDITY',
      'DATABASE_URL',
      'API_KEY_CACHE_TTL_MS',
      'WORKER_LANES',
    ])
      delete process.env[k];
    try {
      expect(appConfig()).toMatchObject({
        port: 3000,
        processRole: 'all',
        publicBaseUrl: 'http://localhost:3000',
        apiKeyCacheTtlMs: 4_000,
        workerLanes: ['interactive', 'bulk'],
      });
      expect(listingsConfig().validityMs).toBe(30 * 24 * 3600 * 1000);
      expect(databaseConfig().url).toBe('postgres://postgres@127.0.0.1:5432/listings');
    } finally {
      process.env = saved;
    }
  });

  it.each([
    ['PORT', 'abc', appConfig],
    ['PORT', '70000', appConfig],
    ['PROCESS_ROLE', 'both', appConfig],
    ['WORKER_LANES', 'imports', appConfig],
    ['WORKER_LANES', 'interactive,', appConfig],
    ['WORKER_LANES', ' , ', appConfig],
    ['DATABASE_URL', 'mysql://x', databaseConfig],
    ['DB_STATEMENT_TIMEOUT', 'forever', databaseConfig],
    ['DB_IDLE_IN_TRANSACTION_TIMEOUT', '0', databaseConfig],
    ['LISTING_VALIDITY', 'forever', listingsConfig],
    ['EXPIRY_SWEEP_EVERY', '-5s', listingsConfig],
    ['WEBHOOK_RETRY_SCHEDULE', '5m,,1h', webhooksConfig],
    ['WEBHOOK_RETRY_SCHEDULE', 'soon', webhooksConfig],
    ['WEBHOOK_ALLOW_HTTP', 'yes', webhooksConfig],
    ['FETCH_ALLOW_PRIVATE_TARGETS', 'yes', outboundConfig],
    ['IMPORT_CONCURRENCY', '0', importsConfig],
    ['IMPORT_CONCURRENCY', '17', importsConfig],
    ['STORAGE_DRIVER', 'gcs', storageConfig],
    ['S3_ENDPOINT', 'ftp://minio:9000', storageConfig],
    ['S3_PREFIX', '/media/', storageConfig],
    ['S3_PREFIX', 'media', storageConfig],
    ['S3_PREFIX', '../media/', storageConfig],
    ['S3_PREFIX', 'media/../', storageConfig],
    ['S3_PREFIX', 'media//', storageConfig],
    ['S3_PREFIX', 'me dia/', storageConfig],
    ['METRICS_PORT', '70000', metricsConfig],
    ['METRICS_ON_API_PORT', 'yes', metricsConfig],
    ['TRUST_PROXY', 'true', appConfig],
    ['IMAGE_DECODE_CONCURRENCY', '0', storageConfig],
    ['IMAGE_CONCURRENCY', '-1', imagesConfig],
    ['IMAGE_CONCURRENCY', 'two', imagesConfig],
    ['IMAGE_RETRY_DELAYS', '1m,,1h', imagesConfig],
    ['IMAGE_RETRY_DELAYS', '1m,10m,1h,2h,3h,4h', imagesConfig],
    ['IMAGE_FETCH_TIMEOUT', 'forever', imagesConfig],
    ['IMAGE_DISPATCH_BATCH', '0', imagesConfig],
    ['TRUST_PROXY', 'false', appConfig],
    ['TRUST_PROXY', '10.0.0.1, example.com', appConfig],
    ['TRUST_PROXY', '10.0.0.0/33', appConfig],
    ['API_KEY_CACHE_TTL_MS', '5000', appConfig],
    ['API_KEY_CACHE_TTL_MS', '-1', appConfig],
    ['API_KEY_CACHE_TTL_MS', '2s', appConfig],
  ] as [string, string, () => unknown][])(
    'rejects %s=%s, naming the variable',
    (name, value, loader) => {
      expect(() => withEnv({ [name]: value }, loader)).toThrow(
        new RegExp(`^Invalid configuration:[\\s\\S]*${name}=`),
      );
    },
  );

  it('writes S3 objects under media/ unless S3_PREFIX says otherwise', () => {
    const s3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'shared' };
    expect(withEnv(s3, storageConfig).s3?.prefix).toBe('media/');
    expect(withEnv({ ...s3, S3_PREFIX: 'listings/media-1/' }, storageConfig).s3?.prefix).toBe(
      'listings/media-1/',
    );
  });

  it("takes WORKER_LANES as one lane or both, and sets a worker's niceness by them", () => {
    expect(withEnv({ WORKER_LANES: 'interactive' }, appConfig).workerLanes).toEqual([
      'interactive',
    ]);
    expect(withEnv({ WORKER_LANES: 'bulk, interactive,bulk' }, appConfig).workerLanes).toEqual([
      'bulk',
      'interactive',
    ]);
    expect(workerNiceness(['interactive'])).toBeLessThan(workerNiceness(['bulk']));
    expect(workerNiceness(['interactive', 'bulk'])).toBe(workerNiceness(['bulk']));
  });

  it('takes TRUST_PROXY as a hop count or proxy addresses', () => {
    expect(withEnv({ TRUST_PROXY: '1' }, appConfig).trustProxy).toBe(1);
    expect(
      withEnv({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,loopback' }, appConfig).trustProxy,
    ).toEqual(['10.0.0.1', '10.1.0.0/16', 'loopback']);
  });

  it('parses durations and retry schedules', () => {
    expect(
      withEnv({ LISTING_VALIDITY: '90s', EXPIRY_SWEEP_EVERY: '500' }, listingsConfig),
    ).toMatchObject({
      validityMs: 90_000,
      expirySweepEveryMs: 500,
    });
    expect(withEnv({ WEBHOOK_RETRY_SCHEDULE: '100,200' }, webhooksConfig).retryDelaysMs).toEqual([
      100, 200,
    ]);
    // Durations as every other duration variable takes them; a bare number stays milliseconds.
    expect(
      withEnv({ WEBHOOK_RETRY_SCHEDULE: '5m, 2h,1500' }, webhooksConfig).retryDelaysMs,
    ).toEqual([300_000, 7_200_000, 1_500]);
    expect(webhooksConfig().retryDelaysMs).toHaveLength(9);
    expect(imagesConfig()).toMatchObject({
      concurrency: 2,
      retryDelaysMs: [60_000, 600_000, 3_600_000],
      fetchTimeoutMs: 15_000,
    });
    expect(
      withEnv({ IMAGE_RETRY_DELAYS: '100, 2s', IMAGE_CONCURRENCY: '0' }, imagesConfig),
    ).toMatchObject({ retryDelaysMs: [100, 2_000], concurrency: 0 });
  });
});
