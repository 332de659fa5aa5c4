import type { DataSourceOptions } from 'typeorm';
import { DatabaseConfig, poolTimeouts, queryTimeoutMs } from '../config/database.config';
import { MIGRATIONS } from './migrations';

/** For migrations (here, the CLI, the tests' template): no client-side query time-out. */
export function dataSourceOptions(config: DatabaseConfig): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.url,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    synchronize: false,
    extra: {
      max: config.poolSize,
      application_name: 'listings-service',
      ...poolTimeouts(config),
    },
  };
}

/**
 * The service's own: a statement the server does not answer fails `queryTimeoutMs` after it was
 * sent, so a request in flight when the database froze answers instead of waiting for TCP to
 * give up. Not for migrations, which may run for minutes.
 */
export function serviceDataSourceOptions(config: DatabaseConfig): DataSourceOptions {
  const options = dataSourceOptions(config);
  return { ...options, extra: { ...options.extra, query_timeout: queryTimeoutMs(config) } };
}
