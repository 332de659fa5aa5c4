import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each delivery attempt keeps the start of the receiver's answer, as the delivery keeps its last
 * one: the dashboard shows it per attempt. Earlier attempts have none.
 */
export class AttemptResponseExcerpt1766300000000 implements MigrationInterface {
  name = 'AttemptResponseExcerpt1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_delivery_attempts ADD COLUMN response_excerpt text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_delivery_attempts DROP COLUMN response_excerpt`);
  }
}
