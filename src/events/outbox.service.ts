import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import type { AllConfig } from '../platform/config';
import { Every } from '../platform/scheduling/every.decorator';
import { inBatches } from '../platform/scheduling/in-batches';
import type { DomainEvent, EventName } from './event-types';
import { OutboxStore } from './outbox.store';

/**
 * Writes events in the caller's transaction: an event exists exactly when its change commits.
 * The worker purges them past EVENT_RETENTION.
 */
@Injectable()
export class OutboxService {
  private readonly retentionMs: number;

  constructor(
    private readonly store: OutboxStore,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retentionMs = config.get('events.eventRetentionMs', { infer: true });
  }

  async append<E extends EventName>(em: EntityManager, event: DomainEvent<E>): Promise<void> {
    await this.appendMany(em, [event]);
  }

  async appendMany(em: EntityManager, events: DomainEvent[]): Promise<void> {
    if (events.length > 0) await this.store.insert(em, events);
  }

  /** The rest of `em`'s transaction writes its events in the bulk lane (an import's chunk). */
  useBulkLane(em: EntityManager): Promise<void> {
    return this.store.useBulkLane(em);
  }

  @Every('event-purge', (config) => config.get('events.purgeEveryMs', { infer: true }))
  purgeOld(stopping?: () => boolean): Promise<number> {
    return inBatches((n) => this.store.purgeBatch(this.retentionMs, n), stopping);
  }
}
