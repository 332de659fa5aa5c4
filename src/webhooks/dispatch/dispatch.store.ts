import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { EventLane } from '../../events/event-lane';
import type { EventName } from '../../events/event-types';
import {
  insertDeliveriesSql,
  type NewDelivery,
  type PendingDelivery,
  type SweepCursor,
} from '../deliveries/webhook-delivery.store';
import { subscribersSql } from '../endpoints/webhook-endpoint.store';

/** An event as fan-out reads it, with the ids of the endpoints that hear it. */
export interface EventToFanOut {
  id: string;
  accountId: string;
  event: EventName;
  data: Record<string, unknown>;
  createdAt: Date;
  subscribers: string[];
}

/** An outbox row the relay holds, of an account with an active webhook endpoint. */
export interface ClaimedEvent {
  id: string;
  accountId: string;
}

/**
 * The account a claim served last, in claimUnrelayed's order (every account's first, then
 * seconds...): the last of the firsts. The next claim of the lane starts after it.
 */
export function lastAccountServed(rows: readonly ClaimedEvent[]): string | null {
  const accounts = new Set(rows.map((row) => row.accountId)).size;
  return accounts === 0 ? null : rows[accounts - 1].accountId;
}

/**
 * The accounts with events of a lane waiting for the relay and an active endpoint to hear them,
 * in account order: a walk of the pending index, one probe per account. `bulk` is the SQL
 * boolean naming the lane. The other accounts' events wait for the feed positioner, which
 * settles them (OutboxStore.assignFeedPositions).
 */
const heardPendingAccounts = (bulk: string) => `WITH RECURSIVE pending AS (
         (SELECT account_id FROM outbox_events WHERE relayed_at IS NULL AND bulk = ${bulk}
          ORDER BY account_id LIMIT 1)
         UNION ALL
         SELECT (SELECT o.account_id FROM outbox_events o
                 WHERE o.relayed_at IS NULL AND o.bulk = ${bulk} AND o.account_id > p.account_id
                 ORDER BY o.account_id LIMIT 1)
         FROM pending p WHERE p.account_id IS NOT NULL)
       SELECT account_id FROM pending p WHERE account_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.account_id = p.account_id AND e.is_active)`;

/**
 * The dispatch pipeline's bookkeeping on `outbox_events` (`relayed_at`, `fanned_out_at`): what the
 * relay claims (and marks), what fan-out reads and settles, what the sweep finds lost. The rest of
 * the table (writes, the feed, the purge) is OutboxStore's. Fan-out's write also inserts the
 * deliveries, with WebhookDeliveryStore's INSERT (insertDeliveriesSql), in the same statement.
 */
