import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event purge deletes only fanned-out events (an undelivered one is kept until it is). Its
 * index holds just those, so a backlog of old unsettled events is never rescanned by each batch;
 * it replaces the plain (created_at) index, which only the purge used.
 */
export class OutboxPurgeIndex1763950000000 implements MigrationInterface {
  name = 'OutboxPurgeIndex1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX outbox_events_purge_idx ON outbox_events (created_at)
      WHERE fanned_out_at IS NOT NULL`);
    await q.query(`DROP INDEX outbox_events_created_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX outbox_events_created_idx ON outbox_events (created_at)`);
    await q.query(`DROP INDEX outbox_events_purge_idx`);
  }
}
