import { DynamicModule, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { AllConfig } from '../config';
import { dataSourceOptions, serviceDataSourceOptions } from './data-source-options';
import { ensureDatabaseExists } from './ensure-database';
import { DatabaseSeed, migrateDatabase } from './prepare-database';
import { watchAnswers, writePoolOf } from './pool-usage';
import { PreparedReads } from './prepared-reads';

/** TypeORM hands the factory only the options, so the start-up settings travel with them. */
type StartupOptions = TypeOrmModuleOptions & {
  migrateOnStart: boolean;
  migrationOptions: DataSourceOptions;
};

/** Entities come from each feature's TypeOrmModule.forFeature (autoLoadEntities). */
@Module({})
export class DatabaseModule {
  /** `seed` refreshes the data that migrations do not own (reference data), after them. */
  static forRoot(seed: DatabaseSeed): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService<AllConfig, true>): StartupOptions => {
            const database = config.get('database', { infer: true });
            return {
              ...serviceDataSourceOptions(database),
              autoLoadEntities: true,
              migrateOnStart: database.migrateOnStart,
              migrationOptions: dataSourceOptions(database),
            };
          },
          dataSourceFactory: async (options) => {
            const { migrateOnStart, migrationOptions, ...rest } = options as StartupOptions;
            // On a data source of their own, without the service's query time-out.
            if (migrateOnStart) {
              await ensureDatabaseExists((rest as { url: string }).url);
              await migrateDatabase(migrationOptions, seed);
            }
            const dataSource = await new DataSource(rest as DataSourceOptions).initialize();
            watchAnswers(writePoolOf(dataSource));
            return dataSource;
          },
        }),
      ],
      providers: [PreparedReads],
      exports: [PreparedReads],
    };
  }
}
