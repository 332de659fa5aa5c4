import { MigrationInterface, QueryRunner } from 'typeorm';

export class Usage1763790000000 implements MigrationInterface {
  name = 'Usage1763790000000';

  async up(q: QueryRunner): Promise<void> {
    // One row per key, UTC day, endpoint and outcome; instances add their batched counts to it.
    await q.query(`
      CREATE TABLE api_usage (
        key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        day date NOT NULL,
        method text NOT NULL,
        route text NOT NULL,
        status_class smallint NOT NULL CHECK (status_class BETWEEN 1 AND 5),
        rate_limited boolean NOT NULL,
        requests bigint NOT NULL CHECK (requests > 0),
        CONSTRAINT api_usage_pk PRIMARY KEY (key_id, day, method, route, status_class, rate_limited)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_usage`);
  }
}
