import { registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsDurationList, parseDurationList, ToBool, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

/** now, +5 min, +30 min, +2 h, +5 h, then +10 h five times: 10 attempts over about 2.5 days. */
export const DEFAULT_RETRY_DELAYS_MS = [
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** A schedule longer than this is a mistake, not a retry policy. */
const MAX_RETRY_DELAYS = 50;

class WebhooksEnv {
  /** the waits between attempts (`5m,30m,2h`; a bare number is milliseconds) */
  @IsOptional()
  @IsDurationList(MAX_RETRY_DELAYS)
  WEBHOOK_RETRY_SCHEDULE?: string;
  @ToBool() @IsBoolean() WEBHOOK_ALLOW_HTTP: boolean = false;
  @ToInt() @IsInt() @Min(1) @Max(500) WEBHOOK_WORKER_CONCURRENCY: number = 50;
  @ToInt() @IsInt() @Min(100) @Max(60_000) WEBHOOK_TIMEOUT_MS: number = 10_000;
  @ToInt() @IsInt() @Min(100) @Max(60_000) WEBHOOK_DNS_TIMEOUT_MS: number = 5_000;
  @ToInt() @IsInt() @Min(1_000) @Max(600_000) WEBHOOK_JOB_LOCK_MS: number = 30_000;
}

export interface WebhooksConfig {
  /** delays between attempts; attempts = delays + 1 */
  retryDelaysMs: number[];
  allowHttp: boolean;
  workerConcurrency: number;
  timeoutMs: number;
  /** a lookup of a webhook host (at registration or delivery) fails after this long */
  dnsTimeoutMs: number;
  /** a job whose worker died is taken up again by another worker after about this long */
  jobLockMs: number;
}

export const webhooksConfig = registerAs('webhooks', (): WebhooksConfig => {
  const env = validateConfig(process.env, WebhooksEnv);
  return {
    retryDelaysMs: env.WEBHOOK_RETRY_SCHEDULE
      ? parseDurationList(env.WEBHOOK_RETRY_SCHEDULE)!
      : DEFAULT_RETRY_DELAYS_MS,
    allowHttp: env.WEBHOOK_ALLOW_HTTP,
    workerConcurrency: env.WEBHOOK_WORKER_CONCURRENCY,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    dnsTimeoutMs: env.WEBHOOK_DNS_TIMEOUT_MS,
    jobLockMs: env.WEBHOOK_JOB_LOCK_MS,
  };
});
