import { registerAs } from '@nestjs/config';
import { IsString, Matches } from 'class-validator';
import { validateConfig } from './validate-config';

class RedisEnv {
  @IsString()
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';
  /** Namespaces every key (queues, limits, usage) so several deployments or test runs share one Redis. */
  @Matches(/^[A-Za-z0-9_-]{1,40}$/) REDIS_KEY_PREFIX: string = 'lsvc';
}

export interface RedisConfig {
  url: string;
  keyPrefix: string;
}

export const redisConfig = registerAs('redis', (): RedisConfig => {
  const env = validateConfig(process.env, RedisEnv);
  return { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX };
});
