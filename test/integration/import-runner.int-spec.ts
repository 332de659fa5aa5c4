import { Logger } from '@nestjs/common';
import type { OwnerScope } from '../../src/auth/scope';
import { ImportRunner } from '../../src/imports/import-runner';
import { ImportsStore, LostClaimError } from '../../src/imports/imports.store';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { ListingsService } from '../../src/listings/listings.service';
import { ListingsStore } from '../../src/listings/listings.store';
import { ApiLoad } from '../../src/platform/api-load/api-load';
import { Metrics } from '../../src/platform/metrics/metrics';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';
import { queueImport } from '../support/queued-import';
import { emptyTally } from '../../src/imports/import-plan';
import { eventually } from '../support/webhook-receiver';

const CHUNK = 3;
const LINES = 10;
/** Line 5 names a listing that exists before the import: it is updated, the rest are created. */
const UPDATED_LINE = 5;
const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : 1);

/**
 * The runner's bookkeeping across a crash: chunks commit their listing writes, results and
 * progress together, so a run that dies after a commit resumes after it and applies no line twice;
 * and a live lease keeps a second runner out.
 */
describe('ImportRunner resume after a crash between chunks', () => {
  let ctx: IntegrationContext;
  let runner: ImportRunner;
  let store: ImportsStore;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      { imports: [ImportsWorkerModule] },
      {
        IMPORT_CHUNK_LINES: String(CHUNK),
        // Long enough that the lease taken by the crashed run is live until the test expires it.
        IMPORT_LEASE: '10m',
        // The test runs the runner itself: no sweep queues the import behind its back.
        IMPORT_SWEEP_EVERY: '1h',
        // Below 1: the runner waits after every chunk from the second on, so the tests run through
        // it, as long as the API serves at least 20 requests a second (see keepApiBusy).
        IMPORT_YIELD_SLOWDOWN: '0.5',
        IMPORT_YIELD_MIN_API_RPS: '20',
      },
    );
    runner = ctx.get(ImportRunner);
    store = ctx.get(ImportsStore);
  });
  // Each test its own account: an import left running would queue the next one behind it.
  beforeEach(async () => {
    owner = await ctx.newOwner();
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await ctx?.close();
  });

  const externalId = (line: number) => `int-imp-${line}`;
  const body = (line: number) =>
    aListing()
      .with({ externalId: externalId(line), price: 1_000 + line })
      .build();

  const newImport = (lines: Record<string, unknown>[]) => queueImport(ctx, owner, lines);

  /**
   * Runs the import with a crash injected after its first chunk commits: the second chunk's
   * commit throws, so its transaction (listing writes, results, progress) rolls back, and the run
   * ends, logged, with the import left running under its lease, as a process dying there would.
   */
  async function crashAfterFirstChunk(id: string): Promise<void> {
    const saveChunk = jest.spyOn(store, 'saveChunk');
    saveChunk
      .mockImplementationOnce((...args) => ImportsStore.prototype.saveChunk.apply(store, args))
      .mockImplementationOnce(() => Promise.reject(new Error('crashed between chunks')));
    const logged = jest
      .spyOn((runner as unknown as { logger: Logger }).logger, 'error')
      .mockImplementation(() => undefined);
    try {
      await expect(runner.run(id)).rejects.toThrow('crashed between chunks');
      expect(saveChunk).toHaveBeenCalledTimes(2);
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ importId: id }),
        'Import run failed',
      );
    } finally {
      saveChunk.mockRestore();
      logged.mockRestore();
    }
  }

  const yielded = async () => (await ctx.get(Metrics).importYield.get()).values[0]?.value ?? 0;

  /**
   * API traffic as the API's instances report it: 200 requests a second until stopped, returned
   * once a reader sees it.
   */
  async function keepApiBusy(): Promise<() => void> {
    const apiLoad = ctx.get(ApiLoad);
    const timer = setInterval(() => {
      for (let i = 0; i < 10; i++) apiLoad.count();
    }, 50);
    stopApiTraffic = () => clearInterval(timer);
    await eventually(async () => (await apiLoad.requestsPerSecond()) >= 100);
    return stopApiTraffic;
  }
  let stopApiTraffic: (() => void) | undefined;
  afterEach(() => stopApiTraffic?.()); // also when a test failed before it stopped the traffic

  const importRow = async (id: string) =>
    (
      await ctx.dataSource.query(
        `SELECT status, next_line, lines, processed, created, updated, unchanged, renewed, failed,
                removed, attempts, claim_token, lease_until
         FROM imports WHERE id = $1`,
        [id],
      )
    )[0];
  const results = async (id: string) =>
    (
      await ctx.dataSource.query(
        `SELECT seq, line, external_id, outcome FROM import_results WHERE import_id = $1
         ORDER BY seq`,
        [id],
      )
    ).map((r: { seq: number; outcome: string }) => `${r.seq}:${r.outcome}`);
  const listings = () =>
    ctx.dataSource.query(
      `SELECT external_id, price::int AS price FROM listings
       WHERE account_id = $1 AND external_id LIKE 'int-imp-%' ORDER BY external_id`,
      [owner.accountId],
    );
  /** events about the owner's imported listings, as `event:externalId`, with their count */
  const listingEvents = async () =>
    (
      await ctx.dataSource.query(
        `SELECT e.event, l.external_id, count(*)::int AS n FROM outbox_events e
         JOIN listings l ON l.id = (e.data->>'id')::uuid
         WHERE e.account_id = $1 AND e.event LIKE 'listing.%'
         GROUP BY e.event, l.external_id`,
        [owner.accountId],
      )
    )
      .map((r: { event: string; external_id: string; n: number }) => ({
        key: `${r.event}:${r.external_id}`,
        n: r.n,
      }))
      .sort(byKey);
  const importEvents = (id: string) =>
    ctx.dataSource.query(
      `SELECT event, data->>'status' AS status FROM outbox_events
       WHERE account_id = $1 AND event LIKE 'import.%' AND data->>'id' = $2`,
      [owner.accountId, id],
    );

  it('a run that dies after its first chunk commits is resumed after it; every line applies once', async () => {
    await ctx.dataSource.transaction((em) =>
      ctx.get(ListingsService).create(
        em,
        owner,
        aListing()
          .with({ externalId: externalId(UPDATED_LINE), price: 1 })
          .build() as unknown as CreateListingDto,
      ),
    );
    const lines = Array.from({ length: LINES }, (_, i) => body(i + 1));
    const id = await newImport(lines);
    const yieldedBefore = await yielded();
    const stopTraffic = await keepApiBusy();

    await crashAfterFirstChunk(id);

    const crashed = await importRow(id);
    expect(crashed).toMatchObject({
      status: 'running',
      next_line: CHUNK,
      lines: LINES,
      processed: CHUNK,
      created: CHUNK,
      attempts: 1,
    });
    expect(await results(id)).toEqual(['1:created', '2:created', '3:created']);
    // Only the first chunk's listings exist (and line 5's, from before the import).
    expect((await listings()).map((l: { external_id: string }) => l.external_id)).toEqual(
      [1, 2, 3, UPDATED_LINE].map(externalId).sort(),
    );

    await ctx.dataSource.query(
      `UPDATE imports SET lease_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await runner.run(id);
    stopTraffic();

    expect(await importRow(id)).toMatchObject({
      status: 'succeeded',
      next_line: LINES,
      lines: LINES,
      processed: LINES,
      created: LINES - 1,
      updated: 1,
      unchanged: 0,
      failed: 0,
      removed: 0,
      attempts: 1, // claims in a row without a commit: each commit starts the count again
      claim_token: null,
    });
    expect(await results(id)).toEqual(
      Array.from(
        { length: LINES },
        (_, i) => `${i + 1}:${i + 1 === UPDATED_LINE ? 'updated' : 'created'}`,
      ),
    );
    expect(await listings()).toEqual(
      Array.from({ length: LINES }, (_, i) => ({
        external_id: externalId(i + 1),
        price: 1_000 + i + 1,
      })).sort((a, b) => a.external_id.localeCompare(b.external_id)),
    );
    // One event per change: created once per new listing, line 5's listing created (before the
    // import) and updated once, although its chunk was applied, rolled back and applied again.
    expect(await listingEvents()).toEqual(
      Array.from({ length: LINES }, (_, i) => i + 1)
        .flatMap((line) =>
          line === UPDATED_LINE
            ? [`listing.created:${externalId(line)}`, `listing.updated:${externalId(line)}`]
            : [`listing.created:${externalId(line)}`],
        )
        .map((key) => ({ key, n: 1 }))
        .sort(byKey),
    );
    expect(await importEvents(id)).toEqual([{ event: 'import.finished', status: 'succeeded' }]);
    // It waited after its chunks (IMPORT_YIELD_SLOWDOWN below 1), twice as long as each took.
    expect(await yielded()).toBeGreaterThan(yieldedBefore);
  });

  it('a run that commits before it dies is resumed however often that happens: only failures in a row count', async () => {
    const id = await newImport(Array.from({ length: LINES }, (_, i) => body(i + 1)));
    // Three runs in a row each commit one chunk and die on the next: three claims, each of which
    // made progress, are no reason to fail the import.
    for (let run = 1; run <= 3; run++) {
      await crashAfterFirstChunk(id);
      expect(await importRow(id)).toMatchObject({ status: 'running', processed: CHUNK * run });
      await ctx.dataSource.query(
        `UPDATE imports SET lease_until = now() - interval '1 second' WHERE id = $1`,
        [id],
      );
    }
    await runner.run(id);
    expect(await importRow(id)).toMatchObject({ status: 'succeeded', processed: LINES });
    expect(await results(id)).toHaveLength(LINES);
  });

  it('a slowed import does not wait while the API serves next to nothing', async () => {
    const lines = Array.from({ length: LINES }, (_, i) => body(100 + i));
    const apiLoad = ctx.get(ApiLoad);
    // The earlier tests' traffic has left the last second's window.
    await eventually(async () => (await apiLoad.requestsPerSecond()) === 0);
    for (let i = 0; i < 5; i++) apiLoad.count(); // a few requests: under the 20 a second
    const before = await yielded();
    const id = await newImport(lines);
    await runner.run(id);
    expect(await importRow(id)).toMatchObject({ status: 'succeeded', created: LINES });
    expect(await yielded()).toBe(before);

    // The same import's chunks with the API busy wait, as the other tests' do.
    const stopTraffic = await keepApiBusy();
    try {
      const again = await newImport(Array.from({ length: LINES }, (_, i) => body(200 + i)));
      await runner.run(again);
      expect(await yielded()).toBeGreaterThan(before);
    } finally {
      stopTraffic();
    }
  });

  it('a second runner cannot claim an import whose lease is live: it returns and changes nothing', async () => {
    const id = await newImport(
      Array.from({ length: 4 }, (_, i) =>
        aListing()
          .with({ externalId: `int-live-${i + 1}` })
          .build(),
      ),
    );
    // The first runner commits a chunk, then its process dies: its lease (10 minutes) is live.
    await crashAfterFirstChunk(id);

    const snapshot = async () => ({
      row: (await ctx.dataSource.query(`SELECT * FROM imports WHERE id = $1`, [id]))[0],
      results: await results(id),
      listings: await ctx.dataSource.query(
        `SELECT id, external_id, updated_at FROM listings WHERE external_id LIKE 'int-live-%'
         ORDER BY external_id`,
      ),
      events: (await ctx.dataSource.query(`SELECT count(*)::int AS n FROM outbox_events`))[0].n,
    });
    const before = await snapshot();
    expect(before.row).toMatchObject({ status: 'running', processed: CHUNK, attempts: 1 });
    expect(before.row.lease_until.getTime()).toBeGreaterThan(Date.now());

    const planned = jest.spyOn(store, 'markPlanned');
    const chunks = jest.spyOn(store, 'saveChunk');
    await runner.run(id);
    expect(planned).not.toHaveBeenCalled();
    expect(chunks).not.toHaveBeenCalled();
    planned.mockRestore();
    chunks.mockRestore();
    expect(await snapshot()).toEqual(before);
  });

  it('a cancel sent during the read pass ends the import before anything is applied or held', async () => {
    const id = await newImport([body(1), body(2), body(3), body(4)]);
    const planned = jest.spyOn(store, 'markPlanned').mockImplementationOnce(async (...args) => {
      // POST /v1/imports/:id/cancel on a running import: it asks the runner to stop.
      await ctx.dataSource.query(`UPDATE imports SET cancel_requested = true WHERE id = $1`, [id]);
      return ImportsStore.prototype.markPlanned.apply(store, args);
    });
    try {
      await runner.run(id);
    } finally {
      planned.mockRestore();
    }
    const [row] = await ctx.dataSource.query(`SELECT * FROM imports WHERE id = $1`, [id]);
    expect(row).toMatchObject({ status: 'cancelled', processed: 0 });
    expect(await results(id)).toEqual([]);
  });

  it('a cancel sent while a mirror counts its removals ends it instead of holding it', async () => {
    // Eleven listings the mirror's one line leaves out: over its default limit of ten removals.
    await runner.run(await newImport(Array.from({ length: 12 }, (_, i) => body(i + 1))));
    const id = await queueImport(ctx, owner, [body(1)], { mode: 'mirror' });
    let cancelledWhileCounting = false;
    const counted = jest
      .spyOn(ctx.get(ListingsStore), 'countMirrorRemovals')
      .mockImplementationOnce(async (...args) => {
        const counts = await ListingsStore.prototype.countMirrorRemovals.apply(
          ctx.get(ListingsStore),
          args,
        );
        // POST /v1/imports/:id/cancel, committed while the runner counts.
        await ctx.dataSource.query(`UPDATE imports SET cancel_requested = true WHERE id = $1`, [
          id,
        ]);
        cancelledWhileCounting = true;
        return counts;
      });
    try {
      await runner.run(id);
    } finally {
      counted.mockRestore();
    }
    expect(cancelledWhileCounting).toBe(true);
    expect(await importRow(id)).toMatchObject({ status: 'cancelled', removed: 0 });
    const events = await ctx.dataSource.query(
      `SELECT event FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq`,
      [id],
    );
    expect(events.map((e: { event: string }) => e.event)).toEqual(['import.finished']);
  });

  it('a chunk saved under a claim that was lost records no result and no progress', async () => {
    const id = await newImport([body(1), body(2), body(3), body(4)]);
    await crashAfterFirstChunk(id);
    const before = { row: await importRow(id), results: await results(id) };
    const stale = { id, token: '00000000-0000-4000-8000-000000000000' };
    const progress = {
      nextLine: 4,
      processed: 1,
      tally: { ...emptyTally(), unchanged: 1 },
      results: [
        {
          seq: 4,
          line: 4,
          external_id: externalId(4),
          outcome: 'unchanged' as const,
          listing_id: null,
          error: null,
        },
      ],
    };
    await expect(store.saveChunk(ctx.dataSource.manager, stale, progress, 60_000)).rejects.toThrow(
      LostClaimError,
    );
    expect({ row: await importRow(id), results: await results(id) }).toEqual(before);
  });

  it("a re-sent file's unchanged lines ride along in its chunks, and a renewing one's renewals commit together", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => body(300 + i));
    await runner.run(await newImport(lines));
    const due = [300, 306].map(externalId);
    await ctx.dataSource.query(
      `UPDATE listings SET expires_at = now() + interval '3 days'
       WHERE account_id = $1 AND external_id = ANY($2)`,
      [owner.accountId, due],
    );
    const chunks = jest.spyOn(store, 'saveChunk');
    const renewing = jest.spyOn(store, 'saveRenewingChunk');
    try {
      // The night before: the due lines are applied again (the update above dropped their hashes),
      // two lines to write (CHUNK is 3), in one chunk with the ten unchanged ones.
      const night = await newImport(lines);
      await runner.run(night);
      expect(await importRow(night)).toMatchObject({
        status: 'succeeded',
        processed: 12,
        unchanged: 12,
      });
      expect(chunks).toHaveBeenCalledTimes(1);
      // All 12 known now: one chunk, with its two renewals in one statement.
      const renew = await queueImport(ctx, owner, lines, { renew: true });
      await runner.run(renew);
      expect(chunks).toHaveBeenCalledTimes(1);
      expect(renewing).toHaveBeenCalledTimes(1);
      expect(await importRow(renew)).toMatchObject({
        status: 'succeeded',
        processed: 12,
        renewed: 2,
        unchanged: 10,
        next_line: 12,
      });
      expect(await results(renew)).toEqual(
        Array.from({ length: 12 }, (_, i) => `${i + 1}:${i % 6 === 0 ? 'renewed' : 'unchanged'}`),
      );
    } finally {
      chunks.mockRestore();
      renewing.mockRestore();
    }
  });

  it('a renewing run that dies after its first chunk of riding lines resumes after it: each listing renewed once', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => body(400 + i));
    await runner.run(await newImport(lines));
    const due = [400, 410, 420, 430].map(externalId);
    await ctx.dataSource.query(
      `UPDATE listings SET expires_at = now() + interval '3 days'
       WHERE account_id = $1 AND external_id = ANY($2)`,
      [owner.accountId, due],
    );
    await runner.run(await newImport(lines)); // the night before: every line known again
    const id = await queueImport(ctx, owner, lines, { renew: true });
    // Renewals count as lines to write (CHUNK is 3): lines 1–21 hold three, 22–40 the fourth.
    const renewing = jest.spyOn(store, 'saveRenewingChunk');
    renewing
      .mockImplementationOnce((...args) =>
        ImportsStore.prototype.saveRenewingChunk.apply(store, args),
      )
      .mockImplementationOnce(() => Promise.reject(new Error('crashed between chunks')));
    const logged = jest
      .spyOn((runner as unknown as { logger: Logger }).logger, 'error')
      .mockImplementation(() => undefined);
    try {
      await expect(runner.run(id)).rejects.toThrow('crashed between chunks');
    } finally {
      renewing.mockRestore();
      logged.mockRestore();
    }
    expect(await importRow(id)).toMatchObject({ status: 'running', next_line: 21, processed: 21 });

    await ctx.dataSource.query(
      `UPDATE imports SET lease_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await runner.run(id);
    expect(await importRow(id)).toMatchObject({
      status: 'succeeded',
      processed: 40,
      renewed: 4,
      unchanged: 36,
      attempts: 1,
    });
    expect(await results(id)).toEqual(
      Array.from({ length: 40 }, (_, i) => `${i + 1}:${i % 10 === 0 ? 'renewed' : 'unchanged'}`),
    );
    const updated = (await listingEvents()).filter((e: { key: string }) =>
      e.key.startsWith('listing.updated:'),
    );
    expect(updated).toEqual(
      due.map((externalId) => ({ key: `listing.updated:${externalId}`, n: 1 })),
    );
  });

  it('runs one import at a time per account and mode, in order of arrival', async () => {
    const first = await newImport([body(1)]);
    const second = await newImport([body(2)]);
    // The later import waits while the earlier one is queued: a claim on it finds nothing to do.
    await runner.run(second);
    expect((await store.findById(second))!.status).toBe('queued');
    await runner.run(first);
    expect((await store.findById(first))!.status).toBe('succeeded');
    await runner.run(second);
    expect((await store.findById(second))!.status).toBe('succeeded');
    // Another mode of the same account is a queue of its own.
    const testScope = { ...owner, livemode: false };
    const live = await newImport([body(3)]);
    const saved = owner;
    owner = testScope;
    const test = await newImport([body(4)]);
    owner = saved;
    await runner.run(test);
    expect((await store.findById(test))!.status).toBe('succeeded');
    expect((await store.findById(live))!.status).toBe('queued');
  });
});
