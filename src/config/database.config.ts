import { registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { ToBool, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

class DatabaseEnv {
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/listings';
  @ToBool() @IsBoolean() DB_MIGRATE_ON_START: boolean = true;
  @ToInt() @IsInt() @Min(1) @Max(200) DB_POOL_SIZE: number = 10;
}

export interface DatabaseConfig {
  url: string;
  migrateOnStart: boolean;
  poolSize: number;
}

export const databaseConfig = registerAs('database', (): DatabaseConfig => {
  const env = validateConfig(process.env, DatabaseEnv);
  return {
    url: env.DATABASE_URL,
    migrateOnStart: env.DB_MIGRATE_ON_START,
    poolSize: env.DB_POOL_SIZE,
  };
});
