import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { migrateDatabase } from '../../src/platform/database/prepare-database';
import { seedReferenceData } from '../../src/reference/reference-seed';
import { databaseUrl, templateName, withAdminClient } from './test-database';

/**
 * Migrates and seeds one template database; each test file clones it in milliseconds. Every
 * tier that needs the database names this file (the slow tier through its own set-up), and the
 * first to run it makes the template for the whole run.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_RUN_ID) return; // another tier of this run made the template
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
