import { registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { IsDuration, parseDuration, ToBool, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

class DatabaseEnv {
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/listings';
  @ToBool() @IsBoolean() DB_MIGRATE_ON_START: boolean = true;
  @ToInt() @IsInt() @Min(1) @Max(200) DB_POOL_SIZE: number = 10;
  /** longest a statement may run before PostgreSQL cancels it */
  @IsDuration() DB_STATEMENT_TIMEOUT: string = '30s';
  /** longest a transaction may sit idle (its client stalled) before PostgreSQL ends the session */
  @IsDuration() DB_IDLE_IN_TRANSACTION_TIMEOUT: string = '30s';
  /** longest a request waits for a pool connection (all in use, or the server not answering) */
  @IsDuration() DB_POOL_ACQUIRE_TIMEOUT: string = '10s';
}

export interface DatabaseConfig {
  url: string;
  migrateOnStart: boolean;
  poolSize: number;
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  acquireTimeoutMs: number;
}

/**
 * Sent at connection start-up, so no statement or stalled transaction holds locks indefinitely;
 * and the pool's own bound on waiting for a connection, so a busy or silent server answers a
 * request with an error in seconds instead of keeping it queued.
 */
export function poolTimeouts(config: DatabaseConfig) {
  return {
    statement_timeout: config.statementTimeoutMs,
    idle_in_transaction_session_timeout: config.idleInTransactionTimeoutMs,
    connectionTimeoutMillis: config.acquireTimeoutMs,
  };
}

/**
 * A client-side bound on a statement the server does not answer (a frozen or cut-off host), a
 * little past the server's own statement_timeout, which would have cancelled it if it could.
 */
export function queryTimeoutMs(config: DatabaseConfig): number {
  return config.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS;
}

const QUERY_TIMEOUT_MARGIN_MS = 5_000;

export const databaseConfig = registerAs('database', (): DatabaseConfig => {
  const env = validateConfig(process.env, DatabaseEnv);
  return {
    url: env.DATABASE_URL,
    migrateOnStart: env.DB_MIGRATE_ON_START,
    poolSize: env.DB_POOL_SIZE,
    statementTimeoutMs: parseDuration(env.DB_STATEMENT_TIMEOUT)!,
    idleInTransactionTimeoutMs: parseDuration(env.DB_IDLE_IN_TRANSACTION_TIMEOUT)!,
    acquireTimeoutMs: parseDuration(env.DB_POOL_ACQUIRE_TIMEOUT)!,
  };
});
