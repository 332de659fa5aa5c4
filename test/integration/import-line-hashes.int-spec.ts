import type { OwnerScope } from '../../src/auth/scope';
import { ImportFeedSource } from '../../src/imports/import-feed-source';
import { ImportRunner } from '../../src/imports/import-runner';
import { ImportsStore, type ImportRow } from '../../src/imports/imports.store';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import { GalleryStore } from '../../src/listings/gallery/gallery.store';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import type { UpdateListingDto } from '../../src/listings/dto/update-listing.dto';
import { IMAGE_PRIORITY } from '../../src/listings/gallery/image-priority';
import { ListingsService } from '../../src/listings/listings.service';
import { ReferenceService } from '../../src/reference/reference.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';
import { queueImport } from '../support/queued-import';

/**
 * The unchanged fast path: a line read the same as the one that last wrote its listing is
 * unchanged without being validated again, but only while nothing else has written the listing
 * or its gallery and the reference data is the same; otherwise the line takes the PUT's path.
 */
describe('Import line hashes', () => {
  let ctx: IntegrationContext;
  let runner: ImportRunner;
  let store: ImportsStore;
  let listings: ListingsService;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      { imports: [ImportsWorkerModule] },
      { IMPORT_LEASE: '10m', IMPORT_SWEEP_EVERY: '1h' },
    );
    runner = ctx.get(ImportRunner);
    store = ctx.get(ImportsStore);
    listings = ctx.get(ListingsService);
  });
  beforeEach(async () => {
    owner = await ctx.newOwner();
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await ctx?.close();
  });

  const line = (externalId: string) => aListing().with({ externalId }).withImages(2).build();

  /**
   * Imports `lines` to its end: the import, its outcomes by externalId, the lines validated and
   * the times a line was parsed.
   */
  async function runImport(
    lines: (Record<string, unknown> | string)[],
    dryRun = false,
    format: 'ndjson' | 'csv' = 'ndjson',
  ) {
    const id = await queueImport(ctx, owner, lines, { dryRun, format });
    const admit = jest.spyOn(runner as unknown as { admit: () => unknown }, 'admit');
    const feeds = ctx.get(ImportFeedSource);
    const open = feeds.open.bind(feeds);
    let parsed = 0;
    const opened = jest.spyOn(feeds, 'open').mockImplementation(async (row) => {
      const records = await open(row);
      return (async function* () {
        for await (const record of records)
          yield {
            line: record.line,
            content: record.content,
            read: () => (parsed++, record.read()),
          };
      })();
    });
    await runner.run(id);
    const validated = admit.mock.calls.length;
    admit.mockRestore();
    opened.mockRestore();
    const results: { external_id: string; outcome: string; error: { code: string } | null }[] =
      await ctx.dataSource.query(
        `SELECT external_id, outcome, error FROM import_results WHERE import_id = $1 ORDER BY seq`,
        [id],
      );
    const outcomes = Object.fromEntries(
      results.map((r) => [r.external_id, r.error ? `${r.outcome}:${r.error.code}` : r.outcome]),
    );
    return { row: (await store.findById(id)) as ImportRow, outcomes, validated, parsed };
  }

  const idOf = async (externalId: string): Promise<string> =>
    (
      await ctx.dataSource.query(
        `SELECT id FROM listings WHERE account_id = $1 AND external_id = $2 AND status <> 'REMOVED'`,
        [owner.accountId, externalId],
      )
    )[0].id;
  const versions = async () =>
    ctx.dataSource.query(
      `SELECT external_id, xmin::text AS version, updated_at FROM listings
       WHERE account_id = $1 ORDER BY external_id`,
      [owner.accountId],
    );

  it('the same lines again are unchanged without being parsed or validated, and write nothing', async () => {
    const lines = ['h-1', 'h-2', 'h-3'].map(line);
    const first = await runImport(lines);
    expect(first.outcomes).toEqual({
      'h-1': 'created',
      'h-2': 'created',
      'h-3': 'created',
    });
    expect(first.parsed).toBe(6); // the read pass and the chunk's
    const before = await versions();
    const again = await runImport(lines);
    expect(again.outcomes).toEqual({ 'h-1': 'unchanged', 'h-2': 'unchanged', 'h-3': 'unchanged' });
    expect(again.validated).toBe(0);
    expect(again.parsed).toBe(0);
    expect(again.row).toMatchObject({ status: 'succeeded', unchanged: 3 });
    expect(await versions()).toEqual(before);
  });

  it('a line found unchanged the long way stores its hash, writing no listing and no event', async () => {
    const body = line('api-1');
    const created = await ctx.dataSource.transaction((em) =>
      listings.create(em, owner, body as unknown as CreateListingDto),
    );
    const before = await versions();
    const events = async () =>
      (
        await ctx.dataSource.query(
          `SELECT count(*)::int AS n FROM outbox_events WHERE account_id = $1 AND event LIKE 'listing.%'`,
          [owner.accountId],
        )
      )[0].n;
    const eventsBefore = await events();
    const first = await runImport([body]);
    expect(first.outcomes).toEqual({ 'api-1': 'unchanged' });
    expect(first.validated).toBe(1);
    const again = await runImport([body]);
    expect(again.outcomes).toEqual({ 'api-1': 'unchanged' });
    expect(again.validated).toBe(0);
    expect(await versions()).toEqual(before);
    expect(await events()).toBe(eventsBefore);
    expect(created.external_id).toBe('api-1');
  });

  it('a listing written by anything else than its line takes the PUT path again', async () => {
    const ids = ['w-edit', 'w-sold', 'w-gallery', 'w-removed', 'w-render', 'w-processed'];
    const lines = ids.map(line);
    await runImport(lines);
    await ctx.dataSource.transaction(async (em) => {
      await listings.update(
        em,
        owner,
        await idOf('w-edit'),
        { title: 'Ändrad titel' } as UpdateListingDto,
        IMAGE_PRIORITY.request,
      );
      await listings.markSold(em, owner, await idOf('w-sold'));
      // A gallery change alone, without the listing's own row written (the trigger's case).
      await ctx
        .get(GalleryStore)
        .replace(
          em,
          await idOf('w-gallery'),
          [{ url: 'https://img.example.com/other.jpg' }],
          IMAGE_PRIORITY.request,
        );
      await listings.remove(em, owner, await idOf('w-removed'));
    });
    // Neither a re-render nor an image's own processing data changes what a PUT compares.
    await ctx.dataSource.query(`UPDATE listings SET rendered = NULL WHERE id = $1`, [
      await idOf('w-render'),
    ]);
    await ctx.dataSource.query(
      `UPDATE listing_images SET storage_key = 'processed/1.jpg' WHERE listing_id = $1`,
      [await idOf('w-processed')],
    );

    const again = await runImport(lines);
    expect(again.outcomes).toEqual({
      'w-edit': 'updated',
      'w-sold': 'skipped', // SOLD: left alone, not a failure
      'w-gallery': 'updated',
      'w-removed': 'created',
      'w-render': 'unchanged',
      'w-processed': 'unchanged',
    });
    expect(again.validated).toBe(4);
    // The lines that wrote their listing again stored their hash: a third run validates nothing
    // but the sold listing's line.
    const third = await runImport(lines);
    expect(third.outcomes).toMatchObject({ 'w-edit': 'unchanged', 'w-gallery': 'unchanged' });
    expect(third.validated).toBe(1);
  });

  it('other reference data, or the same line written differently, is validated again', async () => {
    const lines = ['r-1', 'r-2'].map(line);
    await runImport(lines);
    // The same content, its fields in another order: not the line that wrote it, so compared.
    const reordered = [Object.fromEntries(Object.entries(line('r-1')).reverse()), line('r-2')];
    const again = await runImport(reordered);
    expect(again.outcomes).toEqual({ 'r-1': 'unchanged', 'r-2': 'unchanged' });
    expect(again.validated).toBe(1);
    // The same fields in the same order, with spaces: also another line.
    const spaced = [JSON.stringify(line('r-1'), null, 1).replace(/\n/g, ''), line('r-2')];
    const respaced = await runImport(spaced);
    expect(respaced.outcomes).toEqual({ 'r-1': 'unchanged', 'r-2': 'unchanged' });
    expect(respaced.validated).toBe(1);

    const digest = ctx.get(ReferenceService).digest();
    jest.spyOn(ctx.get(ReferenceService), 'digest').mockReturnValue(`${digest}-changed`);
    const changed = await runImport(lines);
    expect(changed.outcomes).toEqual({ 'r-1': 'unchanged', 'r-2': 'unchanged' });
    expect(changed.validated).toBe(2);
    // Checked under the new reference data, their hashes now stand for it.
    expect((await runImport(lines)).validated).toBe(0);
  });

  it('a CSV record again is known by what it reads as, whatever its delimiter, quoting or line', async () => {
    const header =
      'externalId,title,description,price,condition,categorySlug,locationLan,locationKommun,' +
      'attributes.make,attributes.model,attributes.modelYear,attributes.mileageKm,attributes.fuel,attributes.gearbox';
    const rows = ['c-1', 'c-2'].map(
      (id) =>
        `${id},Volvo V70,Servad 2025.,89000,GOOD,cars,stockholm,upplands-vasby,volvo,V70,2012,184000,diesel,automatic`,
    );
    const first = await runImport([header, ...rows], false, 'csv');
    expect(first.outcomes).toEqual({ 'c-1': 'created', 'c-2': 'created' });
    const again = await runImport([header, ...rows], false, 'csv');
    expect(again.outcomes).toEqual({ 'c-1': 'unchanged', 'c-2': 'unchanged' });
    expect(again.validated).toBe(0);
    expect(again.parsed).toBe(0);
    // Semicolons, quoted cells, the rows swapped: each reads as the same fields in the same
    // order, so it has the same content wherever it stands.
    const semicolons = [header, ...rows.reverse()].map((row) =>
      row
        .split(',')
        .map((cell) => `"${cell}"`)
        .join(';'),
    );
    const resent = await runImport(semicolons, false, 'csv');
    expect(resent.outcomes).toEqual({ 'c-1': 'unchanged', 'c-2': 'unchanged' });
    expect(resent.validated).toBe(0);
  });

  it('a plain SQL update drops the hash; a dry run stores none', async () => {
    const lines = ['d-1'].map(line);
    await runImport(lines);
    await ctx.dataSource.query(
      `UPDATE listings SET title = 'Ändrad' WHERE account_id = $1 AND external_id = 'd-1'`,
      [owner.accountId],
    );
    const hashes = async () =>
      (
        await ctx.dataSource.query(
          `SELECT count(*)::int AS n FROM listing_line_hashes h JOIN listings l ON l.id = h.listing_id
           WHERE l.account_id = $1`,
          [owner.accountId],
        )
      )[0].n;
    expect(await hashes()).toBe(0);
    expect((await runImport(lines, true)).outcomes).toEqual({ 'd-1': 'updated' });
    expect(await hashes()).toBe(0);
    expect((await runImport(lines)).outcomes).toEqual({ 'd-1': 'updated' });
    expect(await hashes()).toBe(1);
  });

  it('a renewal keeps the hash, its line still matching; an expiry drops it', async () => {
    const lines = ['n-renewed', 'n-expired'].map(line);
    await runImport(lines);
    const renewed = await idOf('n-renewed');
    const before = await versions();
    await ctx.dataSource.transaction((em) => listings.renew(em, owner, renewed));
    await ctx.dataSource.query(
      `UPDATE listings SET status = 'EXPIRED', expired_at = now(), expires_at = now()
       WHERE id = $1`,
      [await idOf('n-expired')],
    );
    const again = await runImport(lines);
    expect(again.outcomes).toEqual({ 'n-renewed': 'unchanged', 'n-expired': 'unchanged' });
    expect(again.validated).toBe(1); // the expired listing's line only
    const after = await versions();
    expect(after[1].updated_at.getTime()).toBeGreaterThan(before[1].updated_at.getTime());
  });

  it('only a new render or a renewal keeps the hash: any other column changed beside them drops it', async () => {
    const lines = ['k-render', 'k-renew', 'k-renew-attr', 'k-renew-phone', 'k-removal'].map(line);
    await runImport(lines);
    const update = async (externalId: string, sets: string) =>
      ctx.dataSource.query(`UPDATE listings SET ${sets} WHERE id = $1`, [await idOf(externalId)]);
    const renewal = `expires_at = expires_at + interval '1 day', updated_at = now()`;
    await update('k-render', `rendered = rendered`);
    await update('k-renew', renewal);
    await update('k-renew-attr', `${renewal}, attributes = attributes || '{"fuel":"petrol"}'`);
    await update('k-renew-phone', `${renewal}, phone = '+46701234567'`);
    await update('k-removal', `removal_reason = 'kept by nobody'`);
    const hashed: { external_id: string }[] = await ctx.dataSource.query(
      `SELECT l.external_id FROM listing_line_hashes h JOIN listings l ON l.id = h.listing_id
       WHERE l.account_id = $1 ORDER BY l.external_id`,
      [owner.accountId],
    );
    expect(hashed.map((row) => row.external_id)).toEqual(['k-render', 'k-renew']);
  });

  it('a line repeated word for word fails as a repeat, though its hash is known', async () => {
    const lines = ['x-1', 'x-2'].map(line);
    await runImport(lines);
    const id = await queueImport(ctx, owner, [...lines, lines[0]]);
    await runner.run(id);
    const results = await ctx.dataSource.query(
      `SELECT line, outcome, error->>'message' AS message FROM import_results
       WHERE import_id = $1 ORDER BY seq`,
      [id],
    );
    expect(results).toEqual([
      { line: 1, outcome: 'unchanged', message: null },
      { line: 2, outcome: 'unchanged', message: null },
      { line: 3, outcome: 'failed', message: expect.stringContaining('is a duplicate of line 1') },
    ]);
  });

  it('a listing written after the read pass knew its line keeps that write; the next import applies the line', async () => {
    const lines = ['k-1', 'k-2'].map(line);
    await runImport(lines);
    // The write lands between the read pass and the chunk: the line's no-op came first.
    const planned = store.markPlanned.bind(store);
    jest.spyOn(store, 'markPlanned').mockImplementation(async (...args) => {
      await ctx.dataSource.transaction(async (em) =>
        listings.update(
          em,
          owner,
          await idOf('k-1'),
          { title: 'Ändrad titel' } as UpdateListingDto,
          IMAGE_PRIORITY.request,
        ),
      );
      return planned(...args);
    });
    const raced = await runImport(lines);
    jest.restoreAllMocks();
    expect(raced.outcomes).toEqual({ 'k-1': 'unchanged', 'k-2': 'unchanged' });
    const title = async () =>
      (
        await ctx.dataSource.query(`SELECT title FROM listings WHERE id = $1`, [await idOf('k-1')])
      )[0].title;
    expect(await title()).toBe('Ändrad titel');
    const next = await runImport(lines);
    expect(next.outcomes).toEqual({ 'k-1': 'updated', 'k-2': 'unchanged' });
    expect(await title()).toBe(line('k-1').title);
  });
});
