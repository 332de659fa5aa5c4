import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Auto-disable judges deliveries, not attempts: an endpoint is disabled when a delivery failed its
 * whole schedule with no successful delivery to the endpoint since that delivery's first attempt.
 * That needs when each delivery was first attempted, and a quick answer to "any success since?":
 * `succeeded_at`, set by a scheduled attempt that succeeded only (a manual retry is not counted
 * toward auto-disable, either way).
 */
export class WebhookDeliveryDisableRule1763901000000 implements MigrationInterface {
  name = 'WebhookDeliveryDisableRule1763901000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries
      ADD COLUMN first_attempt_at timestamptz, ADD COLUMN succeeded_at timestamptz`);
    // Deliveries in the middle of their schedule: fan-out made the first attempt right after
    // creating them, which is as close as the old rows can tell.
    await q.query(
      `UPDATE webhook_deliveries SET first_attempt_at = created_at WHERE attempts > 0 AND status = 'pending'`,
    );
    await q.query(`UPDATE webhook_deliveries SET succeeded_at = last_attempt_at
      WHERE status = 'succeeded' AND event_id IS NOT NULL`);
    // The disable check: an endpoint's event deliveries that succeeded, by when.
    await q.query(`CREATE INDEX webhook_deliveries_succeeded_idx
      ON webhook_deliveries (endpoint_id, succeeded_at) WHERE succeeded_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_succeeded_idx`);
    await q.query(
      `ALTER TABLE webhook_deliveries DROP COLUMN first_attempt_at, DROP COLUMN succeeded_at`,
    );
  }
}
