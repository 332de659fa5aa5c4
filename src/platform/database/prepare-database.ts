import { DataSource, DataSourceOptions, EntityManager, MigrationExecutor } from 'typeorm';

/** Data that the service refreshes on every start, after the migrations (reference data). */
export type DatabaseSeed = (em: EntityManager) => Promise<void>;

/** Any constant works; it only has to be the same in every instance of this service. */
const MIGRATION_LOCK_KEY = 0x4c_53_56_43;

/** Under an advisory lock, with no statement time-out: a long migration must not be cut off. */
export async function prepareDatabase(dataSource: DataSource, seed: DatabaseSeed): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await lock.query('SET statement_timeout = 0');
    const migrations = new MigrationExecutor(dataSource, lock);
    migrations.transaction = 'each';
    await migrations.executePendingMigrations();
    await lock.query('RESET statement_timeout');
    await dataSource.transaction(seed);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}

/** prepareDatabase on a data source of its own, made for it and closed after. */
export async function migrateDatabase(
  options: DataSourceOptions,
  seed: DatabaseSeed,
): Promise<void> {
  const dataSource = await new DataSource(options).initialize();
  try {
    await prepareDatabase(dataSource, seed);
  } finally {
    await dataSource.destroy();
  }
}
