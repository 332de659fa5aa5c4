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

/** A day's requests of one status class (2 for 2xx, 4 for 4xx…), and how many were rate limited. */
export interface DayClassRow {
  day: string;
  statusClass: number;
  requests: number;
  rateLimited: number;
}

/** An endpoint's requests and errors (status 400 or above). */
export interface EndpointErrors {
  method: string;
  route: string;
  requests: number;
  errors: number;
}

/**
 * The account-wide view of usage: the API's summary of the same counts (so the numbers agree with
 * GET /me/usage for one key), each day split by status class, and each endpoint's errors.
 */
export interface ClassedUsage {
  summary: UsageResponse;
  /** the status classes present, ascending (2, 4, 5…) */
  classes: number[];
  /** per date of `summary.daily`, the requests of each class in `classes` (same order) */
  dailyByClass: { date: string; counts: number[] }[];
  /** in the order of `summary.byEndpoint` */
  endpoints: EndpointErrors[];
}

/**
 * The counts by day and status class (`classRows`) and by endpoint (`endpointRows`), as the
 * Usage page reads them: it shows no endpoint's days, and reading them is most of its rows. A
 * 4xx or 5xx is an error, as the API counts them.
 */
export function summarizeClassedUsage(
  days: number,
  now: Date,
  classRows: DayClassRow[],
  endpointRows: EndpointErrors[],
): ClassedUsage {
  const { from, to, daily, byDate } = emptyDaily(days, now);
  const totals: UsageTotals = { requests: 0, errors: 0, rateLimited: 0 };
  const classes = [...new Set(classRows.map((r) => r.statusClass))].sort((a, b) => a - b);
  const column = new Map(classes.map((c, i) => [c, i]));
  const dailyByClass = daily.map((d) => ({ date: d.date, counts: classes.map(() => 0) }));
  for (const row of classRows) {
    const counts = {
      requests: row.requests,
      errors: row.statusClass >= 4 ? row.requests : 0,
      rateLimited: row.rateLimited,
    };
    addTo(totals, counts);
    const day = byDate.get(row.day);
    if (!day) continue;
    addTo(day.usage, counts);
    dailyByClass[day.index].counts[column.get(row.statusClass)!] += row.requests;
  }
  const endpoints = [...endpointRows].sort(busiestFirst);
  const byEndpoint = endpoints.map(({ method, route, requests }) => ({ method, route, requests }));
  return {
    summary: { days, from, to, totals, daily, byEndpoint },
    classes,
    dailyByClass,
    endpoints,
  };
}

/** The UTC date range of `days` days ending today. */
export function usageRange(days: number, now = new Date()): { from: string; to: string } {
  const today = Math.floor(now.getTime() / DAY_MS);
  return { from: dateOf(today - days + 1), to: dateOf(today) };
}

/** Folds the rows into totals, a zero-filled daily series and the busiest endpoints first. */
export function summarizeUsage(days: number, now: Date, rows: UsageRow[]): UsageResponse {
  const { from, to, daily, byDate } = emptyDaily(days, now);
  const endpoints = new Map<string, EndpointUsage>();
  const totals: UsageTotals = { requests: 0, errors: 0, rateLimited: 0 };
  for (const row of rows) {
    addTo(totals, row);
    const day = byDate.get(row.day);
    if (day) addTo(day.usage, row);
    const id = `${row.method} ${row.route}`;
    const endpoint = endpoints.get(id);
    if (endpoint) endpoint.requests += row.requests;
    else endpoints.set(id, { method: row.method, route: row.route, requests: row.requests });
  }
  const byEndpoint = [...endpoints.values()].sort(busiestFirst);
  return { days, from, to, totals, daily, byEndpoint };
}

/** Each date of the range with zero counts, oldest first, and each found by its date. */
function emptyDaily(days: number, now: Date) {
  const { from, to } = usageRange(days, now);
  const firstDay = Date.parse(`${from}T00:00:00Z`) / DAY_MS;
  const daily: DailyUsage[] = Array.from({ length: days }, (_, i) => ({
    date: dateOf(firstDay + i),
    requests: 0,
    errors: 0,
    rateLimited: 0,
  }));
  const byDate = new Map(daily.map((usage, index) => [usage.date, { usage, index }]));
  return { from, to, daily, byDate };
}

/** The busiest endpoint first; ties by route, then method. */
function busiestFirst(a: EndpointUsage, b: EndpointUsage): number {
  return (
    b.requests - a.requests || a.route.localeCompare(b.route) || a.method.localeCompare(b.method)
  );
}

function addTo(sum: UsageTotals, row: UsageTotals): void {
  sum.requests += row.requests;
  sum.errors += row.errors;
  sum.rateLimited += row.rateLimited;
}

function dateOf(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}
