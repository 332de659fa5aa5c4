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

/** A day's requests of one status class (2 for 2xx, 4 for 4xx…). */
export interface DayClassRow {
  day: string;
  statusClass: number;
  requests: number;
}

/** An endpoint's requests and errors (status 400 or above). */
export interface EndpointErrors {
  method: string;
  route: string;
  requests: number;
  errors: number;
}

/**
 * The account-wide view of usage: the API's summary of the same rows (so the numbers agree with
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
 * `rows` as the API reads them (day and endpoint), and `classRows` the same counts by day and
 * status class: two small folds instead of one over every day, endpoint and class.
 */
export function summarizeClassedUsage(
  days: number,
  now: Date,
  rows: UsageRow[],
  classRows: DayClassRow[],
): ClassedUsage {
  const summary = summarizeUsage(days, now, rows);
  const classes = [...new Set(classRows.map((r) => r.statusClass))].sort((a, b) => a - b);
  const column = new Map(classes.map((c, i) => [c, i]));
  const dailyByClass = summary.daily.map((d) => ({
    date: d.date,
    counts: classes.map(() => 0),
  }));
  const byDate = new Map(dailyByClass.map((d) => [d.date, d]));
  for (const row of classRows) {
    const day = byDate.get(row.day);
    if (day) day.counts[column.get(row.statusClass)!] += row.requests;
  }
  const errors = new Map<string, number>();
  for (const row of rows) {
    const id = `${row.method} ${row.route}`;
    errors.set(id, (errors.get(id) ?? 0) + row.errors);
  }
  const endpoints = summary.byEndpoint.map((e) => ({
    ...e,
    errors: errors.get(`${e.method} ${e.route}`) ?? 0,
  }));
  return { summary, classes, dailyByClass, endpoints };
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
