import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { IsDuration, parseDuration, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

class ListingsEnv {
  @IsDuration() LISTING_VALIDITY: string = '30d';
  @IsDuration() EXPIRY_SWEEP_EVERY: string = '60s';
  @ToInt() @IsInt() @Min(1) @Max(50000) EXPIRY_BATCH_SIZE: number = 1000;
  @IsDuration() IMPORT_RESTORE_WINDOW: string = '30d';
}

export interface ListingsConfig {
  /** how long a live listing stays ACTIVE after publishing, and how much a renew adds */
  validityMs: number;
  expirySweepEveryMs: number;
  expiryBatchSize: number;
  /** how long a listing a mirror import removed can come back, with its id, by its externalId */
  restoreWindowMs: number;
}

export const listingsConfig = registerAs('listings', (): ListingsConfig => {
  const env = validateConfig(process.env, ListingsEnv);
  return {
    validityMs: parseDuration(env.LISTING_VALIDITY)!,
    expirySweepEveryMs: parseDuration(env.EXPIRY_SWEEP_EVERY)!,
    expiryBatchSize: env.EXPIRY_BATCH_SIZE,
    restoreWindowMs: parseDuration(env.IMPORT_RESTORE_WINDOW)!,
  };
});
