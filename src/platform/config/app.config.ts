import { registerAs } from '@nestjs/config';
import {
  ArrayMinSize,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
} from 'class-validator';
import { Transform } from 'class-transformer';
import { IsTrustProxy, parseTrustProxy, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

export const PROCESS_ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** The event lanes (events/event-lane.ts); a worker serves those WORKER_LANES names. */
export const WORKER_LANES = ['interactive', 'bulk'] as const;
export type WorkerLane = (typeof WORKER_LANES)[number];

class AppEnv {
  @ToInt() @IsInt() @Min(0) @Max(65535) PORT: number = 3000;
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL: string = 'http://localhost:3000';
  @IsIn(PROCESS_ROLES) PROCESS_ROLE: ProcessRole = 'all';
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((lane) => lane.trim()) : value,
  )
  @ArrayMinSize(1, { message: 'WORKER_LANES must name at least one of interactive, bulk' })
  @IsIn(WORKER_LANES, {
    each: true,
    message: 'WORKER_LANES must be interactive, bulk or both, separated by a comma',
  })
  WORKER_LANES: WorkerLane[] = [...WORKER_LANES];
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters' })
  ADMIN_TOKEN?: string;
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL: string = 'info';
  @ToInt() @IsInt() @Min(0) @Max(120_000) SHUTDOWN_DRAIN_MS: number = 3000;
  /** Express `trust proxy`: hops (e.g. 1) or proxy addresses; the client address the 401 guard counts */
  @IsTrustProxy() TRUST_PROXY: string = '0';
  /** at most 4 s: a revoked key or suspended account must be refused everywhere within 5 s */
  @ToInt() @IsInt() @Min(0) @Max(4_000) API_KEY_CACHE_TTL_MS: number = 4_000;
}

export interface AppConfig {
  /** hop count, or the proxies' addresses and CIDRs */
  trustProxy: number | string[];
  /** after SIGTERM: how long to keep serving while readiness says 503, before closing */
  shutdownDrainMs: number;
  port: number;
  publicBaseUrl: string;
  processRole: ProcessRole;
  /** the lanes whose relay, fan-out and delivery this worker runs; imports and renders go with `bulk` */
  workerLanes: WorkerLane[];
  adminToken: string | undefined;
  logLevel: string;
  /** how long an API key's answer (principal, or unknown/revoked) is cached per process */
  apiKeyCacheTtlMs: number;
}

export const appConfig = registerAs('app', (): AppConfig => {
  const env = validateConfig(process.env, AppEnv);
  return {
    port: env.PORT,
    publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    processRole: env.PROCESS_ROLE,
    workerLanes: [...new Set(env.WORKER_LANES)],
    adminToken: env.ADMIN_TOKEN || undefined,
    logLevel: env.LOG_LEVEL,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    trustProxy: parseTrustProxy(env.TRUST_PROXY)!,
    apiKeyCacheTtlMs: env.API_KEY_CACHE_TTL_MS,
  };
});
