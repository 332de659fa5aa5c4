import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inventory imports: one row per import (its state, counts and resume point) and one result row
 * per line or removal. `next_line` and the counts commit with each chunk's writes, so a resumed
 * import continues exactly after its last commit; `lease_until` tells a live runner from a dead one.
 */
export class Imports1764000000000 implements MigrationInterface {
  name = 'Imports1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE imports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN
          ('queued', 'running', 'held', 'succeeded', 'succeeded_with_errors', 'failed', 'cancelled')),
        mode text NOT NULL CHECK (mode IN ('upsert', 'mirror')),
        dry_run boolean NOT NULL,
        format text NOT NULL CHECK (format IN ('ndjson', 'csv')),
        source text NOT NULL CHECK (source IN ('upload', 'url')),
        source_url text,
        gzip boolean NOT NULL DEFAULT false,
        file_key text,
        max_removals integer CHECK (max_removals >= 0),
        removal_limit_exceeded boolean NOT NULL DEFAULT false,
        confirmed boolean NOT NULL DEFAULT false,
        cancel_requested boolean NOT NULL DEFAULT false,
        planned_at timestamptz,
        next_line integer NOT NULL DEFAULT 0,
        removals_done boolean NOT NULL DEFAULT false,
        lines integer,
        processed integer NOT NULL DEFAULT 0,
        created integer NOT NULL DEFAULT 0,
        updated integer NOT NULL DEFAULT 0,
        unchanged integer NOT NULL DEFAULT 0,
        removed integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        error jsonb,
        lease_until timestamptz,
        claim_token uuid,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX imports_owner_idx ON imports (account_id, livemode, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX imports_unfinished_idx ON imports (account_id, livemode, created_at, id)
      WHERE status IN ('queued', 'running', 'held')`);
    await q.query(`CREATE INDEX imports_finished_idx ON imports (finished_at)
      WHERE finished_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE import_results (
        import_id uuid NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        line integer,
        external_id text,
        outcome text NOT NULL CHECK (outcome IN ('created', 'updated', 'unchanged', 'failed', 'removed')),
        listing_id uuid,
        error jsonb,
        PRIMARY KEY (import_id, seq)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE import_results`);
    await q.query(`DROP TABLE imports`);
  }
}
