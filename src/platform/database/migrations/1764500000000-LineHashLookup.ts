import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An import finds a line's listing by the line's hash alone (ImportsStore.linesByHash), before
 * the line is parsed: the hash covers the externalId, so the account's hashes are looked up by
 * hash, and the externalId comes back with the listing. The lookup by externalId had no other use.
 * Built and dropped CONCURRENTLY, outside a transaction: every listing write's trigger deletes
 * from this table, and a plain build would hold those writes for as long as it takes.
 */
export class LineHashLookup1764500000000 implements MigrationInterface {
  name = 'LineHashLookup1764500000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // A build that failed halfway leaves an invalid index of this name: start again.
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS listing_line_hashes_hash_idx`);
    await q.query(`CREATE INDEX CONCURRENTLY listing_line_hashes_hash_idx
      ON listing_line_hashes (account_id, livemode, hash)`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS listing_line_hashes_external_id_uq`);
  }

  /** Plain statements: TypeORM's undo runs `down` in a transaction whatever `transaction` says. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX listing_line_hashes_external_id_uq
      ON listing_line_hashes (account_id, livemode, external_id)`);
    await q.query(`DROP INDEX listing_line_hashes_hash_idx`);
  }
}
