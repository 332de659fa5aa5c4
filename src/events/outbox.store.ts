import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { RawJson } from '../common/http/raw-json';
import { feedItemSql } from './feed-item.sql';
import { PreparedReads } from '../platform/database/prepared-reads';
import { OutboxWake } from './outbox-wake';
import type { DomainEvent, EventName } from './event-types';
import type { EventLane } from './event-lane';

/** One assigner at a time; the others skip their turn (the holder is doing the work). */
const FEED_POSITION_LOCK_KEY = 7_263_920_001;

/** A page of GET /events: its items as JSON text, rendered by the database. */
export interface FeedPage {
  items: RawJson;
  hasMore: boolean;
  /** the last item's id; null when the page is empty */
  nextCursor: string | null;
}

export interface FeedFilter {
  /** the event id to continue after; undefined = from the oldest kept event */
  after?: string;
  limit: number;
  types?: EventName[];
  listingId?: string;
  retentionMs: number;
}

/**
 * The owner of `outbox_events`: its writes, the feed and the purge. Two statements write a change
 * and its events together on purpose (ListingsStore.insertCreated and expireDue), and the webhook
 * dispatch keeps its own bookkeeping columns (`relayed_at`, `fanned_out_at`: DispatchStore),
 * except for events nobody hears, settled when positioned (assignFeedPositions).
 */