@Injectable()
export class DispatchStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Of `lanes`, those with events waiting for the relay that someone hears: a walk of the
   * pending index per lane, stopped at the first account with an active endpoint. Events nobody
   * hears do not wake it (the positioner settles them), so a burst of them costs no empty claims.
   * A worker asks only of the lanes it serves: under an import, the bulk lane's head is a long
   * run of relayed entries not yet cleaned up, and walking it would delay an interactive turn.
   */
  async unrelayedLanes(lanes: readonly EventLane[]): Promise<EventLane[]> {
    const rows: { lane: EventLane }[] = await this.dataSource.query(
      `SELECT l.lane FROM unnest($1::text[]) WITH ORDINALITY AS l(lane, turn)
       WHERE EXISTS (${heardPendingAccounts("(l.lane = 'bulk')")})
       ORDER BY l.turn`,
      [lanes],
    );
    return rows.map((row) => row.lane);
  }

  /**
   * Locks up to `limit` unrelayed events of a lane and marks them relayed, in one statement of
   * the caller's transaction, which commits only once their fan-out jobs are queued (a rollback
   * leaves them unrelayed). Shared round-robin among the accounts that have some and an active
   * endpoint (heardPendingAccounts): the accounts after `afterAccount` first, then from the lowest
   * id, each account's oldest first, an equal share each. Returned interleaved (every account's
   * first, then every account's second...), the order to queue them in. Events nobody hears are
   * left to the feed positioner, which settles them in the write that positions them. One
   * statement, not three: under load each round trip waits for a CPU, and a sale waits for each.
   */
  claimUnrelayed(
    em: EntityManager,
    lane: EventLane,
    limit: number,
    afterAccount: string | null,
  ): Promise<ClaimedEvent[]> {
    return em.query(
      `WITH accounts AS (
         SELECT account_id, row_number() OVER (ORDER BY account_id > $2::uuid IS NOT FALSE DESC, account_id) AS turn
         FROM (${heardPendingAccounts('$1')}
               ORDER BY account_id > $2::uuid IS NOT FALSE DESC, account_id LIMIT $3) heard),
       share AS (SELECT GREATEST(1, $3 / GREATEST(count(*), 1))::int AS n FROM accounts),
       claimed AS (
         SELECT c.id, c.account_id, c.rank, a.turn
         FROM accounts a CROSS JOIN share
         CROSS JOIN LATERAL (
           SELECT o.id, o.account_id, row_number() OVER (ORDER BY o.seq) AS rank
           FROM (SELECT p.id, p.account_id, p.seq FROM outbox_events p
                 WHERE p.relayed_at IS NULL AND p.bulk = $1 AND p.account_id = a.account_id
                 ORDER BY p.seq LIMIT share.n FOR UPDATE SKIP LOCKED) o) c),
       marked AS (
         UPDATE outbox_events e SET relayed_at = now() FROM claimed c WHERE e.id = c.id)
       SELECT id, account_id AS "accountId" FROM claimed ORDER BY rank, turn`,
      [lane === 'bulk', afterAccount, limit],
    );
  }

  /** The events, each with the endpoints that hear it (subscribersSql), in one read. */
  eventsToFanOut(eventIds: string[]): Promise<EventToFanOut[]> {
    return this.dataSource.query<EventToFanOut[]>(
      `SELECT o.id, o.account_id AS "accountId", o.event, o.data, o.created_at AS "createdAt",
         ${subscribersSql('o')} AS subscribers
       FROM outbox_events o WHERE o.id = ANY($1)`,
      [eventIds],
    );
  }

  /**
   * Fan-out's writes, one statement: the new deliveries, the events marked fanned out, and the
   * events' deliveries still pending from an earlier fan-out (the statement's snapshot does not
   * see its own inserts, so those are the earlier ones), to be resumed.
   */
  async recordFanout(
    rows: NewDelivery[],
    eventIds: string[],
  ): Promise<{ created: string[]; pending: (PendingDelivery & { eventId: string })[] }> {
    const answered: (PendingDelivery & { eventId: string | null })[] = await this.dataSource.query(
      `WITH inserted AS (${insertDeliveriesSql('$1')}),
       settled AS (
         UPDATE outbox_events SET fanned_out_at = now() WHERE id = ANY($2) AND fanned_out_at IS NULL)
       SELECT id, 0 AS attempts, NULL::uuid AS "eventId" FROM inserted
       UNION ALL
       SELECT id, attempts, event_id FROM webhook_deliveries
       WHERE event_id = ANY($2) AND status = 'pending'`,
      [JSON.stringify(rows), eventIds],
    );
    const created = answered.filter((row) => row.eventId === null).map((row) => row.id);
    const pending = answered.filter(
      (row): row is PendingDelivery & { eventId: string } => row.eventId !== null,
    );
    return { created, pending };
  }

  /**
   * Events relayed more than `graceMs` ago whose fan-out never ran (their job was lost), a page
   * after `after`, the last of the previous page (relayed_at as text: a Date drops microseconds).
   */
  unfannedEvents(
    graceMs: number,
    limit: number,
    after?: SweepCursor,
  ): Promise<(SweepCursor & { bulk: boolean })[]> {
    return this.dataSource.query(
      `SELECT id, relayed_at::text AS at, bulk FROM outbox_events
       WHERE fanned_out_at IS NULL AND relayed_at < now() - $1 * interval '1 millisecond'
         AND ($3::timestamptz IS NULL OR (relayed_at, id) > ($3::timestamptz, $4::uuid))
       ORDER BY relayed_at, id LIMIT $2`,
      [graceMs, limit, after?.at ?? null, after?.id ?? null],
    );
  }
}
