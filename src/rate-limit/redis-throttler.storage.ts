import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';

/**
 * Sliding one-minute log, atomic in Redis, scored by Redis's clock (instances' may differ); refused
 * requests are not logged. Returns {allowed 0|1, count in window, ms until the oldest leaves}.
 */
export const SLIDING_WINDOW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local freesIn = window
if oldest[2] then freesIn = tonumber(oldest[2]) + window - now end
return {allowed, count, freesIn}
`;

/** What ThrottlerStorage.increment answers (the package does not export the type by name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const SCRIPT_SHA = createHash('sha1').update(SLIDING_WINDOW_SCRIPT).digest('hex');

/** The script's reply in the shape ThrottlerGuard expects (seconds, rounded up, at least 1). */
export function toStorageRecord(reply: [number, number, number]): ThrottlerStorageRecord {
  const [allowed, count, freesInMs] = reply;
  const freesIn = Math.max(1, Math.ceil(freesInMs / 1000));
  const isBlocked = allowed === 0;
  return {
    // A refused request is reported one past the limit, as the built-in storage does.
    totalHits: isBlocked ? count + 1 : count,
    timeToExpire: freesIn,
    isBlocked,
    timeToBlockExpire: isBlocked ? freesIn : 0,
  };
}

/**
 * After Redis failed, requests do not ask it again for this long and fail open at once: a Redis
 * that hangs (rather than refuses) costs one request per interval its command time-out, not all.
 */
export const SKIP_REDIS_AFTER_FAILURE_MS = 2_000;

/** One EVALSHA per request; throws if Redis fails (callers fail open), logging the outage once. */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  /** unique per process, so members from different instances never collide */
  private readonly memberPrefix = randomBytes(6).toString('hex');
  private sequence = 0;
  private failing = false;
  /** the last failure, rethrown without asking Redis until `skipUntil` */
  private lastError: unknown;
  private skipUntil = 0;

  constructor(
    private readonly redis: Redis,
    /** every key lives under it (`<REDIS_KEY_PREFIX>:rl`) */
    private readonly keyPrefix: string,
  ) {}

  /** `blockDuration` is not used: a sliding window blocks exactly until a slot frees. */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    if (Date.now() < this.skipUntil) throw this.lastError;
    try {
      const reply = await this.run(`${this.keyPrefix}:${key}`, ttl, limit);
      if (this.failing) this.logger.log('Rate limiting restored');
      this.failing = false;
      return toStorageRecord(reply);
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(`Rate limits fail open while Redis fails: ${(error as Error).message}`);
      }
      this.failing = true;
      this.lastError = error;
      this.skipUntil = Date.now() + SKIP_REDIS_AFTER_FAILURE_MS;
      throw error;
    }
  }

  private async run(key: string, windowMs: number, limit: number) {
    const args = [key, windowMs, limit, `${this.memberPrefix}:${this.sequence++}`] as const;
    try {
      return (await this.redis.evalsha(SCRIPT_SHA, 1, ...args)) as [number, number, number];
    } catch (error) {
      // First use on this Redis (or after a restart): load the script by sending it once.
      if (!(error as Error).message.startsWith('NOSCRIPT')) throw error;
      return (await this.redis.eval(SLIDING_WINDOW_SCRIPT, 1, ...args)) as [number, number, number];
    }
  }
}
