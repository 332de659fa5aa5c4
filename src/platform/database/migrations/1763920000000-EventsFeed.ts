import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events feed and retention.
 *
 * - `feed_position`: the event's place in GET /events, given after its transaction committed by
 *   the single serialized assigner (see FeedPositioner). `seq` cannot serve as the feed order: it
 *   is taken at insert, and transactions commit out of their start order, so a reader polling
 *   "after seq N" would skip a row with a lower seq that commits later.
 * - `feed_item`: the event as GET /events shows it, rendered as JSON text once, when it is
 *   positioned, so that a page is a concatenation rather than 100 objects built per read. The
 *   rendering is spelled out here rather than imported from feedItemSql, so that later changes
 *   to the live code cannot change what this migration does.
 * - `livemode`: a key reads only its mode's events; derived from the payload every writer fills.
 * - The foreign key from deliveries to events goes: both tables are purged on their own clock,
 *   and a key check would make the event purge wait on delivery writers (and fail on deliveries
 *   kept longer than their event). `event_id` stays the feed's id, as a plain reference.
 * - Indexes for the feed page, the assigner's backlog and both purges.
 */
export class EventsFeed1763920000000 implements MigrationInterface {
  name = 'EventsFeed1763920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE outbox_feed_position_seq AS bigint`);
    await q.query(`ALTER TABLE outbox_events
      ADD COLUMN feed_position bigint,
      ADD COLUMN feed_item text,
      ADD COLUMN livemode boolean GENERATED ALWAYS AS ((data->>'livemode')::boolean) STORED`);
    // Events written before the feed existed join it in their insert order, rendered as feed items.
    await q.query(`UPDATE outbox_events o SET feed_position = n.position, feed_item = '{"id":' || to_json(o.id)::text || ',"event":' || to_json(o.event)::text
  || ',"timestamp":"' || api_timestamp(o.created_at) || '","livemode":' || o.livemode::text
  || ',"data":' || o.data::text || '}'
      FROM (SELECT id, row_number() OVER (ORDER BY seq) AS position FROM outbox_events) n
      WHERE o.id = n.id`);
    await q.query(`SELECT setval('outbox_feed_position_seq',
      (SELECT COALESCE(max(feed_position), 0) + 1 FROM outbox_events), false)`);
    await q.query(
      `CREATE UNIQUE INDEX outbox_events_feed_position_uq ON outbox_events (feed_position)`,
    );
    await q.query(`CREATE INDEX outbox_events_feed_idx ON outbox_events (account_id, livemode, feed_position)
      WHERE feed_position IS NOT NULL`);
    await q.query(`CREATE INDEX outbox_events_unpositioned_idx ON outbox_events (seq)
      WHERE feed_position IS NULL`);
    await q.query(`CREATE INDEX outbox_events_created_idx ON outbox_events (created_at)`);
    await q.query(
      `ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_created_idx`);
    await q.query(`DELETE FROM webhook_deliveries d WHERE d.event_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM outbox_events o WHERE o.id = d.event_id)`);
    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey
      FOREIGN KEY (event_id) REFERENCES outbox_events(id)`);
    await q.query(`DROP INDEX outbox_events_created_idx`);
    await q.query(`DROP INDEX outbox_events_unpositioned_idx`);
    await q.query(`DROP INDEX outbox_events_feed_idx`);
    await q.query(`DROP INDEX outbox_events_feed_position_uq`);
    await q.query(
      `ALTER TABLE outbox_events DROP COLUMN livemode, DROP COLUMN feed_item, DROP COLUMN feed_position`,
    );
    await q.query(`DROP SEQUENCE outbox_feed_position_seq`);
  }
}
