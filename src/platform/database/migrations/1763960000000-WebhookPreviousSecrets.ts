import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `webhook_endpoints.previous_secrets`: every secret a rotation replaced that still has grace
 * left, newest first, as `[{"secret": "whsec_…", "expiresAt": "<ISO 8601, UTC>"}]`; the service
 * keeps at most 3. It replaces the single `previous_secret` pair, so that a second rotation no
 * longer ends the grace of the secret the first one replaced.
 *
 * A replaced secret still in its grace is carried over. `previous_secret` and
 * `previous_secret_expires_at` stay, unread, for instances of the previous release during the
 * upgrade; they are dropped one release later.
 */
export class WebhookPreviousSecrets1763960000000 implements MigrationInterface {
  name = 'WebhookPreviousSecrets1763960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints
      ADD COLUMN previous_secrets jsonb NOT NULL DEFAULT '[]'
        CONSTRAINT webhook_endpoints_previous_secrets_array
        CHECK (jsonb_typeof(previous_secrets) = 'array')`);
    await q.query(`UPDATE webhook_endpoints
      SET previous_secrets = jsonb_build_array(jsonb_build_object(
        'secret', previous_secret,
        'expiresAt', to_char(previous_secret_expires_at AT TIME ZONE 'UTC',
                             'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
      WHERE previous_secret IS NOT NULL AND previous_secret_expires_at > now()`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The newest replaced secret goes back into the single pair; older ones are lost.
    await q.query(`UPDATE webhook_endpoints
      SET previous_secret = previous_secrets -> 0 ->> 'secret',
          previous_secret_expires_at = (previous_secrets -> 0 ->> 'expiresAt')::timestamptz`);
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN previous_secrets`);
  }
}
