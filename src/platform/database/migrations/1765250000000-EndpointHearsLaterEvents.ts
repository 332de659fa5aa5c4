import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint hears of the events committed after it was created, however long their fan-out
 * waited (a bulk backlog): each event keeps its transaction id, each endpoint the snapshot of
 * its creation, and fan-out skips an event that snapshot already saw committed. Defaults are set
 * after the columns are added, so existing rows stay NULL (no rewrite) and keep today's rule.
 */
export class EndpointHearsLaterEvents1765250000000 implements MigrationInterface {
  name = 'EndpointHearsLaterEvents1765250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events ADD COLUMN xid xid8`);
    await q.query(`ALTER TABLE outbox_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id()`);
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN created_snapshot pg_snapshot`);
    await q.query(
      `ALTER TABLE webhook_endpoints ALTER COLUMN created_snapshot SET DEFAULT pg_current_snapshot()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN created_snapshot`);
    await q.query(`ALTER TABLE outbox_events DROP COLUMN xid`);
  }
}
