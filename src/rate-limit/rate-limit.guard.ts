import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { RateLimitedError } from '../common/errors/domain-error';
import { rateLimitHeaders } from './rate-limit.headers';
import type { ThrottlerStorageRecord } from './redis-throttler.storage';

/**
 * Before ApiKeyGuard, after AuthenticateMiddleware resolved the key; sets headers before the
 * handler so later errors (a 403 included) carry them; fails open.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** No principal: no accepted key (ApiKeyGuard answers 401), or a @Public() or admin route. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return !context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  }

  protected override async getTracker(req: AuthenticatedRequest): Promise<string> {
    return req.principal!.keyId;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, name: string) {
    return `${name}:${tracker}`;
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, getTracker, generateKey } = request;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const name = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req, context), name);
    let record: ThrottlerStorageRecord;
    try {
      record = await this.storageService.increment(key, ttl, limit, ttl, name);
    } catch {
      // Fail open, without headers: there is no count to report. The storage logged the outage.
      return true;
    }
    const headers = rateLimitHeaders({
      limit,
      remaining: Math.max(0, limit - record.totalHits),
      resetSeconds: record.timeToExpire,
      windowSeconds: Math.round(ttl / 1000),
    });
    for (const [header, value] of Object.entries(headers)) res.setHeader(header, value);
    if (record.isBlocked) throw new RateLimitedError(record.timeToBlockExpire);
    return true;
  }
}
