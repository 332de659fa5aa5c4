import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An import finds a line's listing by the line's hash alone (ImportsStore.linesByHash), before
 * the line is parsed: the hash covers the externalId, so the account's hashes are looked up by
 * hash, and the externalId comes back with the listing. The lookup by externalId had no other use.
 */
export class LineHashLookup1764500000000 implements MigrationInterface {
  name = 'LineHashLookup1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX listing_line_hashes_hash_idx
      ON listing_line_hashes (account_id, livemode, hash)`);
    await q.query(`DROP INDEX listing_line_hashes_external_id_uq`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX listing_line_hashes_external_id_uq
      ON listing_line_hashes (account_id, livemode, external_id)`);
    await q.query(`DROP INDEX listing_line_hashes_hash_idx`);
  }
}
