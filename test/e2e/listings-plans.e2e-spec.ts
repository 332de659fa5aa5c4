import { Client } from 'pg';
import { PreparedReads, READ_SESSION_SETTINGS } from '../../src/platform/database/prepared-reads';
import { LISTING_SORTS, LISTING_STATUSES } from '../../src/listings/listing.constants';
import { pageStatement } from '../../src/listings/listings.store';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { databaseUrl } from '../support/test-database';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The nodes that produce a node's rows, without the subqueries it evaluates (the total's). */
const rowSourcesOf = (node: PlanNode): PlanNode[] => [
  node,
  ...(node.Plans ?? [])
    .filter((child) => !['InitPlan', 'SubPlan'].includes(child['Parent Relationship'] ?? ''))
    .flatMap(rowSourcesOf),
];

/**
 * List pages without an externalId or updatedSince filter are planned once, generically, on the
 * read pool. A generic plan cannot see how large an account is, so each such shape must be an
 * ordered index scan, of the status index for a rare state; a sequential scan or a sort here
 * would cost a large account tens of milliseconds a page.
 */
describe('Generic plans of list pages', () => {
  let t: TestApp;
  let seller: TestAccount;
  let reads: Client;

  /** Skewed on purpose: 40,000 ACTIVE listings and 2 SOLD ones in one account, analysed. */
  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
    await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
    await t.dataSource.query(
      `INSERT INTO listings (account_id, livemode, title, description, price, condition, category_slug,
         location_lan, location_kommun, attributes, status, published_at, expires_at, sold_at)
       SELECT account_id, livemode, title, description, g, condition, category_slug, location_lan,
         location_kommun, attributes, CASE WHEN g <= 2 THEN 'SOLD' ELSE 'ACTIVE' END, now(),
         now() + interval '30 days', CASE WHEN g <= 2 THEN now() END
       FROM listings, generate_series(1, 40000) AS g`,
    );
    await t.dataSource.query('ANALYZE listings');
    // A session set up as the read pool sets up each of its connections.
    reads = new Client({ connectionString: databaseUrl(t.databaseName) });
    await reads.connect();
    await reads.query(READ_SESSION_SETTINGS);
  });
  afterAll(async () => {
    await reads.end();
    await t.close();
  });

  const shapes = [undefined, ...LISTING_STATUSES].flatMap((status) =>
    LISTING_SORTS.map((sort) => ({ status, sort })),
  );

  it.each(shapes)('status $status, sort $sort: an ordered scan of its own index', async (shape) => {
    const statement = pageStatement(
      { accountId: seller.id, livemode: true },
      { ...shape, limit: 20, offset: 40 },
    );
    expect(statement.generic).toBe(true);
    await reads.query('DEALLOCATE ALL');
    await reads.query(`PREPARE page AS ${statement.text}`);
    const literal = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v));
    const [{ 'QUERY PLAN': plan }] = (
      await reads.query(
        `EXPLAIN (FORMAT JSON) EXECUTE page(${statement.params.map(literal).join(', ')})`,
      )
    ).rows;
    const nodes = nodesOf(plan[0].Plan as PlanNode);
    expect(
      nodes.filter((n) => ['Seq Scan', 'Sort', 'Gather', 'Gather Merge'].includes(n['Node Type'])),
    ).toEqual([]);
    const listingScans = nodes.filter((n) => n['Relation Name'] === 'listings');
    const order = shape.sort.startsWith('price') ? 'price' : 'newest';
    // A rare state must be read from its own index. For the state nearly every listing is in,
    // the sort's index with the state as a filter discards next to nothing, and PostgreSQL may
    // take either (a per-call plan makes the same choice from the same statistics).
    const allowed =
      shape.status === 'ACTIVE'
        ? [`listings_status_${order}_idx`, `listings_${order}_idx`]
        : [`listings_${shape.status ? 'status_' : ''}${order}_idx`];
    expect(listingScans).toHaveLength(1);
    expect(listingScans[0]['Node Type']).toBe('Index Scan');
    expect(allowed).toContain(listingScans[0]['Index Name']);
  });

  it('the read pool’s own connections run with those settings', async () => {
    const pool = t.app.get(PreparedReads);
    // More concurrent reads than the pool has connections (DB_POOL_SIZE is 5 here).
    const sessions = await Promise.all(
      Array.from({ length: 8 }, () =>
        pool.query<Record<string, string | number>>(
          t.dataSource.manager,
          `SELECT current_setting('plan_cache_mode') AS plans, current_setting('jit') AS jit,
             current_setting('enable_seqscan') AS seqscan, current_setting('enable_sort') AS sort, current_setting('TimeZone') AS zone,
             pg_backend_pid() AS pid, pg_sleep(0.05)::text AS slept`,
          [],
        ),
      ),
    );
    expect(new Set(sessions.map(([s]) => s.pid)).size).toBeGreaterThan(1);
    for (const [session] of sessions)
      expect(session).toMatchObject({
        plans: 'force_generic_plan',
        jit: 'off',
        seqscan: 'off',
        sort: 'off',
        zone: 'UTC',
      });
  });

  it('both pools’ sessions are bounded: statement and idle-in-transaction time-outs, 30 s by default', async () => {
    const text = `SELECT current_setting('statement_timeout') AS statement,
      current_setting('idle_in_transaction_session_timeout') AS idle`;
    const [read] = await t.app.get(PreparedReads).query(t.dataSource.manager, text, []);
    const [write] = await t.dataSource.query(text);
    for (const session of [read, write]) expect(session).toEqual({ statement: '30s', idle: '30s' });
  });

  it('pages with an externalId or updatedSince filter are planned per call', () => {
    const scope = { accountId: seller.id, livemode: true };
    const base = { sort: 'newest' as const, limit: 20, offset: 0 };
    expect(pageStatement(scope, { ...base, externalId: 'x' }).generic).toBe(false);
    expect(pageStatement(scope, { ...base, updatedSince: new Date() }).generic).toBe(false);
  });

  it('an updatedSince page continued with afterId is a range of the (updated_at, id) index, unsorted', async () => {
    const [row] = await t.dataSource.query(
      `SELECT updated_at, id FROM listings WHERE account_id = $1 ORDER BY updated_at, id OFFSET 100 LIMIT 1`,
      [seller.id],
    );
    for (const afterId of [undefined, row.id]) {
      const statement = pageStatement(
        { accountId: seller.id, livemode: true },
        { sort: 'newest', updatedSince: row.updated_at, afterId, limit: 20, offset: 0 },
      );
      const [{ 'QUERY PLAN': plan }] = await t.dataSource.query(
        `EXPLAIN (FORMAT JSON) ${statement.text}`,
        statement.params,
      );
      const nodes = nodesOf(plan[0].Plan as PlanNode);
      // The page is read in index order; the total (a count, per call) may scan as it likes.
      expect(nodes.filter((n) => n['Node Type'] === 'Sort')).toEqual([]);
      const limit = nodes.find((n) => n['Node Type'] === 'Limit')!;
      const pageScans = rowSourcesOf(limit).filter((n) => n['Relation Name'] === 'listings');
      expect(pageScans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
        ['Index Scan', 'listings_updated_idx'],
      ]);
    }
  });

  it('serves the rare state of a large account, and its total, through HTTP', async () => {
    const res = await as(t, seller.liveKey)
      .get('/v1/listings?status=SOLD&sort=price_desc')
      .expect(200);
    expect(res.body.data.map((l: { price: number }) => l.price)).toEqual([2, 1]);
    expect(res.body.pagination).toMatchObject({ total: 2, pages: 1, hasMore: false });
  });
});
