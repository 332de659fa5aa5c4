import type { DailyUsage, EndpointUsage, UsageResponse, UsageTotals } from './dto/usage.response';

const DAY_MS = 86_400_000;

/** Stored counts grouped by day and endpoint, as UsageService reads them. */
export interface UsageRow {
  day: string;
  method: string;
  route: string;
  requests: number;
  errors: number;
  rateLimited: number;
}

/** The UTC date range of `days` days ending today. */
export function usageRange(days: number, now = new Date()): { from: string; to: string } {
  const today = Math.floor(now.getTime() / DAY_MS);
  return { from: dateOf(today - days + 1), to: dateOf(today) };
}

/** Folds the rows into totals, a zero-filled daily series and the busiest endpoints first. */
export function summarizeUsage(days: number, now: Date, rows: UsageRow[]): UsageResponse {
  const { from, to } = usageRange(days, now);
  const firstDay = Date.parse(`${from}T00:00:00Z`) / DAY_MS;
  const daily: DailyUsage[] = Array.from({ length: days }, (_, i) => ({
    date: dateOf(firstDay + i),
    requests: 0,
    errors: 0,
    rateLimited: 0,
  }));
  const byDate = new Map(daily.map((d) => [d.date, d]));
  const endpoints = new Map<string, EndpointUsage>();
  const totals: UsageTotals = { requests: 0, errors: 0, rateLimited: 0 };
  for (const row of rows) {
    addTo(totals, row);
    const day = byDate.get(row.day);
    if (day) addTo(day, row);
    const id = `${row.method} ${row.route}`;
    const endpoint = endpoints.get(id);
    if (endpoint) endpoint.requests += row.requests;
    else endpoints.set(id, { method: row.method, route: row.route, requests: row.requests });
  }
  const byEndpoint = [...endpoints.values()].sort(
    (a, b) =>
      b.requests - a.requests || a.route.localeCompare(b.route) || a.method.localeCompare(b.method),
  );
  return { days, from, to, totals, daily, byEndpoint };
}

function addTo(sum: UsageTotals, row: UsageRow): void {
  sum.requests += row.requests;
  sum.errors += row.errors;
  sum.rateLimited += row.rateLimited;
}

function dateOf(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}
