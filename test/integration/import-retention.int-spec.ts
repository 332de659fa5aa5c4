import { ImportRetention } from '../../src/imports/import-retention';
import { ImportsModule } from '../../src/imports/imports.module';
import { ImportsStore } from '../../src/imports/imports.store';
import { STORAGE_DRIVER, StorageDriver } from '../../src/storage/storage-driver';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';
import { queueImport } from '../support/queued-import';

/**
 * The purge's order when a step fails: an import's file goes before its record, so a purge that
 * stops in between never leaves a file without a record to find it by, and a file that cannot be
 * deleted keeps its record for the next purge. (Retention itself, through the scheduler, is
 * tested through HTTP in imports-operations.)
 */
describe('ImportRetention when a step fails', () => {
  let ctx: IntegrationContext;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ImportsModule] });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await ctx?.close();
  });

  it('purges a finished import, its results and its file, the file first', async () => {
    const owner = await ctx.newOwner();
    const id = await queueImport(ctx, owner, [aListing().with({ externalId: 'purge-1' }).build()]);
    // Ended eight days ago (retention is 7 days), with one result.
    await ctx.dataSource.query(
      `UPDATE imports SET status = 'succeeded', finished_at = now() - interval '8 days' WHERE id = $1`,
      [id],
    );
    await ctx.dataSource.query(
      `INSERT INTO import_results (import_id, seq, line, external_id, outcome) VALUES ($1, 1, 1, 'purge-1', 'failed')`,
      [id],
    );
    const [{ file_key: fileKey }] = await ctx.dataSource.query(
      `SELECT file_key FROM imports WHERE id = $1`,
      [id],
    );
    const storage = ctx.get<StorageDriver>(STORAGE_DRIVER as never);
    const retention = ctx.get(ImportRetention);
    const stillThere = async () =>
      (await ctx.dataSource.query(`SELECT 1 FROM imports WHERE id = $1`, [id])).length === 1;

    // A file that cannot be deleted keeps its record, so a later purge tries it again.
    const failingFile = jest
      .spyOn(storage, 'deletePrivate')
      .mockRejectedValueOnce(new Error('storage unavailable'));
    expect(await retention.purgeBatch(100)).toBe(0);
    failingFile.mockRestore();
    expect(await stillThere()).toBe(true);
    await expect(storage.readPrivate(fileKey)).resolves.toBeDefined();

    // Stopped after the file went: the record is left for the next purge, no file behind.
    const failingRecord = jest
      .spyOn(ctx.get(ImportsStore), 'deleteImports')
      .mockRejectedValueOnce(new Error('database unavailable'));
    await expect(retention.purgeBatch(100)).rejects.toThrow('database unavailable');
    failingRecord.mockRestore();
    expect(await stillThere()).toBe(true);
    await expect(storage.readPrivate(fileKey)).rejects.toThrow();

    expect(await retention.purgeBatch(100)).toBe(1);
    expect(await stillThere()).toBe(false);
    expect(
      await ctx.dataSource.query(`SELECT 1 FROM import_results WHERE import_id = $1`, [id]),
    ).toEqual([]);
    expect(await retention.purgeBatch(100)).toBe(0);
  });
});
