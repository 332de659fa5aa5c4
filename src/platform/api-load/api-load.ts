import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type Redis from 'ioredis';
import type { AllConfig } from '../config';
import { REDIS } from '../redis/redis.module';

/** Requests are counted per slot of this length, and a slot is flushed once it has ended. */
export const SLOT_MS = 250;
/** The rate is read over a second's slots, */
const WINDOW_SLOTS = 1_000 / SLOT_MS;
/** ending one slot back: the slot just ended may not be flushed yet by every API host. */
const LAG_SLOTS = 1;
/** A slot's key outlives the window a little, so a late reader still finds it. */
const SLOT_TTL_MS = 5_000;

/**
 * The API's request rate across its instances, through Redis: each API process counts its
 * requests per quarter second and adds the count to that slot's key once the slot has ended; a
 * reader (an import deciding whether to give way) sums a second's slots, one slot back. Requests are
 * only counted in memory, so a busy API pays one Redis call a quarter second, not one a request.
 */
@Injectable()
export class ApiLoad implements OnModuleDestroy {
  private readonly logger = new Logger(ApiLoad.name);
  private readonly keyPrefix: string;
  private counts = new Map<number, number>();
  private flushing: NodeJS.Timeout | undefined;
  private read: { at: number; rate: Promise<number> } | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    config: ConfigService<AllConfig, true>,
  ) {
    this.keyPrefix = `${config.get('redis.keyPrefix', { infer: true })}:api-requests`;
  }

  /** One request served now. */
  count(): void {
    const slot = Math.floor(Date.now() / SLOT_MS);
    this.counts.set(slot, (this.counts.get(slot) ?? 0) + 1);
    // Flushed just after the slot ends (with what the next one has counted by then); a reader
    // reads only slots that have ended.
    this.flushing ??= setTimeout(
      () => void this.flush(),
      (slot + 1) * SLOT_MS - Date.now() + 5,
    ).unref();
  }

  /**
   * Requests per second the API's instances served over a second ending a quarter second ago,
   * read at most once a slot; rejects when Redis cannot be read.
   */
  requestsPerSecond(): Promise<number> {
    const now = Date.now();
    if (this.read && now - this.read.at < SLOT_MS) return this.read.rate;
    const current = Math.floor(now / SLOT_MS);
    const keys = Array.from({ length: WINDOW_SLOTS }, (_, i) =>
      this.key(current - 1 - LAG_SLOTS - i),
    );
    const rate = this.redis
      .mget(...keys)
      .then((counts) => counts.reduce((sum, n) => sum + Number(n ?? 0), 0));
    this.read = { at: now, rate };
    rate.catch(() => {
      if (this.read?.rate === rate) this.read = undefined; // the next call tries Redis again
    });
    return rate;
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.flushing);
    await this.flush();
  }

  private async flush(): Promise<void> {
    this.flushing = undefined;
    const counts = this.counts;
    this.counts = new Map();
    if (counts.size === 0) return;
    const batch = this.redis.multi();
    for (const [slot, n] of counts)
      batch.incrby(this.key(slot), n).pexpire(this.key(slot), SLOT_TTL_MS);
    // A lost count makes the API look quieter for a second; it never fails a request.
    await batch
      .exec()
      .catch((error: Error) => this.logger.debug(`API load not shared: ${error.message}`));
  }

  private key(slot: number): string {
    return `${this.keyPrefix}:${slot}`;
  }
}
