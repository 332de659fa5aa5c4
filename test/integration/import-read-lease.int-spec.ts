import { readdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OwnerScope } from '../../src/auth/scope';
import { ImportFeedSource } from '../../src/imports/import-feed-source';
import { ImportRunner } from '../../src/imports/import-runner';
import { ImportsStore, LostClaimError } from '../../src/imports/imports.store';
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
 * A runner keeps its claim while it works without committing (a feed's download, the read pass):
 * a timer renews the lease on time, whatever the work awaits, so a live runner is never taken for
 * a dead one.
 */
describe('ImportRunner: the lease during slow work', () => {
  let ctx: IntegrationContext;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      { imports: [ImportsWorkerModule] },
      // The read pass and the download below take 800 ms: more than twice the lease.
      {
        IMPORT_LEASE: '300ms',
        IMPORT_SWEEP_EVERY: '1h',
        FETCH_ALLOW_PRIVATE_TARGETS: 'true',
      },
    );
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await ctx?.close();
  });

  /** A `sourceUrl` import of `server`'s feed, queued as POST /v1/imports leaves it (no job). */
  const queueUrlImport = (owner: OwnerScope, server: Server) =>
    ctx.dataSource.transaction((em) =>
      ctx.get(ImportsStore).insertWithinLimit(
        em,
        owner,
        {
          mode: 'upsert',
          dryRun: false,
          renew: false,
          format: 'ndjson',
          source: 'url',
          sourceUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.ndjson`,
          gzip: false,
          fileKey: null,
          maxRemovals: null,
        },
        5,
      ),
    );

  const leaseLive = async (id: string): Promise<boolean> =>
    (
      await ctx.dataSource.query(`SELECT lease_until > now() AS live FROM imports WHERE id = $1`, [
        id,
      ])
    )[0].live;

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
    const live: boolean[] = [];
    jest.spyOn(store, 'markPlanned').mockImplementationOnce(async (claim, count) => {
      live.push(await leaseLive(id));
      return markPlanned(claim, count);
    });

    await ctx.get(ImportRunner).run(id);

    expect(live).toEqual([true]);
    const [row] = await ctx.dataSource.query(`SELECT status, created FROM imports WHERE id = $1`, [
      id,
    ]);
    expect(row).toEqual({ status: 'succeeded', created: LINES });
  });

  it('is still live when a slow feed URL has been downloaded, and stores one file', async () => {
    // The feed's first line at once, the rest 800 ms later.
    const server = createServer((_req, res) => {
      res.write(JSON.stringify(aListing().with({ externalId: 'slow-url-1' }).build()) + '\n');
      setTimeout(
        () => res.end(JSON.stringify(aListing().with({ externalId: 'slow-url-2' }).build()) + '\n'),
        800,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const owner = await ctx.newOwner();
      const store = ctx.get(ImportsStore);
      const row = await queueUrlImport(owner, server);
      const setFile = store.setFile.bind(store);
      const live: boolean[] = [];
      jest.spyOn(store, 'setFile').mockImplementationOnce(async (claim, key, gzip) => {
        live.push(await leaseLive(row!.id));
        return setFile(claim, key, gzip);
      });
      const filesBefore = readdirSync(join(ctx.storageDir, '.private', 'imports')).length;

      await ctx.get(ImportRunner).run(row!.id);

      expect(live).toEqual([true]);
      const [done] = await ctx.dataSource.query(
        `SELECT status, created FROM imports WHERE id = $1`,
        [row!.id],
      );
      expect(done).toEqual({ status: 'succeeded', created: 2 });
      expect(readdirSync(join(ctx.storageDir, '.private', 'imports'))).toHaveLength(
        filesBefore + 1,
      );
    } finally {
      server.close();
    }
  });

  it('deletes a downloaded feed when the claim was lost meanwhile', async () => {
    const server = createServer((_req, res) =>
      res.end(JSON.stringify(aListing().with({ externalId: 'lost-1' }).build()) + '\n'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const owner = await ctx.newOwner();
      const store = ctx.get(ImportsStore);
      const row = await queueUrlImport(owner, server);
      // Another runner took the import while this one downloaded: its setFile finds no claim.
      jest.spyOn(store, 'setFile').mockRejectedValueOnce(new LostClaimError(row!.id));
      const filesBefore = readdirSync(join(ctx.storageDir, '.private', 'imports')).length;

      await ctx.get(ImportRunner).run(row!.id);

      expect(readdirSync(join(ctx.storageDir, '.private', 'imports'))).toHaveLength(filesBefore);
      const [after] = await ctx.dataSource.query(
        `SELECT status, file_key FROM imports WHERE id = $1`,
        [row!.id],
      );
      expect(after).toEqual({ status: 'running', file_key: null });
    } finally {
      server.close();
    }
  });
});
