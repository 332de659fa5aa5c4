import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { DayClassRow, EndpointErrors, UsageRow } from './usage-summary';
import type { UsageCount } from './usage-tally';

/** Adds the batch to the stored counts; a key deleted meanwhile is skipped, not an error. */
const ADD_COUNTS = `
  INSERT INTO api_usage AS u (key_id, day, method, route, status_class, rate_limited, requests)
  SELECT x.key_id, x.day, x.method, x.route, x.status_class, x.rate_limited, x.requests
  FROM jsonb_to_recordset($1::jsonb) AS x(key_id uuid, day date, method text, route text,
    status_class smallint, rate_limited boolean, requests bigint)
  WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = x.key_id)
  ORDER BY x.key_id, x.day, x.method, x.route, x.status_class, x.rate_limited
  ON CONFLICT (key_id, day, method, route, status_class, rate_limited)
  DO UPDATE SET requests = u.requests + EXCLUDED.requests`;

/** Reads one key's stored counts (api_usage's primary key serves the range scan). */
const USAGE_BY_DAY_AND_ENDPOINT = `
  SELECT to_char(day, 'YYYY-MM-DD') AS day, method, route,
         sum(requests) AS requests,
         coalesce(sum(requests) FILTER (WHERE status_class >= 4), 0) AS errors,
         coalesce(sum(requests) FILTER (WHERE rate_limited), 0) AS "rateLimited"
  FROM api_usage
  WHERE key_id = $1 AND day BETWEEN $2 AND $3
  GROUP BY day, method, route`;

/**
 * Both folds of the dashboard's Usage page in one scan: per day and status class (its daily
 * table and chart) and per endpoint; a row of the first set has no route, of the second no day.
 */
const USAGE_BY_DAY_CLASS_OR_ENDPOINT = `
  SELECT to_char(day, 'YYYY-MM-DD') AS day, status_class AS "statusClass", method, route,
         sum(requests) AS requests,
         coalesce(sum(requests) FILTER (WHERE status_class >= 4), 0) AS errors,
         coalesce(sum(requests) FILTER (WHERE rate_limited), 0) AS "rateLimited"
  FROM api_usage
  WHERE key_id = ANY($1::uuid[]) AND day BETWEEN $2 AND $3
  GROUP BY GROUPING SETS ((day, status_class), (method, route))`;

interface RawUsageRow {
  day: string;
  method: string;
  route: string;
  /** bigint sums arrive as strings */
  requests: string;
  errors: string;
  rateLimited: string;
}

const usageRowOf = (r: RawUsageRow): UsageRow => ({
  day: r.day,
  method: r.method,
  route: r.route,
  requests: Number(r.requests),
  errors: Number(r.errors),
  rateLimited: Number(r.rateLimited),
});

/**
 * The one owner of `api_usage`' SQL. The upsert checks the key still exists in the same
 * statement, so a batch never fails on a key deleted since it was counted.
 */
@Injectable()
export class UsageStore {
  constructor(private readonly dataSource: DataSource) {}

  /** One statement for the whole batch, in the caller's transaction. */
  async addCounts(em: EntityManager, counts: UsageCount[]): Promise<void> {
    await em.query(ADD_COUNTS, [JSON.stringify(counts.map(rowOf))]);
  }

  /** One key's counts per UTC day and endpoint, `from` to `to` (YYYY-MM-DD) inclusive. */
  async byDayAndEndpoint(keyId: string, from: string, to: string): Promise<UsageRow[]> {
    const raw: RawUsageRow[] = await this.dataSource.query(USAGE_BY_DAY_AND_ENDPOINT, [
      keyId,
      from,
      to,
    ]);
    return raw.map(usageRowOf);
  }

  /** An account's requests and errors (4xx, 5xx) of one UTC day, over its keys of one mode. */
  async accountDay(
    accountId: string,
    livemode: boolean,
    day: string,
  ): Promise<{ requests: number; errors: number }> {
    const [row]: { requests: string; errors: string }[] = await this.dataSource.query(
      `SELECT coalesce(sum(u.requests), 0) AS requests,
              coalesce(sum(u.requests) FILTER (WHERE u.status_class >= 4), 0) AS errors
         FROM api_usage u JOIN api_keys k ON k.id = u.key_id
        WHERE k.account_id = $1 AND k.kind = $2 AND u.day = $3::date`,
      [accountId, livemode ? 'live' : 'test', day],
    );
    return { requests: Number(row.requests), errors: Number(row.errors) };
  }

  /** The keys' counts by day and status class, and by endpoint, `from` to `to`. */
  async byDayClassOrEndpoint(
    keyIds: readonly string[],
    from: string,
    to: string,
  ): Promise<{ classRows: DayClassRow[]; endpointRows: EndpointErrors[] }> {
    const classRows: DayClassRow[] = [];
    const endpointRows: EndpointErrors[] = [];
    if (keyIds.length === 0) return { classRows, endpointRows };
    const raw: (RawUsageRow & { statusClass: number | null })[] = await this.dataSource.query(
      USAGE_BY_DAY_CLASS_OR_ENDPOINT,
      [keyIds, from, to],
    );
    for (const r of raw) {
      if (r.route === null)
        classRows.push({
          day: r.day,
          statusClass: Number(r.statusClass),
          requests: Number(r.requests),
          rateLimited: Number(r.rateLimited),
        });
      else
        endpointRows.push({
          method: r.method,
          route: r.route,
          requests: Number(r.requests),
          errors: Number(r.errors),
        });
    }
    return { classRows, endpointRows };
  }

  /** Deletes the counts of UTC days more than `days` days before today. */
  async purgeOlderThan(days: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM api_usage WHERE day < (now() AT TIME ZONE 'UTC')::date - $1::int`,
      [days],
    );
  }
}

function rowOf(c: UsageCount) {
  return {
    key_id: c.keyId,
    day: c.day,
    method: c.method,
    route: c.route,
    status_class: c.statusClass,
    rate_limited: c.rateLimited,
    requests: c.requests,
  };
}
