import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotent replay answers the first answer's `data` as it was written. jsonb reorders an
 * object's keys (shortest first), so a replay read back from it differed from the first answer
 * byte for byte; json keeps the text as stored. Answers kept before this keep jsonb's order.
 */
export class IdempotentReplayKeyOrder1764800000000 implements MigrationInterface {
  name = 'IdempotentReplayKeyOrder1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE idempotency_keys ALTER COLUMN response TYPE json USING response::json`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE idempotency_keys ALTER COLUMN response TYPE jsonb USING response::jsonb`,
    );
  }
}
