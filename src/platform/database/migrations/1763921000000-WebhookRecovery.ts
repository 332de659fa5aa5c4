import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Redelivery and secret rotation:
 * - `webhook_delivery_attempts`: one row per HTTP attempt, the delivery's attempt log; goes with
 *   its delivery (cascade), so the delivery purge needs its (delivery_id) index.
 * - `webhook_redelivery_requests`: what manual retry and recover ask the worker to queue. The API
 *   writes a row in the same transaction as the delivery change; the worker turns rows into queue
 *   jobs (as the outbox relay does for events), so a request survives Redis or the worker being
 *   down. One row per delivery: overlapping recover calls cannot queue one delivery twice.
 * - `previous_secret`, `previous_secret_expires_at`: the secret a rotation replaced, still used
 *   to sign (after the new one) until it expires.
 */
export class WebhookRecovery1763921000000 implements MigrationInterface {
  name = 'WebhookRecovery1763921000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL,
        response_status smallint,
        error text,
        duration_ms integer NOT NULL,
        -- a manual retry: shown in the log, not counted toward the schedule or auto-disable
        manual boolean NOT NULL DEFAULT false
      )`);
    await q.query(
      `CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, id)`,
    );
    await q.query(`
      CREATE TABLE webhook_redelivery_requests (
        delivery_id uuid PRIMARY KEY REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        manual boolean NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE webhook_endpoints
      ADD COLUMN previous_secret text,
      ADD COLUMN previous_secret_expires_at timestamptz`);
    // Recover reads an account's events since a moment (and checks each against the
    // (endpoint_id, event_id) unique index of deliveries).
    await q.query(
      `CREATE INDEX outbox_events_account_created_idx ON outbox_events (account_id, created_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_account_created_idx`);
    await q.query(`ALTER TABLE webhook_endpoints
      DROP COLUMN previous_secret, DROP COLUMN previous_secret_expires_at`);
    await q.query(`DROP TABLE webhook_redelivery_requests`);
    await q.query(`DROP TABLE webhook_delivery_attempts`);
  }
}
