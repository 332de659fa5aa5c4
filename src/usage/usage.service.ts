import { Injectable } from '@nestjs/common';
import { Every } from '../platform/scheduling/every.decorator';
import type { UsageResponse } from './dto/usage.response';
import { ClassedUsage, summarizeClassedUsage, summarizeUsage, usageRange } from './usage-summary';
import { UsageStore } from './usage.store';

/** GET /me/usage reaches 90 days back; a margin keeps the boundary day whole across time zones. */
const RETENTION_DAYS = 92;
const PURGE_EVERY_MS = 60 * 60_000;

@Injectable()
export class UsageService {
  constructor(private readonly store: UsageStore) {}

  /** Usage of one key over the last `days` UTC days, today included. */
  async summarize(keyId: string, days: number, now = new Date()): Promise<UsageResponse> {
    const { from, to } = usageRange(days, now);
    return summarizeUsage(days, now, await this.store.byDayAndEndpoint(keyId, from, to));
  }

  /** An account's requests and errors of today (UTC) in one mode, over all its keys of it. */
  today(scope: { accountId: string; livemode: boolean }, now = new Date()) {
    return this.store.accountDay(scope.accountId, scope.livemode, now.toISOString().slice(0, 10));
  }

  /**
   * Usage of several keys (an account's keys of one mode, or one of them) over the last `days`
   * UTC days, split by status class; for one key, `summary` is what `summarize` answers.
   */
  async summarizeKeys(
    keyIds: readonly string[],
    days: number,
    now = new Date(),
  ): Promise<ClassedUsage> {
    const { from, to } = usageRange(days, now);
    const { classRows, endpointRows } = await this.store.byDayClassOrEndpoint(keyIds, from, to);
    return summarizeClassedUsage(days, now, classRows, endpointRows);
  }

  /** Older rows serve nobody. */
  @Every('usage-purge', PURGE_EVERY_MS)
  purgeOld(): Promise<void> {
    return this.store.purgeOlderThan(RETENTION_DAYS);
  }
}
