import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `outbox_events.bulk`: the event's lane. Its default reads a transaction-local setting that an
 * import chunk's transaction sets (OutboxStore.useBulkLane), so every statement that writes events
 * (the bulk create's CTE, the update and removal paths) puts them in the lane without being told.
 * The relay claims pending events per lane and round-robin across accounts: the second index walks
 * the accounts with pending events of a lane; the first finds a lane's oldest.
 */
export class EventLanes1765200000000 implements MigrationInterface {
  name = 'EventLanes1765200000000';

  async up(q: QueryRunner): Promise<void> {
    // A constant default first: existing rows get false without a rewrite of the table.
    await q.query(`ALTER TABLE outbox_events ADD COLUMN bulk boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE outbox_events ALTER COLUMN bulk
      SET DEFAULT COALESCE(current_setting('listings.event_lane', true) = 'bulk', false)`);
    await q.query(`DROP INDEX outbox_events_pending_idx`);
    await q.query(
      `CREATE INDEX outbox_events_pending_idx ON outbox_events (bulk, seq) WHERE relayed_at IS NULL`,
    );
    await q.query(`CREATE INDEX outbox_events_pending_account_idx ON outbox_events (bulk, account_id, seq)
      WHERE relayed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_pending_account_idx`);
    await q.query(`DROP INDEX outbox_events_pending_idx`);
    await q.query(
      `CREATE INDEX outbox_events_pending_idx ON outbox_events (seq) WHERE relayed_at IS NULL`,
    );
    await q.query(`ALTER TABLE outbox_events DROP COLUMN bulk`);
  }
}
