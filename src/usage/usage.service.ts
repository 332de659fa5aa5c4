import { Injectable } from '@nestjs/common';
import type { UsageResponse } from './dto/usage.response';
import { summarizeUsage, usageRange } from './usage-summary';
import { UsageStore } from './usage.store';

@Injectable()
export class UsageService {
  constructor(private readonly store: UsageStore) {}

  /** Usage of one key over the last `days` UTC days, today included. */
  async summarize(keyId: string, days: number, now = new Date()): Promise<UsageResponse> {
    const { from, to } = usageRange(days, now);
    return summarizeUsage(days, now, await this.store.byDayAndEndpoint(keyId, from, to));
  }

  /** GET /me/usage looks back at most 90 days; older rows serve nobody. */
  purgeOlderThan(days: number): Promise<void> {
    return this.store.purgeOlderThan(days);
  }
}
