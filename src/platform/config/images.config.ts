import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min, Validate, ValidatorConstraint } from 'class-validator';
import type { ValidatorConstraintInterface } from 'class-validator';
import { IsDuration, parseDuration, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

/** One to five durations, comma-separated: the waits before each retry of an image fetch. */
@ValidatorConstraint({ name: 'durationList' })
class DurationList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const parts = value.split(',');
    // parseDuration throws on an empty string rather than answering undefined.
    return (
      parts.length <= 5 &&
      parts.every((part) => part.trim() !== '' && parseDuration(part.trim()) !== undefined)
    );
  }

  defaultMessage(): string {
    return 'must be one to five durations separated by commas, such as 1m,10m,1h';
  }
}

class ImagesEnv {
  /** images processed at once per worker; 0: this worker processes none (nor dispatches them) */
  @ToInt() @IsInt() @Min(0) @Max(32) IMAGE_CONCURRENCY: number = 2;
  @Validate(DurationList) IMAGE_RETRY_DELAYS: string = '1m,10m,1h';
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
    retryDelaysMs: env.IMAGE_RETRY_DELAYS.split(',').map((part) => parseDuration(part.trim())!),
    fetchTimeoutMs: parseDuration(env.IMAGE_FETCH_TIMEOUT)!,
    dispatchEveryMs: parseDuration(env.IMAGE_DISPATCH_EVERY)!,
    dispatchBatch: env.IMAGE_DISPATCH_BATCH,
    backfillBatch: env.IMAGE_BACKFILL_BATCH,
    leaseMs: parseDuration(env.IMAGE_LEASE)!,
  };
});
