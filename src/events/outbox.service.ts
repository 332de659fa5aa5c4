import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { DomainEvent, EventName } from './event-types';
import { OutboxStore } from './outbox.store';

/** Writes events in the caller's transaction: an event exists exactly when its change commits. */
@Injectable()
export class OutboxService {
  constructor(private readonly store: OutboxStore) {}

  async append<E extends EventName>(em: EntityManager, event: DomainEvent<E>): Promise<void> {
    await this.appendMany(em, [event]);
  }

  async appendMany(em: EntityManager, events: DomainEvent[]): Promise<void> {
    if (events.length > 0) await this.store.insert(em, events);
  }
}
