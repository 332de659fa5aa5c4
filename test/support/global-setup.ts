import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { migrateDatabase } from '../../src/platform/database/prepare-database';
import { seedReferenceData } from '../../src/reference/reference-seed';
import { databaseUrl, templateName, withAdminClient } from './test-database';

/**
 * Migrates and seeds one template database; each test file clones it in milliseconds. The
 * integration and e2e projects name this same file, which Jest runs once per run.
 */
export default async function globalSetup(): Promise<void> {
  const id = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  process.env.TEST_RUN_ID = id;
  const name = templateName(id);
  await withAdminClient((c) => c.query(`CREATE DATABASE "${name}"`));
  await migrateDatabase(
    dataSourceOptions({
      url: databaseUrl(name),
      migrateOnStart: true,
      poolSize: 2,
      statementTimeoutMs: 120_000,
      idleInTransactionTimeoutMs: 120_000,
      acquireTimeoutMs: 120_000,
    }),
    seedReferenceData,
  );
}
