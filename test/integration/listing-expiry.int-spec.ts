import type { PoolClient } from 'pg';
import type { QueryRunner } from 'typeorm';
import type { OwnerScope } from '../../src/auth/scope';
import { ListingsModule } from '../../src/listings/listings.module';
import { ListingsStore } from '../../src/listings/listings.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

interface PlanNode {
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan's nodes produced or filtered out, over all their loops (EXPLAIN shows per loop). */
function rowsHandled(node: PlanNode): number {
  const perLoop =
    (node['Actual Rows'] ?? 0) +
    (node['Rows Removed by Filter'] ?? 0) +
    (node['Rows Removed by Join Filter'] ?? 0);
  const own = perLoop * (node['Actual Loops'] ?? 1);
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsHandled(child), 0);
}

/**
 * The worker's expiry (ListingsStore.expireDue) on one long-lived connection, as the pool keeps
 * it: its first sweeps find nothing due, and later batches must still cost in proportion to
 * their rows. Work is counted in rows the statement and every statement its triggers ran
 * handled (auto_explain, sent to this connection as notices), not in time.
 */
describe('Listing expiry on a long-lived connection', () => {
  const DUE = 1_000;
  let ctx: IntegrationContext;
  let store: ListingsStore;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ListingsModule] });
    store = ctx.get(ListingsStore);
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx?.close());

  it('a batch after sweeps that found nothing handles rows in proportion to its size', async () => {
    await ctx.dataSource.query(
      `INSERT INTO listings (account_id, livemode, external_id, title, description, price, condition,
         category_slug, location_lan, location_kommun, status, published_at, expires_at)
       SELECT $1, true, 'exp-' || g, 'Begagnad vara ' || g, 'Beskrivning ' || g, g, 'GOOD', 'cars',
         'stockholm', 'upplands-vasby', 'ACTIVE', now(), now() + interval '1 day'
       FROM generate_series(1, $2::int) AS g`,
      [owner.accountId, DUE],
    );
    // Every tenth listing as an import left it: expiring it must drop its line hash.
    await ctx.dataSource.query(
      `INSERT INTO listing_line_hashes (listing_id, account_id, livemode, external_id, hash)
       SELECT id, account_id, livemode, external_id, sha256(external_id::bytea) FROM listings
       WHERE account_id = $1 AND right(external_id, 1) = '0'`,
      [owner.accountId],
    );
    const runner: QueryRunner = ctx.dataSource.createQueryRunner();
    const client: PoolClient = await runner.connect();
    const plans: { 'Query Text': string; Plan: PlanNode }[] = [];
    const onNotice = (notice: { message?: string }) => {
      const text = notice.message ?? '';
      if (text.startsWith('duration:')) plans.push(JSON.parse(text.slice(text.indexOf('{'))));
    };
    try {
      // The worker's first sweeps: nothing due yet.
      for (let i = 0; i < 3; i++) expect(await store.expireDue(runner.manager, DUE)).toBe(0);
      await ctx.dataSource.query(
        `UPDATE listings SET expires_at = now() - interval '1 minute' WHERE account_id = $1`,
        [owner.accountId],
      );
      await runner.query(`LOAD 'auto_explain'`);
      for (const setting of [
        'log_min_duration = 0',
        'log_nested_statements = on',
        'log_analyze = on',
        'log_timing = off',
        "log_format = 'json'",
        "log_level = 'notice'",
      ])
        await runner.query(`SET auto_explain.${setting}`);
      client.on('notice', onNotice);
      expect(await store.expireDue(runner.manager, DUE)).toBe(DUE);
    } finally {
      client.off('notice', onNotice);
      await runner.query('SET auto_explain.log_min_duration = -1');
      await runner.release();
    }

    expect(plans.some((p) => p['Query Text'].includes(`SET status = 'EXPIRED'`))).toBe(true);
    // Only the lifecycle part of `rendered` is rewritten: no gallery is read again.
    expect(plans.filter((p) => p['Query Text'].includes('listing_images'))).toEqual([]);
    const handled = plans.reduce((sum, p) => sum + rowsHandled(p.Plan), 0);
    // A few dozen rows per listing (its update, event, counts, render and hash); a plan that
    // compares every row with every other handles about DUE rows per listing.
    expect(Math.round(handled / DUE)).toBeLessThan(100);
    const [{ left }] = await ctx.dataSource.query(
      `SELECT count(*)::int AS left FROM listing_line_hashes WHERE account_id = $1`,
      [owner.accountId],
    );
    expect(left).toBe(0);
  });

  it('a lifecycle change keeps `rendered` equal to a full render, gallery included', async () => {
    const owner2 = await ctx.newOwner();
    await ctx.dataSource.query(
      `INSERT INTO listings (account_id, livemode, external_id, title, description, price, condition,
         category_slug, location_lan, location_kommun, phone, attributes, status, published_at, expires_at)
       SELECT $1, true, 'r-' || g, 'Bil "nummer" ' || g || ' ,"status":"', 'Åäö ✓ beskrivning ' || g,
         g, 'GOOD', 'cars', 'stockholm', 'upplands-vasby', CASE WHEN g % 2 = 0 THEN '+46701234567' END,
         '{"make":"volvo","note":",\\"status\\":\\""}', 'ACTIVE', now(), now() + interval '1 day'
       FROM generate_series(1, 30) AS g`,
      [owner2.accountId],
    );
    await ctx.dataSource.query(
      `INSERT INTO listing_images (listing_id, url, position, status)
       SELECT l.id, 'https://img.example.com/' || l.id || '/' || p || '.jpg', p, 'pending'
       FROM listings l CROSS JOIN generate_series(0, 1) AS p
       WHERE l.account_id = $1 AND right(l.external_id, 1) IN ('1', '2', '3')`,
      [owner2.accountId],
    );
    const rendered = async (): Promise<Map<string, string>> => {
      const rows: { id: string; rendered: string }[] = await ctx.dataSource.query(
        'SELECT id, rendered FROM listings WHERE account_id = $1',
        [owner2.accountId],
      );
      return new Map(rows.map((r) => [r.id, r.rendered]));
    };
    const fullRender = async (): Promise<Map<string, string>> => {
      const runner = ctx.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        await runner.query('UPDATE listings SET rendered = NULL WHERE account_id = $1', [
          owner2.accountId,
        ]);
        const rows: { id: string; rendered: string }[] = await runner.query(
          'SELECT id, rendered FROM listings WHERE account_id = $1',
          [owner2.accountId],
        );
        return new Map(rows.map((r) => [r.id, r.rendered]));
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    };
    const transitions = [
      `status = 'SOLD', sold_at = now()`,
      `status = 'EXPIRED', expired_at = now(), expires_at = NULL`,
      `status = 'ACTIVE', expires_at = now() + interval '30 days', published_at = now()`,
      `title = title || ' (ny)'`,
      `status = 'REMOVED', removed_at = now()`,
    ];
    for (const set of transitions) {
      await ctx.dataSource.query(
        `UPDATE listings SET ${set}, updated_at = now() WHERE account_id = $1 AND right(external_id, 1) <> '9'`,
        [owner2.accountId],
      );
      expect(await rendered()).toEqual(await fullRender());
    }
    const shown = [...(await rendered()).values()].map((text) => JSON.parse(text));
    expect(shown.filter((l) => l.status === 'REMOVED' && l.title.endsWith('(ny)'))).toHaveLength(
      27,
    );
    expect(shown.filter((l) => l.images.length === 2)).toHaveLength(9);
  });

  it('stores a long description and its render compressed with lz4, also after an expiry', async () => {
    const longOwner = await ctx.newOwner();
    await ctx.dataSource.query(
      `INSERT INTO listings (account_id, livemode, title, description, price, condition,
         category_slug, location_lan, location_kommun, status, published_at, expires_at)
       VALUES ($1, true, 'Lång', repeat('Välvårdad bil med vinterdäck. ', 80), 1, 'GOOD', 'cars',
         'stockholm', 'upplands-vasby', 'ACTIVE', now(), now() - interval '1 minute')`,
      [longOwner.accountId],
    );
    const compression = async () =>
      (
        await ctx.dataSource.query(
          `SELECT status, pg_column_compression(description) AS description,
             pg_column_compression(rendered) AS rendered FROM listings WHERE account_id = $1`,
          [longOwner.accountId],
        )
      )[0];
    expect(await compression()).toEqual({ status: 'ACTIVE', description: 'lz4', rendered: 'lz4' });
    await store.expireDue(ctx.dataSource.manager, 100);
    expect(await compression()).toEqual({ status: 'EXPIRED', description: 'lz4', rendered: 'lz4' });
  });
});
