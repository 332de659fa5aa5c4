import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RecordScope } from '../common/auth/scope';
import type { EventName } from './event-types';

/**
 * Any number of workers may run the assigner; this transaction-scoped advisory lock lets one at
 * a time assign positions (the others skip their turn: the holder is doing the work).
 */
const FEED_POSITION_LOCK_KEY = 7_263_920_001;

export interface FeedRow {
  id: string;
  event: EventName;
  createdAt: Date;
  livemode: boolean;
  data: Record<string, unknown>;
}

export interface FeedFilter {
  /** the feed position to continue after; 0 = from the oldest kept event */
  afterPosition: number;
  limit: number;
  types?: EventName[];
  listingId?: string;
  retentionMs: number;
}

/** The outbox as the events feed and its retention: positions, pages, purge. */
@Injectable()
export class OutboxStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Gives committed events without one the next feed positions, oldest insert first; returns
   * how many. Why this yields commit order: positions are only ever assigned here, by one
   * transaction at a time (the advisory lock), and each such transaction commits before the
   * next one takes the lock. So a later assigner's positions are all higher, and whoever can
   * see a position can also see every lower one (its transaction committed earlier). A reader
   * that continues after the highest position it has seen therefore never skips an event: an
   * event whose writer committed late simply gets a position higher than anything served so far.
   *
   * The lock is taken in a statement of its own: in READ COMMITTED each statement takes its
   * snapshot when it starts, so the UPDATE sees everything the previous holder committed. Had the
   * lock been taken inside the UPDATE, its snapshot could predate that commit. SKIP LOCKED: a row
   * the relay holds is positioned on the next round rather than waited for (it then takes a
   * higher position, which the argument above allows).
   */
  async assignFeedPositions(batchSize: number): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [
        FEED_POSITION_LOCK_KEY,
      ]);
      if (!locked) return 0;
      const [, count] = await em.query(
        `WITH due AS (
           SELECT id, seq FROM outbox_events WHERE feed_position IS NULL
           ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED),
         numbered AS (
           SELECT id, nextval('outbox_feed_position_seq') AS position
           FROM (SELECT id FROM due ORDER BY seq) ordered)
         UPDATE outbox_events o SET feed_position = numbered.position
         FROM numbered WHERE o.id = numbered.id`,
        [batchSize],
      );
      return count as number;
    });
  }

  /** The position of a cursor event the scope may continue from; undefined if there is none. */
  async cursorPosition(
    scope: RecordScope,
    eventId: string,
    retentionMs: number,
  ): Promise<number | undefined> {
    const [row] = await this.dataSource.query<{ position: string }[]>(
      `SELECT feed_position AS position FROM outbox_events
       WHERE id = $1 AND account_id = $2 AND livemode = $3 AND feed_position IS NOT NULL
         AND created_at >= now() - $4 * interval '1 millisecond'`,
      [eventId, scope.accountId, scope.livemode, retentionMs],
    );
    return row ? Number(row.position) : undefined;
  }

  /** One page of the scope's positioned events after a position, in feed order. */
  feedPage(scope: RecordScope, filter: FeedFilter): Promise<FeedRow[]> {
    return this.dataSource.query(
      `SELECT id, event, created_at AS "createdAt", livemode, data FROM outbox_events
       WHERE account_id = $1 AND livemode = $2 AND feed_position IS NOT NULL AND feed_position > $3
         AND created_at >= now() - $4 * interval '1 millisecond'
         AND ($5::text[] IS NULL OR event = ANY($5))
         AND ($6::text IS NULL OR data->>'id' = $6)
       ORDER BY feed_position LIMIT $7`,
      [
        scope.accountId,
        scope.livemode,
        filter.afterPosition,
        filter.retentionMs,
        filter.types ?? null,
        filter.listingId ?? null,
        filter.limit,
      ],
    );
  }

  /**
   * Deletes one batch of events older than the cut-off; returns how many. SKIP LOCKED: a row
   * some transaction holds is left for a later batch instead of waited for, so the purge never
   * queues behind (or in front of) a writer.
   */
  async purgeBatch(olderThanMs: number, batchSize: number): Promise<number> {
    const [, count] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM outbox_events WHERE created_at < now() - $1 * interval '1 millisecond'
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM outbox_events o USING due WHERE o.id = due.id`,
      [olderThanMs, batchSize],
    );
    return count as number;
  }
}
