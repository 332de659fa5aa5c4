const DAY_MS = 86_400_000;

/** One row of api_usage, as counted since the last flush. */
export interface UsageCount {
  keyId: string;
  /** UTC date, YYYY-MM-DD */
  day: string;
  method: string;
  /** route template, e.g. /v1/listings/:id */
  route: string;
  /** 2 for 2xx, 4 for 4xx, … */
  statusClass: number;
  /** a 429, kept apart from the other 4xx */
  rateLimited: boolean;
  requests: number;
}

export interface UsageBatch {
  counts: UsageCount[];
  /** the latest use of each key, epoch ms */
  lastUsed: Map<string, number>;
}

const idOf = (c: Omit<UsageCount, 'requests'>) =>
  `${c.keyId} ${c.day} ${c.method} ${c.statusClass} ${c.rateLimited} ${c.route}`;

/**
 * Counts between flushes, one entry per key, day, endpoint and outcome: a request costs a map
 * update, the database one row per combination per flush.
 */
export class UsageTally {
  private counts = new Map<string, UsageCount>();
  private lastUsed = new Map<string, number>();
  private dayCache = { number: NaN, date: '' };

  get isEmpty(): boolean {
    return this.counts.size === 0 && this.lastUsed.size === 0;
  }

  add(keyId: string, method: string, route: string, status: number, at = Date.now()): void {
    this.merge({
      keyId,
      day: this.dateOf(at),
      method,
      route,
      statusClass: Math.floor(status / 100),
      rateLimited: status === 429,
      requests: 1,
    });
    this.touch(keyId, at);
  }

  /** Hands over everything counted so far and starts afresh. */
  drain(): UsageBatch {
    const batch = { counts: [...this.counts.values()], lastUsed: this.lastUsed };
    this.counts = new Map();
    this.lastUsed = new Map();
    return batch;
  }

  /** Puts back a batch that could not be written, so a database blip loses no counts. */
  restore(batch: UsageBatch): void {
    for (const count of batch.counts) this.merge(count);
    for (const [keyId, at] of batch.lastUsed) this.touch(keyId, at);
  }

  private merge(count: UsageCount): void {
    const id = idOf(count);
    const existing = this.counts.get(id);
    if (existing) existing.requests += count.requests;
    else this.counts.set(id, { ...count });
  }

  private touch(keyId: string, at: number): void {
    if ((this.lastUsed.get(keyId) ?? 0) < at) this.lastUsed.set(keyId, at);
  }

  /** The UTC date, formatted once per day rather than once per request. */
  private dateOf(at: number): string {
    const number = Math.floor(at / DAY_MS);
    if (number !== this.dayCache.number) {
      this.dayCache = { number, date: new Date(number * DAY_MS).toISOString().slice(0, 10) };
    }
    return this.dayCache.date;
  }
}
