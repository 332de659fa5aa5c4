import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two indexes each event's writes paid for and no read needs: `outbox_events_pending_idx`
 * (bulk, seq), whose reads (is a lane pending, its oldest event) `outbox_events_pending_account_idx`
 * (bulk, account_id, seq) answers as well, and the unique `outbox_events_feed_position_uq`, read by
 * nothing (positions come from one sequence; the feed reads `outbox_events_feed_idx`).
 */
export class OutboxLeanerIndexes1766400000000 implements MigrationInterface {
  name = 'OutboxLeanerIndexes1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_pending_idx`);
    await q.query(`DROP INDEX outbox_events_feed_position_uq`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX outbox_events_pending_idx ON outbox_events (bulk, seq) WHERE relayed_at IS NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX outbox_events_feed_position_uq ON outbox_events (feed_position)`,
    );
  }
}
