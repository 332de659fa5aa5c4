import { registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

class RateLimitEnv {
  @ToInt() @IsInt() @Min(1) @Max(10_000_000) RATE_LIMIT_READ_PER_MIN: number = 300;
  @ToInt() @IsInt() @Min(1) @Max(10_000_000) RATE_LIMIT_WRITE_PER_MIN: number = 30;
  @ToInt() @IsInt() @Min(1) @Max(10_000_000) RATE_LIMIT_AUTH_FAILURES_PER_MIN: number = 60;
}

export interface RateLimitConfig {
  readPerMin: number;
  writePerMin: number;
  authFailuresPerMin: number;
}

export const rateLimitConfig = registerAs('rateLimit', (): RateLimitConfig => {
  const env = validateConfig(process.env, RateLimitEnv);
  return {
    readPerMin: env.RATE_LIMIT_READ_PER_MIN,
    writePerMin: env.RATE_LIMIT_WRITE_PER_MIN,
    authFailuresPerMin: env.RATE_LIMIT_AUTH_FAILURES_PER_MIN,
  };
});
