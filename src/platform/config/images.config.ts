import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import {
  IsDuration,
  IsDurationList,
  parseDuration,
  parseDurationList,
  ToInt,
} from './config-transforms';
import { validateConfig } from './validate-config';

class ImagesEnv {
  /** images processed at once per worker; 0: this worker processes none (nor dispatches them) */
  @ToInt() @IsInt() @Min(0) @Max(32) IMAGE_CONCURRENCY: number = 2;
  /** the waits before each retry of an image fetch */
  @IsDurationList(5) IMAGE_RETRY_DELAYS: string = '1m,10m,1h';
  @IsDuration() IMAGE_FETCH_TIMEOUT: string = '15s';
  @IsDuration() IMAGE_DISPATCH_EVERY: string = '1s';
  @ToInt() @IsInt() @Min(1) @Max(1000) IMAGE_DISPATCH_BATCH: number = 20;
  @ToInt() @IsInt() @Min(0) @Max(1000) IMAGE_BACKFILL_BATCH: number = 2;
  @IsDuration() IMAGE_LEASE: string = '5m';
}

export interface ImagesConfig {
  /** images rendered at once by one worker; 0 turns the pipeline off in that worker */
  concurrency: number;
  /** the waits before the 1st, 2nd, … retry of a transient failure; then the image fails */
  retryDelaysMs: number[];
  /** one URL fetch, redirects and body included */
  fetchTimeoutMs: number;
  /** how often a worker hands due images to the queue */
  dispatchEveryMs: number;
  /** at most this many image jobs waiting in the queue: the rest wait in the database */
  dispatchBatch: number;
  /** images stored before the pipeline, handed over per run when fresh ones leave room */
  backfillBatch: number;
  /** an image handed to the queue longer ago than this and still pending is handed over again */
  leaseMs: number;
}

export const imagesConfig = registerAs('images', (): ImagesConfig => {
  const env = validateConfig(process.env, ImagesEnv);
  return {
    concurrency: env.IMAGE_CONCURRENCY,
    retryDelaysMs: parseDurationList(env.IMAGE_RETRY_DELAYS)!,
    fetchTimeoutMs: parseDuration(env.IMAGE_FETCH_TIMEOUT)!,
    dispatchEveryMs: parseDuration(env.IMAGE_DISPATCH_EVERY)!,
    dispatchBatch: env.IMAGE_DISPATCH_BATCH,
    backfillBatch: env.IMAGE_BACKFILL_BATCH,
    leaseMs: parseDuration(env.IMAGE_LEASE)!,
  };
});
