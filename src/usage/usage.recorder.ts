import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PollingLoop } from '../common/scheduling/polling-loop';
import { UsageBatch, UsageTally } from './usage-tally';

/** Keeps /me/usage and lastUsedAt within the promised 5 s, with room for the write itself. */
export const USAGE_FLUSH_INTERVAL_MS = 2_000;

/** Adds the batch to the stored counts; a key deleted meanwhile is skipped, not an error. */
const UPSERT_COUNTS = `
  INSERT INTO api_usage AS u (key_id, day, method, route, status_class, rate_limited, requests)
  SELECT x.key_id, x.day, x.method, x.route, x.status_class, x.rate_limited, x.requests
  FROM jsonb_to_recordset($1::jsonb) AS x(key_id uuid, day date, method text, route text,
    status_class smallint, rate_limited boolean, requests bigint)
  WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = x.key_id)
  ORDER BY x.key_id, x.day, x.method, x.route, x.status_class, x.rate_limited
  ON CONFLICT (key_id, day, method, route, status_class, rate_limited)
  DO UPDATE SET requests = u.requests + EXCLUDED.requests`;

/** GREATEST keeps the latest time when several instances write theirs. */
const TOUCH_KEYS = `
  UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, x.used_at)
  FROM jsonb_to_recordset($1::jsonb) AS x(key_id uuid, used_at timestamptz)
  WHERE k.id = x.key_id`;

/**
 * Counts every request made with a key in memory and writes the counts in batches: one upsert of
 * usage rows and one update of api_keys.last_used_at per flush, never a write per request.
 * Flushes every USAGE_FLUSH_INTERVAL_MS and once more at shutdown, after the HTTP server closed.
 */
@Injectable()
export class UsageRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Usage');
  private readonly tally = new UsageTally();
  /** unref'd: pending counts alone do not keep the process up; shutdown flushes them */
  private readonly loop = new PollingLoop(
    this.logger,
    USAGE_FLUSH_INTERVAL_MS,
    () => undefined, // write() logs a failure once per outage itself
    () => this.flush(),
    { runAtStart: false, unref: true },
  );
  /** the flush in progress; the next one waits for it, so batches never overlap */
  private flushing: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.flush().catch(() => undefined);
  }

  record(keyId: string, method: string, route: string, status: number): void {
    this.tally.add(keyId, method, route, status);
  }

  /** Writes what has been counted so far. Rejects when the database does (counts are kept). */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    if (this.tally.isEmpty) return;
    const batch = this.tally.drain();
    try {
      await this.dataSource.transaction(async (em) => {
        await em.query(UPSERT_COUNTS, [JSON.stringify(rowsOf(batch))]);
        await em.query(TOUCH_KEYS, [JSON.stringify(touchesOf(batch))]);
      });
      if (this.failing) this.logger.log('Usage counts are being written again');
      this.failing = false;
    } catch (error) {
      this.tally.restore(batch);
      if (!this.failing) {
        this.logger.warn(`Usage counts kept in memory, write failed: ${(error as Error).message}`);
      }
      this.failing = true;
      throw error;
    }
  }
}

function rowsOf(batch: UsageBatch) {
  return batch.counts.map((c) => ({
    key_id: c.keyId,
    day: c.day,
    method: c.method,
    route: c.route,
    status_class: c.statusClass,
    rate_limited: c.rateLimited,
    requests: c.requests,
  }));
}

function touchesOf(batch: UsageBatch) {
  return [...batch.lastUsed].map(([keyId, at]) => ({
    key_id: keyId,
    used_at: new Date(at).toISOString(),
  }));
}
