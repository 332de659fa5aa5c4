import { registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ToBool, ToInt } from './config-transforms';
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

class WebhooksEnv {
  @IsOptional()
  @Matches(/^\d+(,\d+)*$/, {
    message: 'WEBHOOK_RETRY_SCHEDULE must be comma-separated milliseconds',
  })
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
      ? env.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number)
      : DEFAULT_RETRY_DELAYS_MS,
    allowHttp: env.WEBHOOK_ALLOW_HTTP,
    workerConcurrency: env.WEBHOOK_WORKER_CONCURRENCY,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    dnsTimeoutMs: env.WEBHOOK_DNS_TIMEOUT_MS,
    jobLockMs: env.WEBHOOK_JOB_LOCK_MS,
  };
});
