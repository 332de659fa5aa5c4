import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1763795000000 implements MigrationInterface {
  name = 'Webhooks1763795000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        url text NOT NULL,
        description text,
        -- empty means every event, including ones added later
        events text[] NOT NULL DEFAULT '{}',
        -- kept as is: signing needs the secret itself, a hash would not do
        secret text NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        consecutive_failures integer NOT NULL DEFAULT 0,
        disabled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Fan-out reads an account's active endpoints; the 5-per-account check counts them.
    await q.query(
      `CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at)`,
    );

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        -- null for test deliveries, which come from no event
        event_id uuid REFERENCES outbox_events(id),
        event text NOT NULL,
        -- the exact body bytes, fixed at creation, so every attempt sends and signs the same bytes
        payload text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        last_response_status smallint,
        last_error text,
        response_body_excerpt text,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- one delivery per endpoint and event, so a repeated fan-out never doubles a delivery
        CONSTRAINT webhook_deliveries_endpoint_event_uq UNIQUE (endpoint_id, event_id)
      )`);
    // GET /webhooks/:id/deliveries: newest first, ties broken by id.
    await q.query(
      `CREATE INDEX webhook_deliveries_history_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`,
    );
    // The sweep that re-queues pending deliveries whose job went missing.
    await q.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    // Fan-out looks up an event's deliveries; the unique index leads with endpoint_id, so it cannot serve this.
    await q.query(
      `CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id) WHERE event_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_endpoints`);
  }
}
