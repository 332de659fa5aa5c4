import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Records when an event was fanned out into deliveries. A relayed event that never was (its job
 * lost with Redis's data) is found by this and queued again by the webhook sweeper.
 */
export class OutboxFanout1763800000000 implements MigrationInterface {
  name = 'OutboxFanout1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox_events ADD COLUMN fanned_out_at timestamptz`);
    // Events relayed before this column existed were fanned out by then.
    await q.query(
      `UPDATE outbox_events SET fanned_out_at = relayed_at WHERE relayed_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX outbox_events_unfanned_idx ON outbox_events (relayed_at)
      WHERE fanned_out_at IS NULL AND relayed_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_unfanned_idx`);
    await q.query(`ALTER TABLE outbox_events DROP COLUMN fanned_out_at`);
  }
}
