import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import type { DataSource, EntityManager } from 'typeorm';
import { AfterCommit } from '../common/db/after-commit';
import type { AllConfig } from '../platform/config';
import { REDIS } from '../platform/redis/redis.module';

/** Under load every poll carries a batch anyway; more wakes would only cost Redis and API CPU. */
const MIN_GAP_MS = 5;

/**
 * Redis PUBLISH after commit, so relays skip the poll wait; a lost wake waits for the poll. A
 * transaction in the bulk lane (an import's chunk) does not wake them: the bulk relay finds its
 * events on its next poll, 50 ms at most, and every relay would otherwise answer each chunk's
 * commit with a read, beside the import and for nothing on an interactive-only worker.
 */
@Injectable()
export class OutboxWake implements OnModuleDestroy {
  private readonly logger = new Logger(OutboxWake.name);
  private readonly channel: string;
  /** per transaction: `true` for each write, `false` once it is in the bulk lane */
  private readonly committed: AfterCommit<boolean>;
  private lastAt = 0;
  private trailing: NodeJS.Timeout | undefined;
  private subscriber: Redis | undefined;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    config: ConfigService<AllConfig, true>,
  ) {
    this.channel = `${config.get('redis.keyPrefix', { infer: true })}:outbox-wake`;
    this.committed = new AfterCommit(dataSource, (_, marks) => {
      if (!marks.includes(false)) this.announce();
    });
  }

  /** Call after writing events through `em`: the relays are woken once its transaction commits. */
  written(em: EntityManager): void {
    const runner = em.queryRunner;
    if (runner?.isTransactionActive) this.committed.add(runner, true);
    // A statement of its own has committed by the time it returns.
    else this.announce();
  }

  /** The rest of `em`'s transaction is in the bulk lane: its commit wakes nobody. */
  inBulkLane(em: EntityManager): void {
    const runner = em.queryRunner;
    if (runner?.isTransactionActive) this.committed.add(runner, false);
  }

  /** Subscribes on its own connection (a subscriber can do nothing else), again on reconnect. */
  async listen(onWake: () => void): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber.on('error', () => undefined); // the shared connection already logs outages
    this.subscriber.on('message', onWake);
    try {
      await this.subscriber.subscribe(this.channel);
    } catch (error) {
      // Not fatal: the relay still polls; ioredis subscribes once it reconnects.
      this.logger.warn({ err: error }, 'Could not subscribe to outbox wakes; the relay polls');
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.trailing);
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** Publishes now, or, within MIN_GAP_MS of the last one, once at the end of that gap. */
  private announce(): void {
    const wait = this.lastAt + MIN_GAP_MS - Date.now();
    if (wait <= 0) this.publish();
    else
      this.trailing ??= setTimeout(() => {
        this.trailing = undefined;
        this.publish();
      }, wait);
  }

  private publish(): void {
    this.lastAt = Date.now();
    // Failing is harmless (see the class comment); the shared connection logs Redis outages.
    this.redis.publish(this.channel, '').catch(() => undefined);
  }
}
