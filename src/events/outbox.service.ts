import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { DomainEvent, EventName } from './event-types';

/**
 * Writes events into the outbox inside the caller's transaction, so an event exists exactly
 * when the change that caused it commits. Delivery reads the outbox later.
 */
@Injectable()
export class OutboxService {
  constructor(private readonly dataSource: DataSource) {}

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

  /** Events not relayed yet: how many, and how old the oldest is (0 when none); for metrics. */
  async backlog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    // Both on the pending partial index; seq order is commit order closely enough for an age.
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS count,
         COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM outbox_events
           WHERE relayed_at IS NULL ORDER BY seq LIMIT 1)), 0)::float8 AS "oldestAgeSeconds"
       FROM outbox_events WHERE relayed_at IS NULL`,
    );
    return row;
  }
}
