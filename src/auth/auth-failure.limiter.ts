import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectThrottlerStorage, normalizeIp, ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitedError } from '../common/errors/domain-error';
import type { AllConfig } from '../platform/config';
import { RATE_LIMIT_WINDOW_MS } from '../common/api-limits';

const MAX_REMEMBERED_ADDRESSES = 10_000;

/** 401s count per address in Redis; over the limit, 429. Only failures touch Redis. */
@Injectable()
export class AuthFailureLimiter {
  /** addresses this instance has seen go over the limit, and until when (epoch ms) */
  private readonly blockedUntil = new Map<string, number>();
  private readonly limit: number;

  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    config: ConfigService<AllConfig, true>,
  ) {
    this.limit = config.get('rateLimit.authFailuresPerMin', { infer: true });
  }

  /** Refused from memory; other instances learn of a block on the address's next failure there. */
  private assertNotBlocked(ip: string | undefined): void {
    // The usual case, checked on every request: nobody is blocked, no address to normalise.
    if (this.blockedUntil.size === 0) return;
    const address = addressOf(ip);
    const until = this.blockedUntil.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left > 0) throw new RateLimitedError(Math.ceil(left / 1000));
    this.blockedUntil.delete(address);
  }

  /** Throws RateLimitedError when blocked or now over; valid credentials never come here. */
  async recordFailure(ip: string | undefined): Promise<void> {
    this.assertNotBlocked(ip);
    const address = addressOf(ip);
    let blockedFor: number;
    try {
      const record = await this.storage.increment(
        `auth:${address}`,
        RATE_LIMIT_WINDOW_MS,
        this.limit,
        RATE_LIMIT_WINDOW_MS,
        'auth',
      );
      if (!record.isBlocked) return;
      blockedFor = record.timeToBlockExpire;
    } catch {
      return; // Redis failing: fail open, the storage logged it
    }
    if (this.blockedUntil.size >= MAX_REMEMBERED_ADDRESSES) {
      this.blockedUntil.delete(this.blockedUntil.keys().next().value!);
    }
    this.blockedUntil.set(address, Date.now() + blockedFor * 1000);
    throw new RateLimitedError(blockedFor);
  }
}

/** An IPv6 client owns a whole /64, so it counts as one address. */
function addressOf(ip: string | undefined): string {
  return ip ? normalizeIp(ip) : 'unknown';
}
