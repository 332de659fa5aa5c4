import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints belong to the mode of the key that created them, so a leaked test key cannot
 * read or redirect live deliveries. Endpoints made before modes applied to them were reachable by
 * live keys and received live events: they become live-mode endpoints.
 */
export class WebhookEndpointModes1763900000000 implements MigrationInterface {
  name = 'WebhookEndpointModes1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_endpoints ADD COLUMN livemode boolean NOT NULL DEFAULT true`,
    );
    // New rows always say their mode; the default only served the existing ones.
    await q.query(`ALTER TABLE webhook_endpoints ALTER COLUMN livemode DROP DEFAULT`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN livemode`);
  }
}
