import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type Redis from 'ioredis';
import { RATE_LIMIT_WINDOW_MS } from '../common/api-limits';
import type { AllConfig } from '../platform/config';
import { REDIS } from '../platform/redis/redis.module';

/** One key's sliding window of one kind (GET and HEAD are `read`, the rest `write`). */
export interface RateLimitWindow {
  keyId: string;
  name: 'read' | 'write';
  limit: number;
  /** requests in the last window, as the next request would count them */
  used: number;
  /** when the oldest counted request leaves the window (a slot frees); null when none is used */
  resetsAt: Date | null;
}

/**
 * Reads the rate-limit windows RateLimitGuard keeps in Redis (the same keys,
 * `<REDIS_KEY_PREFIX>:rl:<name>:<keyId>`) without counting a request. Redis's clock, as the
 * guard's script uses.
 */
@Injectable()
export class RateLimitWindows {
  private readonly keyPrefix: string;
  private readonly limits: { read: number; write: number };

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    config: ConfigService<AllConfig, true>,
  ) {
    this.keyPrefix = `${config.get('redis.keyPrefix', { infer: true })}:rl`;
    const limits = config.get('rateLimit', { infer: true });
    this.limits = { read: limits.readPerMin, write: limits.writePerMin };
  }

  /** Each key's read and write window, in the order given; throws when Redis fails. */
  async current(keyIds: readonly string[]): Promise<RateLimitWindow[]> {
    if (keyIds.length === 0) return [];
    const [seconds, micros] = await this.redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const since = now - RATE_LIMIT_WINDOW_MS;
    const names = ['read', 'write'] as const;
    const pipeline = this.redis.pipeline();
    for (const keyId of keyIds)
      for (const name of names) {
        const key = `${this.keyPrefix}:${name}:${keyId}`;
        pipeline.zcount(key, `(${since}`, '+inf');
        pipeline.zrangebyscore(key, `(${since}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1);
      }
    const replies = (await pipeline.exec()) ?? [];
    const windows: RateLimitWindow[] = [];
    let i = 0;
    for (const keyId of keyIds)
      for (const name of names) {
        const [countError, count] = replies[i++];
        const [oldestError, oldest] = replies[i++];
        if (countError || oldestError) throw countError ?? oldestError;
        const score = (oldest as string[])[1];
        windows.push({
          keyId,
          name,
          limit: this.limits[name],
          used: Number(count),
          resetsAt: score === undefined ? null : new Date(Number(score) + RATE_LIMIT_WINDOW_MS),
        });
      }
    return windows;
  }
}
