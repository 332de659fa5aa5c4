import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { EventName } from '../../events/event-types';
import type { SweepCursor } from '../deliveries/webhook-delivery.store';

/** An outbox event as fan-out reads it. */
export interface StoredEvent {
  id: string;
  accountId: string;
  event: EventName;
  data: { livemode: boolean } & Record<string, unknown>;
  createdAt: Date;
}

/** An outbox row the relay holds: whether its account has an active webhook endpoint. */
export interface ClaimedEvent {
  id: string;
  subscribed: boolean;
}

/**
 * The dispatch pipeline's bookkeeping on `outbox_events` (`relayed_at`, `fanned_out_at`): what the
 * relay claims and marks, what fan-out reads and settles, what the sweep finds lost. The rest of
 * the table (writes, the feed, the purge) is OutboxStore's.
 */
@Injectable()
export class DispatchStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether any event waits for the relay: one cheap read on the pending index. */
  async hasUnrelayed(): Promise<boolean> {
    const [{ pending }] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM outbox_events WHERE relayed_at IS NULL) AS pending`,
    );
    return pending;
  }

  /** Locks up to `limit` unrelayed events, oldest first; `subscribed`: account has an endpoint. */
  claimUnrelayed(em: EntityManager, limit: number): Promise<ClaimedEvent[]> {
    return em.query(
      `SELECT o.id, EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.account_id = o.account_id AND e.is_active) AS subscribed
       FROM outbox_events o WHERE o.relayed_at IS NULL
       ORDER BY o.seq LIMIT $1 FOR UPDATE OF o SKIP LOCKED`,
      [limit],
    );
  }

  /** Marks claimed events relayed; those not in `fanningOut` are fanned out (to nobody) too. */
  async markRelayed(em: EntityManager, ids: string[], fanningOut: string[]): Promise<void> {
    await em.query(
      `UPDATE outbox_events SET relayed_at = now(), fanned_out_at = CASE WHEN id = ANY($2) THEN NULL ELSE now() END
       WHERE id = ANY($1)`,
      [ids, fanningOut],
    );
  }

  async find(eventId: string): Promise<StoredEvent | undefined> {
    const [row] = await this.dataSource.query<StoredEvent[]>(
      `SELECT id, account_id AS "accountId", event, data, created_at AS "createdAt"
       FROM outbox_events WHERE id = $1`,
      [eventId],
    );
    return row;
  }

  async markFannedOut(eventId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE outbox_events SET fanned_out_at = now() WHERE id = $1 AND fanned_out_at IS NULL',
      [eventId],
    );
  }

  /**
   * Events relayed more than `graceMs` ago whose fan-out never ran (their job was lost), a page
   * after `after`, the last of the previous page (relayed_at as text: a Date drops microseconds).
   */
  unfannedEvents(graceMs: number, limit: number, after?: SweepCursor): Promise<SweepCursor[]> {
    return this.dataSource.query(
      `SELECT id, relayed_at::text AS at FROM outbox_events
       WHERE fanned_out_at IS NULL AND relayed_at < now() - $1 * interval '1 millisecond'
         AND ($3::timestamptz IS NULL OR (relayed_at, id) > ($3::timestamptz, $4::uuid))
       ORDER BY relayed_at, id LIMIT $2`,
      [graceMs, limit, after?.at ?? null, after?.id ?? null],
    );
  }
}
