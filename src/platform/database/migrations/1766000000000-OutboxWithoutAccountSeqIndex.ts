import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops `outbox_events_account_idx` (account_id, seq), which no statement reads: the feed pages
 * through `outbox_events_feed_idx`, recovery and the account's deletion check through
 * `outbox_events_account_created_idx`, the relay through the pending indexes. Every version of an
 * event row (written, relayed, positioned, fanned out) added an entry to it.
 */
export class OutboxWithoutAccountSeqIndex1766000000000 implements MigrationInterface {
  name = 'OutboxWithoutAccountSeqIndex1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_account_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX outbox_events_account_idx ON outbox_events (account_id, seq)`);
  }
}
