import type { OwnerScope } from '../../src/auth/scope';
import { FirstLines } from '../../src/imports/import-plan';
import { ImportRunner } from '../../src/imports/import-runner';
import { ImportsStore } from '../../src/imports/imports.store';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { ListingsService } from '../../src/listings/listings.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';
import { queueImport } from '../support/queued-import';

const line = (externalId: string) => aListing().with({ externalId }).build();
const dto = (externalId: string) => line(externalId) as unknown as CreateListingDto;

/**
 * A mirror import removes the listings that existed when it was accepted and are not in its feed.
 * A create whose transaction began before and committed after did not exist then: the import must
 * leave it, though its created_at is earlier; and so one created while the import reads its file.
 */
describe('A mirror import accepted while a create is in flight', () => {
  let ctx: IntegrationContext;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      { imports: [ImportsWorkerModule] },
      { IMPORT_SWEEP_EVERY: '1h' },
    );
    owner = await ctx.newOwner();
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await ctx?.close();
  });

  const statusesOf = (scope: OwnerScope) =>
    ctx.dataSource.query(
      `SELECT external_id, status FROM listings WHERE account_id = $1 ORDER BY external_id`,
      [scope.accountId],
    );

  it('removes what had committed before it was accepted, and keeps the create it raced', async () => {
    const listings = ctx.get(ListingsService);
    const store = ctx.get(ImportsStore);
    await ctx.dataSource.transaction((em) => listings.create(em, owner, dto('kept')));
    await ctx.dataSource.transaction((em) => listings.create(em, owner, dto('gone')));

    // The racing create: its transaction is open (and has written) before the import plans.
    const racing = ctx.dataSource.createQueryRunner();
    await racing.connect();
    await racing.startTransaction();
    await listings.create(racing.manager, owner, dto('racing'));
    const markPlanned = jest.spyOn(store, 'markPlanned').mockImplementationOnce(async (...args) => {
      const planned = await ImportsStore.prototype.markPlanned.apply(store, args);
      await racing.commitTransaction();
      return planned;
    });
    try {
      const id = await queueImport(ctx, owner, [line('kept')], { mode: 'mirror' });
      await ctx.get(ImportRunner).run(id);
      expect(markPlanned).toHaveBeenCalled();
      const [done] = await ctx.dataSource.query(
        `SELECT status, removed FROM imports WHERE id = $1`,
        [id],
      );
      expect(done).toEqual({ status: 'succeeded', removed: 1 });
    } finally {
      await racing.release();
    }
    expect(await statusesOf(owner)).toEqual([
      { external_id: 'gone', status: 'REMOVED' },
      { external_id: 'kept', status: 'ACTIVE' },
      { external_id: 'racing', status: 'ACTIVE' },
    ]);
  });

  it('keeps a listing created while it read its file', async () => {
    const listings = ctx.get(ListingsService);
    const store = ctx.get(ImportsStore);
    const other = await ctx.newOwner();
    await ctx.dataSource.transaction((em) => listings.create(em, other, dto('old')));
    const id = await queueImport(ctx, other, [line('listed')], { mode: 'mirror' });
    // Created and committed after the 202, before the read pass ends: the feed never knew it.
    const markPlanned = jest.spyOn(store, 'markPlanned').mockImplementationOnce(async (...args) => {
      await ctx.dataSource.transaction((em) => listings.create(em, other, dto('newer')));
      return ImportsStore.prototype.markPlanned.apply(store, args);
    });
    await ctx.get(ImportRunner).run(id);
    expect(markPlanned).toHaveBeenCalled();
    expect(await statusesOf(other)).toEqual([
      { external_id: 'listed', status: 'ACTIVE' },
      { external_id: 'newer', status: 'ACTIVE' },
      { external_id: 'old', status: 'REMOVED' },
    ]);
  });
});

describe("A mirror import's kept externalIds, as the database reads them", () => {
  let ctx: IntegrationContext;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ImportsWorkerModule] });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const asRead = async (lines: FirstLines): Promise<string[]> => {
    const [row]: { ids: string[] }[] = await ctx.dataSource.query(`SELECT $1::text[] AS ids`, [
      lines.externalIdsParam(),
    ]);
    return row.ids;
  };

  it('reads every externalId back in the order noted, whatever its characters', async () => {
    const ids = ['a', 'b"c', 'd\\e', 'ö', '日本', '😀', 'x,y', '{z}', 'NULL', '', ' s '];
    const lines = new FirstLines();
    ids.forEach((id, i) => lines.note(id, i + 1));
    lines.note('a', 99); // a repeat is kept once
    expect(await asRead(lines)).toEqual(ids);
  });

  it('reads a lone surrogate as U+FFFD, as a text parameter sends it', async () => {
    const lines = new FirstLines();
    lines.note('x\ud800', 1);
    expect(await asRead(lines)).toEqual(['x\ufffd']);
  });

  it('reads an empty feed as an empty array, so that nothing is kept', async () => {
    expect(await asRead(new FirstLines())).toEqual([]);
  });
});
