import 'reflect-metadata';
import type { ModuleMetadata, Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AccountsModule } from '../../src/accounts/accounts.module';
import { AccountsService } from '../../src/accounts/accounts.service';
import { CoreModule } from '../../src/app.module';
import type { OwnerScope } from '../../src/auth/scope';
import { REDIS } from '../../src/platform/redis/redis.module';
import { createTestDatabase, newRedisPrefix } from './test-database';
import { testEnv, withEnv } from './test-app';

export interface IntegrationContext {
  get<T>(type: Type<T>): T;
  dataSource: DataSource;
  /** where this context's local storage driver keeps files: a directory of its own */
  storageDir: string;
  /** a new approved account, live mode */
  newOwner(): Promise<OwnerScope>;
  close(): Promise<void>;
}

/**
 * The service tier: the feature modules given, on the application's core (configuration,
 * database, Redis, outbox), against a fresh database cloned from the run's template, with a
 * storage directory of its own (removed on close). No HTTP server: tests call services directly.
 */
export async function createIntegrationContext(
  metadata: Pick<ModuleMetadata, 'imports' | 'providers'>,
  env: Record<string, string> = {},
): Promise<IntegrationContext> {
  const databaseName = await createTestDatabase();
  const redisPrefix = newRedisPrefix();
  const storageDir = mkdtempSync(join(tmpdir(), 'lsvc-int-storage-'));
  let module: TestingModule | undefined;
  await withEnv(
    testEnv(databaseName, redisPrefix, { STORAGE_DIR: storageDir, ...env }),
    async () => {
      module = await Test.createTestingModule({
        imports: [CoreModule, AccountsModule, ...(metadata.imports ?? [])],
        providers: metadata.providers ?? [],
      }).compile();
      await module.init();
    },
  );
  const app = module!;
  await redisReady(app.get<Redis>(REDIS as never, { strict: false }));
  return {
    get: (type) => app.get(type, { strict: false }),
    dataSource: app.get(DataSource),
    storageDir,
    newOwner: async () => {
      const account = await app
        .get(AccountsService)
        .create(`Int AB ${randomBytes(3).toString('hex')}`, true);
      return { accountId: account.id, livemode: true };
    },
    close: async () => {
      await app.close();
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

/**
 * The service's Redis client fails a command at once while it is not connected (no offline
 * queue, by design), so a test's first call must not race the connection the app just opened.
 */
async function redisReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
}
