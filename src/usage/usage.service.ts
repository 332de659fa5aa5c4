import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UsageResponse } from './dto/usage.response';
import { summarizeUsage, usageRange, UsageRow } from './usage-summary';

/** Reads one key's stored counts (api_usage's primary key serves the range scan). */
const USAGE_BY_DAY_AND_ENDPOINT = `
  SELECT to_char(day, 'YYYY-MM-DD') AS day, method, route,
         sum(requests) AS requests,
         coalesce(sum(requests) FILTER (WHERE status_class >= 4), 0) AS errors,
         coalesce(sum(requests) FILTER (WHERE rate_limited), 0) AS "rateLimited"
  FROM api_usage
  WHERE key_id = $1 AND day BETWEEN $2 AND $3
  GROUP BY day, method, route`;

interface RawUsageRow {
  day: string;
  method: string;
  route: string;
  /** bigint sums arrive as strings */
  requests: string;
  errors: string;
  rateLimited: string;
}

@Injectable()
export class UsageService {
  constructor(private readonly dataSource: DataSource) {}

  /** Usage of one key over the last `days` UTC days, today included. */
  async summarize(keyId: string, days: number, now = new Date()): Promise<UsageResponse> {
    const { from, to } = usageRange(days, now);
    const raw: RawUsageRow[] = await this.dataSource.query(USAGE_BY_DAY_AND_ENDPOINT, [
      keyId,
      from,
      to,
    ]);
    const rows: UsageRow[] = raw.map((r) => ({
      day: r.day,
      method: r.method,
      route: r.route,
      requests: Number(r.requests),
      errors: Number(r.errors),
      rateLimited: Number(r.rateLimited),
    }));
    return summarizeUsage(days, now, rows);
  }

  /** GET /me/usage looks back at most 90 days; older rows serve nobody. */
  async purgeOlderThan(days: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM api_usage WHERE day < (now() AT TIME ZONE 'UTC')::date - $1::int`,
      [days],
    );
  }
}
