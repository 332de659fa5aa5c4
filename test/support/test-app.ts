import 'reflect-metadata';
import { DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import type { ProcessRole } from '../../src/platform/config/app.config';
import { configureApp } from '../../src/configure-app';
import { contractRecorder } from './contract';
import { createTestDatabase, databaseUrl, newRedisPrefix } from './test-database';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestAppOptions {
  /** share a database with another instance (multi-instance tests) */
  databaseName?: string;
  /** share Redis keys (limits, queues) with another instance */
  redisPrefix?: string;
  role?: ProcessRole;
  env?: Record<string, string | undefined>;
  /** modules mounted beside the application's own, e.g. stand-in routes */
  extraModules?: Type<unknown>[];
}

@Module({})
class TestRootModule {}

export interface TestApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  databaseName: string;
  redisPrefix: string;
  env: Record<string, string | undefined>;
  close: () => Promise<void>;
}

/**
 * Boots the real application (same module graph and HTTP wiring as main.ts) on its own database,
 * cloned from the run's template, with its own Redis key prefix.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseName = options.databaseName ?? (await createTestDatabase());
  const redisPrefix = options.redisPrefix ?? newRedisPrefix();
  const env = testEnv(databaseName, redisPrefix, options.env);
  let app: NestExpressApplication;
  await withEnv(env, async () => {
    const root: DynamicModule = AppModule.forRole(options.role ?? 'all');
    const module: DynamicModule = options.extraModules
      ? { module: TestRootModule, imports: [root, ...options.extraModules] }
      : root;
    app = await NestFactory.create<NestExpressApplication>(module, {
      bodyParser: false,
      bufferLogs: true,
    });
    if (options.role === 'worker') {
      // As main.ts starts a worker: no HTTP wiring, its modules serve no routes.
      app.useLogger(app.get(Logger));
      app.enableShutdownHooks();
      await app.init();
    } else {
      app.use(contractRecorder);
      await configureApp(app);
    }
    await app.listen(0, '127.0.0.1');
  });
  return {
    app: app!,
    http: () => request(app.getHttpServer()),
    dataSource: app!.get(DataSource),
    databaseName,
    redisPrefix,
    env,
    close: () => app.close(),
  };
}

/** The environment a test instance runs with: its own database and Redis prefix, quiet logs. */
export function testEnv(
  databaseName: string,
  redisPrefix: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    DATABASE_URL: databaseUrl(databaseName),
    DB_MIGRATE_ON_START: 'false',
    DB_POOL_SIZE: '5',
    REDIS_KEY_PREFIX: redisPrefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ADMIN_TOKEN,
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    // Over plain http a browser (and supertest's cookie jar) drops Secure cookies.
    DASHBOARD_COOKIE_SECURE: 'false',
    WEBHOOK_ALLOW_HTTP: 'true',
    FETCH_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_READ_PER_MIN: '100000',
    RATE_LIMIT_WRITE_PER_MIN: '100000',
    SHUTDOWN_DRAIN_MS: '0',
    // The image pipeline runs only in the tests about it: elsewhere a worker fetching the
    // fixtures' URLs in the background would change image records under the tests' feet.
    IMAGE_CONCURRENCY: '0',
    ...overrides,
  };
}

/** Runs `boot` with `env` in process.env (configuration is read while modules start), then restores it. */
export async function withEnv(
  env: Record<string, string | undefined>,
  boot: () => Promise<void>,
): Promise<void> {
  const saved = { ...process.env };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    await boot();
  } finally {
    process.env = saved;
  }
}