@Injectable()
export class OutboxStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: PreparedReads,
    private readonly wake: OutboxWake,
  ) {}

  /**
   * Positions committed events, oldest first, one batch at a time under an advisory lock, each
   * committing before the next takes it: a reader continuing after the highest position seen skips
   * nothing. One statement, its own transaction, so its rows (which the relay skips) are never
   * locked across a round trip to this busy worker. Its snapshot may predate the lock; FOR UPDATE
   * re-reads each row, so a row the previous batch positioned is not numbered twice. Locked rows
   * are waited for, not skipped, which would break commit order.
   * An unrelayed event whose account has no active webhook endpoint has nobody to hear it: the
   * same write settles it (relayed and fanned out), as the relay, which skips such accounts
   * (DispatchStore.claimUnrelayed), would have with a second write. A batch that held an
   * interactive event for the relay wakes the relays: a relay that came for it while it was
   * locked skipped it, and would otherwise wait for its next poll.
   */
  async assignFeedPositions(batchSize: number): Promise<number> {
    const [rows, count] = await this.dataSource.query(
      `WITH due AS (
         SELECT id, seq, account_id FROM outbox_events
         WHERE feed_position IS NULL AND (SELECT pg_try_advisory_xact_lock($2))
         ORDER BY seq LIMIT $1 FOR UPDATE),
       numbered AS (
         SELECT id, nextval('outbox_feed_position_seq') AS position,
           NOT EXISTS (SELECT 1 FROM webhook_endpoints e
             WHERE e.account_id = ordered.account_id AND e.is_active) AS unheard
         FROM (SELECT id, account_id FROM due ORDER BY seq) ordered)
       UPDATE outbox_events o SET feed_position = n.position, feed_item = ${feedItemSql('o')},
         relayed_at = CASE WHEN n.unheard AND o.relayed_at IS NULL THEN now() ELSE o.relayed_at END,
         fanned_out_at = CASE WHEN n.unheard AND o.relayed_at IS NULL THEN now() ELSE o.fanned_out_at END
       FROM numbered n WHERE o.id = n.id
       RETURNING NOT o.bulk AND o.relayed_at IS NULL AS "forRelay"`,
      [batchSize, FEED_POSITION_LOCK_KEY],
    );
    if ((rows as { forRelay: boolean }[]).some((row) => row.forRelay))
      this.wake.written(this.dataSource.manager);
    return count as number;
  }

  /**
   * A page after the cursor, in feed order, as JSON text (items rendered when positioned);
   * undefined when the cursor is not the scope's or is past retention. Aggregates rely on the
   * subquery's index order (nothing above the LIMIT reorders it); `hasMore` probes one row past.
   */
  async feedPage(scope: OwnerScope, filter: FeedFilter): Promise<FeedPage | undefined> {
    const statement = feedPageStatement(scope, filter);
    const [row] = await this.reads.query<{
      cursorFound: boolean;
      hasMore: boolean;
      nextCursor: string | null;
      items: string;
    }>(this.dataSource.manager, statement.text, statement.params);
    if (!row.cursorFound) return undefined;
    return { items: new RawJson(row.items), hasMore: row.hasMore, nextCursor: row.nextCursor };
  }

  /** Appends events in the caller's transaction, so they exist exactly when the change commits. */
  async insert(em: EntityManager, events: DomainEvent[]): Promise<void> {
    await em.query(
      `INSERT INTO outbox_events (account_id, event, data)
       SELECT x."accountId", x.event, x.data FROM jsonb_to_recordset($1::jsonb) AS x("accountId" uuid, event text, data jsonb)`,
      [JSON.stringify(events)],
    );
    this.wake.written(em);
  }

  /**
   * Every event the rest of `em`'s transaction writes goes in the bulk lane (the column's default
   * reads this setting): the import chunk's statements need not know about lanes. Its commit
   * wakes no relay (OutboxWake).
   */
  async useBulkLane(em: EntityManager): Promise<void> {
    await em.query(`SELECT set_config('listings.event_lane', 'bulk', true)`);
    this.wake.inBulkLane(em);
  }

  /** Events not relayed yet, per lane: how many, and how old the oldest is (0 when none). */
  async backlog(): Promise<{ lane: EventLane; count: number; oldestAgeSeconds: number }[]> {
    // Both on the pending partial index; seq order is commit order closely enough for an age.
    return this.dataSource.query(
      `SELECT CASE WHEN lane.bulk THEN 'bulk' ELSE 'interactive' END AS lane,
         (SELECT count(*)::int FROM outbox_events WHERE relayed_at IS NULL AND bulk = lane.bulk) AS count,
         COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM outbox_events
           WHERE relayed_at IS NULL AND bulk = lane.bulk ORDER BY seq LIMIT 1)), 0)::float8 AS "oldestAgeSeconds"
       FROM (VALUES (false), (true)) AS lane(bulk)`,
    );
  }

  /**
   * One batch past the cut-off, of fanned-out events only: an event still owed to the relay or
   * its fan-out job (which reads the row) stays, however old, and goes on a run after it is
   * settled. SKIP LOCKED, so the purge never queues behind a writer or another worker's purge.
   */
  async purgeBatch(olderThanMs: number, batchSize: number): Promise<number> {
    const [, count] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM outbox_events
         WHERE fanned_out_at IS NOT NULL AND created_at < now() - $1 * interval '1 millisecond'
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM outbox_events o USING due WHERE o.id = due.id`,
      [olderThanMs, batchSize],
    );
    return count as number;
  }
}

/**
 * The statement behind GET /events (OutboxStore.feedPage): the cursor is found only among the
 * scope's positioned events within retention; `hasMore` is a probe one row past the page.
 * `listingId` matches `data.id` of every event but an import's, whose `data.id` is the import.
 */
export function feedPageStatement(
  scope: OwnerScope,
  filter: FeedFilter,
): { text: string; params: unknown[] } {
  const after = `(SELECT feed_position FROM outbox_events
         WHERE id = $3 AND account_id = $1 AND livemode = $2 AND feed_position IS NOT NULL
           AND created_at >= now() - $4 * interval '1 millisecond')`;
  const candidates = `FROM outbox_events
         WHERE account_id = $1 AND livemode = $2 AND feed_position IS NOT NULL
           AND feed_position > COALESCE(${after}, 0)
           AND created_at >= now() - $4 * interval '1 millisecond'
           AND ($5::text[] IS NULL OR event = ANY($5))
           AND ($6::text IS NULL OR (data->>'id' = lower($6) AND event NOT LIKE 'import.%'))
         ORDER BY feed_position`;
  return {
    text: `SELECT ($3::uuid IS NULL OR EXISTS ${after}) AS "cursorFound",
         EXISTS (SELECT 1 ${candidates} OFFSET $7 LIMIT 1) AS "hasMore",
         page."nextCursor", page.items
       FROM (SELECT '[' || COALESCE(string_agg(feed_item, ','), '') || ']' AS items,
               (array_agg(id))[count(*)] AS "nextCursor"
             FROM (SELECT id, feed_item ${candidates} LIMIT $7) ordered) page`,
    params: [
      scope.accountId,
      scope.livemode,
      filter.after ?? null,
      filter.retentionMs,
      filter.types ?? null,
      filter.listingId ?? null,
      filter.limit,
    ],
  };
}
