import 'reflect-metadata';
import { databaseConfig } from './platform/config/database.config';
import { dataSourceOptions } from './platform/database/data-source-options';
import { ensureDatabaseExists } from './platform/database/ensure-database';
import { migrateDatabase } from './platform/database/prepare-database';
import { seedReferenceData } from './reference/reference-seed';

async function main(): Promise<void> {
  const config = databaseConfig();
  await ensureDatabaseExists(config.url);
  await migrateDatabase(dataSourceOptions(config), seedReferenceData);
  console.log('Migrations applied and reference data loaded.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
