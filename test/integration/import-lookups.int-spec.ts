import { createHash } from 'node:crypto';
import type { OwnerScope } from '../../src/auth/scope';
import { ImportsStore } from '../../src/imports/imports.store';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import { ListingsStore } from '../../src/listings/listings.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { eventually } from '../support/webhook-receiver';

const ACCOUNT_LISTINGS = 5_000;
const CHUNK = 500;

/**
 * The two lookups an import makes for every chunk (its listings by externalId, locked; its lines
 * known by their hash) while the account's statistics still say it has no listings, as they do
 * during its first large import. Each must probe one index entry per line, not read the
 * account's rows: that made every chunk slower than the last.
 */
describe('Import chunk lookups with stale statistics', () => {
  let ctx: IntegrationContext;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ImportsWorkerModule] });
    owner = await ctx.newOwner();
    const db = ctx.dataSource;
    await seedAccount(await ctx.newOwner(), ACCOUNT_LISTINGS);
    for (const table of ['listings', 'listing_line_hashes']) {
      // Statistics that know another account and not this one, kept so for the test (the
      // database is this file's own and goes with it).
      await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      await db.query(`ANALYZE ${table}`);
    }
    await seedAccount(owner, ACCOUNT_LISTINGS);
  });

  /** `count` listings (item-1 …), each with the hash of its externalId stored. */
  async function seedAccount(scope: OwnerScope, count: number) {
    await ctx.dataSource.query(
      `INSERT INTO listings (account_id, livemode, external_id, title, description, price, condition,
         category_slug, location_lan, location_kommun, status, published_at, expires_at)
       SELECT $1, $2, 'item-' || g, 'Cykel ' || g, 'Välskött cykel', 1000 + g, 'GOOD',
         'bicycles', 'stockholm', 'stockholm', 'ACTIVE', now(), now() + interval '30 days'
       FROM generate_series(1, $3) g`,
      [scope.accountId, scope.livemode, count],
    );
    await ctx.dataSource.query(
      `INSERT INTO listing_line_hashes (listing_id, account_id, livemode, external_id, hash)
       SELECT id, account_id, livemode, external_id, sha256(external_id::bytea)
       FROM listings WHERE account_id = $1`,
      [scope.accountId],
    );
  }
  afterAll(async () => ctx?.close());

  /** Rows of `table` this transaction has read so far, by any kind of scan (none in parallel). */
  async function rowsRead(em: typeof ctx.dataSource.manager, table: string): Promise<number> {
    await em.query(`SET LOCAL max_parallel_workers_per_gather = 0`);
    const [row] = await em.query(
      `SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) AS n
       FROM pg_stat_xact_user_tables WHERE relname = $1`,
      [table],
    );
    return Number(row.n);
  }

  /** Half the chunk known to the account (item-1, item-3 …), half new. */
  const externalIds = Array.from({ length: CHUNK }, (_, i) =>
    i % 2 === 0 ? `item-${i + 1}` : `new-${i}`,
  );

  it('finds and locks the chunk’s listings by probing each externalId', async () => {
    await ctx.dataSource.transaction(async (em) => {
      const before = await rowsRead(em, 'listings');
      const rows = await ctx.get(ListingsStore).findByExternalIdsForUpdate(em, owner, externalIds);
      const read = (await rowsRead(em, 'listings')) - before;

      expect(rows.map((row) => row.external_id).sort()).toEqual(
        externalIds.filter((id) => id.startsWith('item-')).sort(),
      );
      expect(rows.every((row) => Array.isArray(row.images))).toBe(true);
      // one probe per externalId, one per row locked and one per row read: never the account
      expect(read).toBeLessThanOrEqual(3 * CHUNK);
      // locked: another connection cannot take a found row meanwhile
      await expect(
        ctx.dataSource.query(`SELECT id FROM listings WHERE id = $1 FOR UPDATE NOWAIT`, [
          rows[0].id,
        ]),
      ).rejects.toMatchObject({ code: '55P03' });
    });
  });

  it('reads a listing as another transaction left it while the lookup waited for its lock', async () => {
    const db = ctx.dataSource;
    // item-2: a listing none of the other tests reads
    const [{ id }] = await db.query(
      `SELECT id FROM listings WHERE account_id = $1 AND external_id = 'item-2'`,
      [owner.accountId],
    );
    const other = db.createQueryRunner();
    await other.connect();
    try {
      await other.startTransaction();
      await other.query(`UPDATE listings SET title = 'Ändrad under tiden' WHERE id = $1`, [id]);
      const [{ pid }] = await other.query(`SELECT pg_backend_pid() AS pid`);
      const lookup = db.transaction((em) =>
        ctx.get(ListingsStore).findByExternalIdsForUpdate(em, owner, ['item-2']),
      );
      // the lookup has begun, and waits for the other transaction's lock
      await eventually(async () => {
        const blocked = await db.query(
          `SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
          [pid],
        );
        return blocked.length > 0;
      });
      await other.commitTransaction();
      const rows = await lookup;
      expect(rows.map((row) => row.title)).toEqual(['Ändrad under tiden']);
    } finally {
      if (other.isTransactionActive) await other.rollbackTransaction();
      await other.release();
    }
  });

  it('finds the chunk’s lines known by their hash by probing each hash', async () => {
    const hashes = externalIds.map((externalId) =>
      createHash('sha256').update(externalId).digest(),
    );
    await ctx.dataSource.transaction(async (em) => {
      const before = await rowsRead(em, 'listing_line_hashes');
      const known = await ctx.get(ImportsStore).linesByHash(em, owner, hashes);
      const read = (await rowsRead(em, 'listing_line_hashes')) - before;

      const found = [...known.entries()].map(([i, hit]) => [externalIds[i], hit.externalId]);
      expect(found.map(([line]) => line).sort()).toEqual(
        externalIds.filter((id) => id.startsWith('item-')).sort(),
      );
      expect(read).toBeLessThanOrEqual(CHUNK);
      // each hash names its own listing, in this account only (the other has the same hashes)
      expect(found.every(([line, hit]) => line === hit)).toBe(true);
      const listingIds = [...known.values()].map((hit) => hit.listingId);
      const [{ n }] = await em.query(
        `SELECT count(*)::int AS n FROM listings WHERE id = ANY($1) AND account_id = $2`,
        [listingIds, owner.accountId],
      );
      expect(n).toBe(CHUNK / 2);
    });
  });
});
