export class UsageTotals {
  requests: number;
  /** responses with status 400 or above, 429 included */
  errors: number;
  /** responses with status 429 */
  rateLimited: number;
}

export class DailyUsage extends UsageTotals {
  /** UTC date, YYYY-MM-DD */
  date: string;
}

export class EndpointUsage {
  method: string;
  /** route template, e.g. /v1/listings/:id */
  route: string;
  requests: number;
}

export class UsageResponse {
  days: number;
  /** first UTC date of the range, YYYY-MM-DD */
  from: string;
  /** last UTC date of the range (today), YYYY-MM-DD */
  to: string;
  totals: UsageTotals;
  /** every date of the range, oldest first, zeros where the key was not used */
  daily: DailyUsage[];
  /** most used first */
  byEndpoint: EndpointUsage[];
}
