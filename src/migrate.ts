import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { databaseConfig } from './platform/config/database.config';
import { dataSourceOptions } from './platform/database/data-source-options';
import { ensureDatabaseExists } from './platform/database/ensure-database';
import { prepareDatabase } from './platform/database/prepare-database';
import { seedReferenceData } from './reference/reference-seed';

async function main(): Promise<void> {
  const config = databaseConfig();
  await ensureDatabaseExists(config.url);
  const dataSource = await new DataSource(dataSourceOptions(config)).initialize();
  try {
    await prepareDatabase(dataSource, seedReferenceData);
    console.log('Migrations applied and reference data loaded.');
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
