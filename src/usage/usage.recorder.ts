import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../accounts/api-keys.service';
import { PollingLoop } from '../platform/scheduling/polling-loop';
import { UsageTally } from './usage-tally';
import { UsageStore } from './usage.store';

/** Keeps /me/usage and lastUsedAt within the promised 5 s, with room for the write itself. */
export const USAGE_FLUSH_INTERVAL_MS = 2_000;

/**
 * Counts requests per key in memory and writes them in one transaction per flush (usage rows
 * and lastUsedAt), never per request; a last flush at shutdown, after the HTTP server closed.
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

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: UsageStore,
    private readonly apiKeys: ApiKeysService,
  ) {}

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
        await this.store.addCounts(em, batch.counts);
        await this.apiKeys.touchLastUsed(em, batch.lastUsed);
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
