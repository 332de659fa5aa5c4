import type { DataSourceOptions } from 'typeorm';
import { DatabaseConfig, poolTimeouts } from '../config/database.config';
import { MIGRATIONS } from './migrations';

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
