import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A listing row is over PostgreSQL's 2 KB toast threshold (its description twice: as written and
 * in `rendered`), so both are compressed in the row. Every lifecycle change (expiry, renewal, sale)
 * decompresses and compresses `rendered` again, and every read decompresses it; lz4 does both
 * several times faster than the default pglz (docs/performance.md). Rows change over as they are
 * next written.
 */
export class ListingTextLz41766100000000 implements MigrationInterface {
  name = 'ListingTextLz41766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE listings ALTER COLUMN rendered SET COMPRESSION lz4,
         ALTER COLUMN description SET COMPRESSION lz4`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE listings ALTER COLUMN rendered SET COMPRESSION pglz,
         ALTER COLUMN description SET COMPRESSION pglz`,
    );
  }
}
