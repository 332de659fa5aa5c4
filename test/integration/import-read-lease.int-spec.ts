import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportFeedSource } from '../../src/imports/import-feed-source';
import { ImportRunner } from '../../src/imports/import-runner';
import { ImportsStore } from '../../src/imports/imports.store';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import type { FeedRecord } from '../../src/imports/feed/feed.types';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';
import { queueImport } from '../support/queued-import';

const LINES = 8;
const READ_DELAY_MS = 100;

/** Each record after a pause: a read pass that takes longer than the lease. */
async function* slowly(records: AsyncIterable<FeedRecord>): AsyncGenerator<FeedRecord> {
  for await (const record of records) {
    await new Promise((resolve) => setTimeout(resolve, READ_DELAY_MS));
    yield record;
  }
}

/**
 * A runner keeps its claim while it reads: the read pass renews the lease on time, however few
 * lines it has read, so a live runner is never taken for a dead one.
 */
describe('ImportRunner: the lease during a slow read pass', () => {
  let ctx: IntegrationContext;
  let storageDir: string;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'lsvc-import-lease-'));
    ctx = await createIntegrationContext(
      { imports: [ImportsWorkerModule] },
      // The read pass below takes 800 ms: more than twice the lease.
      { STORAGE_DIR: storageDir, IMPORT_LEASE: '300ms', IMPORT_SWEEP_EVERY: '1h' },
    );
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await ctx?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('is still live when the read pass ends', async () => {
    const owner = await ctx.newOwner();
    const lines = Array.from({ length: LINES }, (_, i) =>
      aListing()
        .with({ externalId: `lease-${i}` })
        .build(),
    );
    const id = await queueImport(ctx, owner, lines);
    const feeds = ctx.get(ImportFeedSource);
    const open = feeds.open.bind(feeds);
    jest.spyOn(feeds, 'open').mockImplementationOnce(async (row) => slowly(await open(row)));
    const store = ctx.get(ImportsStore);
    const markPlanned = store.markPlanned.bind(store);
    const leaseLive: boolean[] = [];
    jest.spyOn(store, 'markPlanned').mockImplementation(async (claim, count) => {
      const [{ live }] = await ctx.dataSource.query(
        `SELECT lease_until > now() AS live FROM imports WHERE id = $1`,
        [id],
      );
      leaseLive.push(live);
      return markPlanned(claim, count);
    });

    await ctx.get(ImportRunner).run(id);

    expect(leaseLive).toEqual([true]);
    const [row] = await ctx.dataSource.query(`SELECT status, created FROM imports WHERE id = $1`, [
      id,
    ]);
    expect(row).toEqual({ status: 'succeeded', created: LINES });
  });
});
