import { registerAs } from '@nestjs/config';
import { IsInt, IsNumber, Max, Min } from 'class-validator';
import { IsDuration, parseDuration, ToInt, ToNumber } from './config-transforms';
import { validateConfig } from './validate-config';

class ImportsEnv {
  @ToInt() @IsInt() @Min(1) IMPORT_MAX_BYTES: number = 1024 ** 3;
  @ToInt() @IsInt() @Min(1) @Max(10_000_000) IMPORT_MAX_LINES: number = 1_000_000;
  @IsDuration() IMPORT_RETENTION: string = '7d';
  @ToInt() @IsInt() @Min(1) @Max(500) IMPORT_CHUNK_LINES: number = 500;
  @IsDuration() IMPORT_LEASE: string = '30s';
  @IsDuration() IMPORT_SWEEP_EVERY: string = '15s';
  @ToNumber() @IsNumber() @Min(0) @Max(100) IMPORT_YIELD_SLOWDOWN: number = 1.5;
  @ToInt() @IsInt() @Min(0) IMPORT_YIELD_MIN_API_RPS: number = 100;
  @ToInt() @IsInt() @Min(1) @Max(16) IMPORT_CONCURRENCY: number = 2;
}

export interface ImportsConfig {
  /** the file as sent (compressed, when gzip) */
  maxBytes: number;
  maxLines: number;
  maxLineBytes: number;
  /** finished imports, their results and files are purged after this */
  retentionMs: number;
  /** lines per transaction; progress commits with each chunk */
  chunkLines: number;
  /** how long a runner's claim lasts without renewal; a dead runner's import resumes after it */
  leaseMs: number;
  /** how often a worker re-queues imports whose job was lost or whose runner died */
  sweepEveryMs: number;
  /** a chunk this much slower per line than the fastest makes the import wait (0: never) */
  yieldSlowdown: number;
  /** the import waits only while the API serves at least this many requests a second */
  yieldMinApiRps: number;
  /** imports a worker runs at once (never two of one account and mode, across workers) */
  concurrency: number;
}

export const importsConfig = registerAs('imports', (): ImportsConfig => {
  const env = validateConfig(process.env, ImportsEnv);
  return {
    maxBytes: env.IMPORT_MAX_BYTES,
    maxLines: env.IMPORT_MAX_LINES,
    maxLineBytes: 256 * 1024,
    retentionMs: parseDuration(env.IMPORT_RETENTION)!,
    chunkLines: env.IMPORT_CHUNK_LINES,
    leaseMs: parseDuration(env.IMPORT_LEASE)!,
    sweepEveryMs: parseDuration(env.IMPORT_SWEEP_EVERY)!,
    yieldSlowdown: env.IMPORT_YIELD_SLOWDOWN,
    yieldMinApiRps: env.IMPORT_YIELD_MIN_API_RPS,
    concurrency: env.IMPORT_CONCURRENCY,
  };
});
