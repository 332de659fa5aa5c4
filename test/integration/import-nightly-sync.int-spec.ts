import type { PoolClient } from 'pg';
import type { OwnerScope } from '../../src/auth/scope';
import { ImportRunner } from '../../src/imports/import-runner';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import { ImportsStore } from '../../src/imports/imports.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';
import { queueImport } from '../support/queued-import';

/**
 * The nightly sync's rules in the import runner, against the real database: a renewing import
 * writes only the lines whose listing is due (one write each), a SOLD listing's line is skipped,
 * and a listing a mirror import removed comes back with its id.
 */
describe('ImportRunner: renew, skip and restore', () => {
  let ctx: IntegrationContext;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      { imports: [ImportsWorkerModule] },
      { IMPORT_SWEEP_EVERY: '1h' },
    );
  });
  beforeEach(async () => {
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx?.close());

  const line = (externalId: string) => aListing().with({ externalId, price: 1_000 }).build();
  async function run(
    lines: Record<string, unknown>[],
    options: { renew?: boolean; mode?: 'upsert' | 'mirror' } = {},
  ) {
    const id = await queueImport(ctx, owner, lines, options);
    await ctx.get(ImportRunner).run(id);
    const [row] = await ctx.dataSource.query('SELECT * FROM imports WHERE id = $1', [id]);
    const results: { external_id: string; outcome: string; reason: string | null }[] =
      await ctx.dataSource.query(
        'SELECT external_id, outcome, reason FROM import_results WHERE import_id = $1 ORDER BY seq',
        [id],
      );
    return {
      row,
      outcomes: Object.fromEntries(results.map((r) => [r.external_id, r.outcome])),
      results,
    };
  }
  const listing = async (externalId: string) =>
    (
      await ctx.dataSource.query(
        `SELECT id, status, expires_at, xmin::text AS version FROM listings
         WHERE account_id = $1 AND external_id = $2 ORDER BY created_at DESC LIMIT 1`,
        [owner.accountId, externalId],
      )
    )[0];
  /** Listing rows written (inserted or updated) while `work` ran, counted by PostgreSQL. */
  async function rowsWritten(work: () => Promise<unknown>): Promise<number> {
    const stat = async () => {
      const client: PoolClient = await (
        ctx.dataSource.driver as unknown as {
          master: { connect(): Promise<PoolClient> };
        }
      ).master.connect();
      try {
        await client.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await client.query(
          `SELECT n_tup_upd + n_tup_ins AS n FROM pg_stat_user_tables WHERE relname = 'listings'`,
        );
        return Number(rows[0].n);
      } finally {
        client.release();
      }
    };
    // The statistics reach the view when the writing backend reports them (at most ~1 s later):
    // earlier writes settle before counting starts, and the work's before it ends.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1_200));
    await settle();
    const before = await stat();
    await work();
    await settle();
    return (await stat()) - before;
  }

  it('renews only the due listings, one write each, and leaves the others alone', async () => {
    const ids = ['due-active', 'expired', 'fresh', 'sold'];
    await run(ids.map(line));
    await ctx.dataSource.query(
      `UPDATE listings SET expires_at = now() + interval '3 days' WHERE account_id = $1 AND external_id = 'due-active'`,
      [owner.accountId],
    );
    await ctx.dataSource.query(
      `UPDATE listings SET status = 'EXPIRED', expired_at = now(), expires_at = now() - interval '1 day'
       WHERE account_id = $1 AND external_id = 'expired'`,
      [owner.accountId],
    );
    await ctx.dataSource.query(
      `UPDATE listings SET status = 'SOLD', sold_at = now() WHERE account_id = $1 AND external_id = 'sold'`,
      [owner.accountId],
    );
    const fresh = await listing('fresh');
    let result!: Awaited<ReturnType<typeof run>>;
    const written = await rowsWritten(async () => {
      result = await run(ids.map(line), { renew: true });
    });
    expect(result.outcomes).toEqual({
      'due-active': 'renewed',
      expired: 'renewed',
      fresh: 'unchanged',
      sold: 'skipped',
    });
    expect(result.results.find((r) => r.external_id === 'sold')!.reason).toBe('SOLD');
    expect(result.row).toMatchObject({ status: 'succeeded', renewed: 2, skipped: 1, failed: 0 });
    expect(written).toBe(2);
    expect((await listing('fresh')).version).toBe(fresh.version);
    for (const id of ['due-active', 'expired']) {
      const renewed = await listing(id);
      expect(renewed.status).toBe('ACTIVE');
      expect(renewed.expires_at.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    }

    // Without renew the same file renews nothing.
    const plain = await run(ids.map(line));
    expect(plain.outcomes).toMatchObject({ 'due-active': 'unchanged', sold: 'skipped' });
  });

  it("announces each renewal as renew does, in the chunk's bulk lane, and keeps the lines known", async () => {
    const ids = ['known-due', 'known-due-2', 'expired', 'fresh'];
    await run(ids.map(line));
    await ctx.dataSource.query(
      `UPDATE listings SET expires_at = now() + interval '3 days'
       WHERE account_id = $1 AND external_id IN ('known-due', 'known-due-2')`,
      [owner.accountId],
    );
    // The night before: the lines matched again, so the due ones are known by their hash.
    await run(ids.map(line));
    await ctx.dataSource.query(
      `UPDATE listings SET status = 'EXPIRED', expired_at = now(), expires_at = now() - interval '1 day'
       WHERE account_id = $1 AND external_id = 'expired'`,
      [owner.accountId],
    );
    const [{ seq }] = await ctx.dataSource.query(
      `SELECT COALESCE(max(seq), 0)::bigint AS seq FROM outbox_events`,
    );
    const result = await run(ids.map(line), { renew: true });
    expect(result.outcomes).toEqual({
      'known-due': 'renewed',
      'known-due-2': 'renewed',
      expired: 'renewed',
      fresh: 'unchanged',
    });
    const events: { event: string; bulk: boolean; data: Record<string, unknown> }[] =
      await ctx.dataSource.query(
        `SELECT event, bulk, data FROM outbox_events
         WHERE account_id = $1 AND seq > $2 AND event LIKE 'listing.%' ORDER BY seq`,
        [owner.accountId, seq],
      );
    const rows: { id: string; external_id: string; updated_at: Date }[] =
      await ctx.dataSource.query(
        `SELECT id, external_id, updated_at FROM listings
         WHERE account_id = $1 AND external_id = ANY($2) ORDER BY id`,
        [owner.accountId, ['known-due', 'known-due-2', 'expired']],
      );
    const expected = (row: (typeof rows)[number]) => ({
      event: 'listing.updated',
      bulk: true,
      data: {
        id: row.id,
        externalId: row.external_id,
        livemode: owner.livemode,
        status: 'ACTIVE',
        updatedAt: row.updated_at.toISOString(),
        changedFields: row.external_id === 'expired' ? ['status', 'expiresAt'] : ['expiresAt'],
      },
    });
    // The known lines' renewals are one batch, in id order; the expired one's line, parsed,
    // is its own (it lost its hash when it expired).
    const known = rows.filter((row) => row.external_id !== 'expired');
    const expired = rows.find((row) => row.external_id === 'expired')!;
    expect(events).toHaveLength(3);
    expect(events.filter((e) => e.data.id !== expired.id)).toEqual(known.map(expected));
    expect(events.find((e) => e.data.id === expired.id)).toEqual(expected(expired));
    // Renewed, each line still matches its listing: the next import knows all of them.
    const [{ n }] = await ctx.dataSource.query(
      `SELECT count(*)::int AS n FROM listing_line_hashes h JOIN listings l ON l.id = h.listing_id
       WHERE l.account_id = $1`,
      [owner.accountId],
    );
    expect(n).toBe(4);
  });

  it('a chunk of known lines renews the due ones alone, and one sold meanwhile stays unchanged', async () => {
    const ids = ['only-due', 'only-due-2', 'only-sold', 'only-fresh'];
    await run(ids.map(line));
    await ctx.dataSource.query(
      `UPDATE listings SET expires_at = now() + interval '3 days'
       WHERE account_id = $1 AND external_id IN ('only-due', 'only-due-2', 'only-sold')`,
      [owner.accountId],
    );
    await run(ids.map(line)); // the night before: every line known again
    // Sold after the read pass found its line due, before the chunk renews it.
    const store = ctx.get(ImportsStore);
    const planned = store.markPlanned.bind(store);
    jest.spyOn(store, 'markPlanned').mockImplementation(async (...args) => {
      await ctx.dataSource.query(
        `UPDATE listings SET status = 'SOLD', sold_at = now()
         WHERE account_id = $1 AND external_id = 'only-sold'`,
        [owner.accountId],
      );
      return planned(...args);
    });
    const [{ seq }] = await ctx.dataSource.query(
      `SELECT COALESCE(max(seq), 0)::bigint AS seq FROM outbox_events`,
    );
    let result!: Awaited<ReturnType<typeof run>>;
    try {
      const written = await rowsWritten(async () => {
        result = await run(ids.map(line), { renew: true });
      });
      expect(written).toBe(3); // the sale, and one write per renewal
    } finally {
      jest.restoreAllMocks();
    }
    expect(result.outcomes).toEqual({
      'only-due': 'renewed',
      'only-due-2': 'renewed',
      'only-sold': 'unchanged',
      'only-fresh': 'unchanged',
    });
    expect(result.row).toMatchObject({ status: 'succeeded', renewed: 2, unchanged: 2, failed: 0 });
    const rows: { id: string; external_id: string; updated_at: Date }[] =
      await ctx.dataSource.query(
        `SELECT id, external_id, updated_at FROM listings
         WHERE account_id = $1 AND external_id = ANY($2) ORDER BY id`,
        [owner.accountId, ['only-due', 'only-due-2']],
      );
    const events = await ctx.dataSource.query(
      `SELECT event, bulk, data FROM outbox_events
       WHERE account_id = $1 AND seq > $2 AND event LIKE 'listing.%' ORDER BY seq`,
      [owner.accountId, seq],
    );
    expect(events).toEqual(
      rows.map((row) => ({
        event: 'listing.updated',
        bulk: true,
        data: {
          id: row.id,
          externalId: row.external_id,
          livemode: owner.livemode,
          status: 'ACTIVE',
          updatedAt: row.updated_at.toISOString(),
          changedFields: ['expiresAt'],
        },
      })),
    );
    const hashed: { external_id: string }[] = await ctx.dataSource.query(
      `SELECT l.external_id FROM listing_line_hashes h JOIN listings l ON l.id = h.listing_id
       WHERE l.account_id = $1 ORDER BY l.external_id`,
      [owner.accountId],
    );
    expect(hashed.map((h) => h.external_id)).toEqual(['only-due', 'only-due-2', 'only-fresh']);
  });

  it('a due listing edited after the read pass is renewed, and the next import applies its line', async () => {
    const ids = ['edited-due', 'plain-due'];
    await run(ids.map(line));
    await ctx.dataSource.query(
      `UPDATE listings SET expires_at = now() + interval '3 days'
       WHERE account_id = $1 AND external_id = ANY($2)`,
      [owner.accountId, ids],
    );
    await run(ids.map(line)); // every line known again, both listings due
    // Edited after the read pass found its line known and due, before the chunk renews it.
    const store = ctx.get(ImportsStore);
    const planned = store.markPlanned.bind(store);
    jest.spyOn(store, 'markPlanned').mockImplementation(async (...args) => {
      await ctx.dataSource.query(
        `UPDATE listings SET title = 'Ändrad i butiken' WHERE account_id = $1 AND external_id = $2`,
        [owner.accountId, 'edited-due'],
      );
      return planned(...args);
    });
    try {
      const raced = await run(ids.map(line), { renew: true });
      expect(raced.outcomes).toEqual({ 'edited-due': 'renewed', 'plain-due': 'renewed' });
    } finally {
      jest.restoreAllMocks();
    }
    // The edit dropped the line's hash; the renewal must not store it again over the edit.
    const next = await run(ids.map(line), { renew: true });
    expect(next.outcomes).toEqual({ 'edited-due': 'updated', 'plain-due': 'unchanged' });
    const [{ title }] = await ctx.dataSource.query(
      `SELECT title FROM listings WHERE account_id = $1 AND external_id = 'edited-due'`,
      [owner.accountId],
    );
    expect(title).toBe(line('edited-due').title);
  });

  it('restores a listing its mirror removed, with its id; never one its owner removed', async () => {
    await run(['kept', 'gap', 'owner-gone'].map(line));
    const gap = await listing('gap');
    const ownerGone = await listing('owner-gone');
    await ctx.dataSource.query(
      `UPDATE listings SET status = 'REMOVED', removed_at = now() WHERE id = $1`,
      [ownerGone.id],
    );
    const mirror = await run([line('kept')], { mode: 'mirror' });
    expect(mirror.outcomes).toMatchObject({ gap: 'removed' });
    expect(mirror.row.planned_removals).toBe(1);
    expect((await listing('gap')).status).toBe('REMOVED');

    const back = await run(['kept', 'gap', 'owner-gone'].map(line));
    expect(back.outcomes).toEqual({ kept: 'unchanged', gap: 'restored', 'owner-gone': 'created' });
    expect(back.row).toMatchObject({ restored: 1, created: 1 });
    const restored = await listing('gap');
    expect(restored).toMatchObject({ id: gap.id, status: 'ACTIVE' });
    expect((await listing('owner-gone')).id).not.toBe(ownerGone.id);
    const [event] = await ctx.dataSource.query(
      `SELECT event, data FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq DESC LIMIT 1`,
      [gap.id],
    );
    expect(event.event).toBe('listing.updated');
    expect(event.data.changedFields).toEqual(expect.arrayContaining(['status', 'expiresAt']));
  });
});
