import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { DomainEvent, EventName } from './event-types';

/**
 * Writes events into the outbox inside the caller's transaction, so an event exists exactly
 * when the change that caused it commits. Delivery reads the outbox later.
 */
@Injectable()
export class OutboxService {
  async append<E extends EventName>(em: EntityManager, event: DomainEvent<E>): Promise<void> {
    await this.appendMany(em, [event]);
  }

  async appendMany(em: EntityManager, events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    await em.query(
      `INSERT INTO outbox_events (account_id, event, data)
       SELECT x."accountId", x.event, x.data FROM jsonb_to_recordset($1::jsonb) AS x("accountId" uuid, event text, data jsonb)`,
      [JSON.stringify(events)],
    );
  }
}
