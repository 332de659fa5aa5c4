import { DynamicModule, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { AllConfig } from '../config';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabaseExists } from './ensure-database';
import { DatabaseSeed, prepareDatabase } from './prepare-database';
import { watchAnswers, writePoolOf } from './pool-usage';
import { PreparedReads } from './prepared-reads';

/** TypeORM hands the factory only the options, so the start-up switch travels with them. */
type StartupOptions = TypeOrmModuleOptions & { migrateOnStart: boolean };

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
              ...dataSourceOptions(database),
              autoLoadEntities: true,
              migrateOnStart: database.migrateOnStart,
            };
          },
          dataSourceFactory: async (options) => {
            const { migrateOnStart, ...rest } = options as StartupOptions;
            if (migrateOnStart) await ensureDatabaseExists((rest as { url: string }).url);
            const dataSource = await new DataSource(rest as DataSourceOptions).initialize();
            watchAnswers(writePoolOf(dataSource));
            if (migrateOnStart) await prepareDatabase(dataSource, seed);
            return dataSource;
          },
        }),
      ],
      providers: [PreparedReads],
      exports: [PreparedReads],
    };
  }
}
