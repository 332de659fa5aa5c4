import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import type { OwnerScope } from '../../src/auth/scope';
import { ImagesModule } from '../../src/images/images.module';
import { ImagesService } from '../../src/images/images.service';
import { ImagesWorkerModule } from '../../src/images/images-worker.module';
import { ImageDispatcher } from '../../src/images/pipeline/image-dispatcher';
import { ImageJobsStore } from '../../src/images/pipeline/image-jobs.store';
import { IMAGE_QUEUE } from '../../src/images/pipeline/image-queue';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { IMAGE_PRIORITY } from '../../src/listings/gallery/image-priority';
import { ListingsService } from '../../src/listings/listings.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

const LEASE_MS = 60_000;

/**
 * The dispatcher's claim against the real database: a single request's images before those of
 * bulk requests and imports, and accounts in turn within each priority.
 */
describe('Image claims: priority and accounts in turn', () => {
  let ctx: IntegrationContext;
  let listings: ListingsService;
  let store: ImageJobsStore;
  let serial = 0;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      { imports: [ImagesModule, ImagesWorkerModule] },
      // No loops: each test claims itself. Six jobs at most wait in Bull.
      { IMAGE_CONCURRENCY: '0', IMAGE_DISPATCH_BATCH: '6', IMAGE_BACKFILL_BATCH: '0' },
    );
    listings = ctx.get(ListingsService);
    store = ctx.get(ImageJobsStore);
  });
  afterAll(() => ctx.close());
  // Each test starts with nothing due and nothing in flight.
  afterEach(async () => {
    await ctx.dataSource.query(
      `UPDATE listing_images SET status = 'ready' WHERE status = 'pending'`,
    );
    await ctx.get<Queue>(getQueueToken(IMAGE_QUEUE) as never).empty();
  });

  const body = (images: number) =>
    aListing()
      .with({
        images: Array.from({ length: images }, () => ({
          url: `https://img.example.com/${++serial}.jpg`,
        })),
      })
      .build() as unknown as CreateListingDto;
  /** One listing by a single request (POST /listings): its image ids. */
  const single = async (owner: OwnerScope, images = 1) =>
    (await ctx.dataSource.transaction((em) => listings.create(em, owner, body(images)))).images.map(
      (image) => image.id,
    );
  /** Listings of `per` images by one bulk create: their image ids, oldest first. */
  const bulk = async (owner: OwnerScope, count: number, per = 1) => {
    const rows = await ctx.dataSource.transaction((em) =>
      listings.createMany(
        em,
        owner,
        Array.from({ length: count }, () => body(per)),
      ),
    );
    return rows.flatMap((row) => ('images' in row ? row.images.map((image) => image.id) : []));
  };
  const claim = (limit: number) => store.claimDue(limit, false, LEASE_MS);
  const ownersOf = async (ids: string[]): Promise<string[]> => {
    const rows: { id: string; account_id: string }[] = await ctx.dataSource.query(
      'SELECT id, account_id FROM listing_images WHERE id = ANY($1)',
      [ids],
    );
    const owner = new Map(rows.map((row) => [row.id, row.account_id]));
    return ids.map((id) => owner.get(id)!);
  };
  const priorityOf = async (id: string): Promise<number> =>
    (await ctx.dataSource.query('SELECT priority FROM listing_images WHERE id = $1', [id]))[0]
      .priority;

  it('each write path records its priority: single requests 0; bulk creates, bulk updates and imports 1', async () => {
    const owner = await ctx.newOwner();
    const [created] = await single(owner);
    const [bulked] = await bulk(owner, 1);
    const imported = await ctx.dataSource.transaction((em) =>
      listings.upsertBatch(em, owner, [{ externalId: `imp-${++serial}`, dto: body(1) }]),
    );
    const importedId = (imported[0] as { row: { images: { id: string }[] } }).row.images[0].id;
    const put = await listings.upsertByExternalId(owner, `put-${++serial}`, body(1));
    const empty = () => ctx.dataSource.transaction((em) => listings.create(em, owner, body(0)));
    const [forPatch, forBulkPatch] = [await empty(), await empty()];
    const patched = await listings.updateOne(owner, forPatch.id, { images: body(1).images });
    const bulkPatched = await ctx.dataSource.transaction((em) =>
      listings.update(em, owner, forBulkPatch.id, { images: body(1).images }, IMAGE_PRIORITY.bulk),
    );
    const added = await ctx
      .get(ImagesService)
      .add(owner, forPatch.id, { kind: 'url', url: 'https://img.example.com/added.jpg' });

    expect(await priorityOf(created)).toBe(0);
    expect(await priorityOf(put.listing.images[0].id)).toBe(0);
    expect(await priorityOf(patched.images[0].id)).toBe(0);
    expect(await priorityOf(added.id)).toBe(0);
    expect(await priorityOf(bulked)).toBe(1);
    expect(await priorityOf(importedId)).toBe(1);
    expect(await priorityOf(bulkPatched.images[0].id)).toBe(1);
    // Every new row names its listing's account, whichever statement wrote it.
    const unowned = await ctx.dataSource.query(
      'SELECT count(*)::int AS n FROM listing_images WHERE account_id IS DISTINCT FROM $1',
      [owner.accountId],
    );
    expect(unowned[0].n).toBe(0);
  });

  it('a retried image comes back with a single request’s priority', async () => {
    const owner = await ctx.newOwner();
    const [id] = await bulk(owner, 1);
    await ctx.dataSource.query(`UPDATE listing_images SET status = 'failed' WHERE id = $1`, [id]);
    const [{ listing_id: listingId }] = await ctx.dataSource.query(
      'SELECT listing_id FROM listing_images WHERE id = $1',
      [id],
    );
    await ctx.get(ImagesService).retry(owner, listingId, id);
    expect(await priorityOf(id)).toBe(0);
  });

  it('claims a single request’s image before an older backlog of bulk images, of another account or its own', async () => {
    const [a, b] = [await ctx.newOwner(), await ctx.newOwner()];
    const backlog = await bulk(a, 10, 2);
    const [bs] = await single(b);
    const [as] = await single(a);

    const claimed = await claim(4);
    expect(claimed.slice(0, 2)).toEqual([
      { id: bs, priority: 0 },
      { id: as, priority: 0 },
    ]);
    expect(claimed.slice(2).map((c) => c.priority)).toEqual([1, 1]);
    expect(backlog).toEqual(expect.arrayContaining(claimed.slice(2).map((c) => c.id)));
  });

  it('serves two accounts’ backlogs in turn, the older first, however big either is', async () => {
    const [a, b] = [await ctx.newOwner(), await ctx.newOwner()];
    // A's 100 images, then B's 3.
    await bulk(a, 20, 5);
    const bImages = await bulk(b, 1, 3);

    const claimed = (await claim(6)).map((c) => c.id);
    expect(await ownersOf(claimed)).toEqual([
      a.accountId,
      b.accountId,
      a.accountId,
      b.accountId,
      a.accountId,
      b.accountId,
    ]);
    expect(claimed.filter((id) => bImages.includes(id)).sort()).toEqual([...bImages].sort());
    // B has nothing left: A's backlog follows.
    const rest = (await claim(3)).map((c) => c.id);
    expect(await ownersOf(rest)).toEqual([a.accountId, a.accountId, a.accountId]);
    expect(new Set([...claimed, ...rest]).size).toBe(9);
  });

  it('counts what an account has in flight: a run of one claim picks the account with fewer handed over', async () => {
    const [a, b] = [await ctx.newOwner(), await ctx.newOwner()];
    await bulk(a, 10);
    expect(await ownersOf((await claim(4)).map((c) => c.id))).toEqual(Array(4).fill(a.accountId));
    await bulk(b, 5);

    // A has four in flight: four of B's come before A's fifth, though A's are older.
    const oneByOne: string[] = [];
    for (let run = 0; run < 6; run++) oneByOne.push(...(await claim(1)).map((c) => c.id));
    expect(await ownersOf(oneByOne)).toEqual([
      ...Array(4).fill(b.accountId),
      a.accountId,
      b.accountId,
    ]);
  });

  it('the dispatcher queues a single request’s image ahead of bulk jobs already waiting in Bull', async () => {
    const queue = ctx.get<Queue>(getQueueToken(IMAGE_QUEUE) as never);
    const [a, b] = [await ctx.newOwner(), await ctx.newOwner()];
    await bulk(a, 20);
    expect(await ctx.get(ImageDispatcher).dispatch()).toBe(6);
    const bulkJobs = (await queue.getWaiting()).map((job) => job.id);
    // The next bulk job leaves; its room goes to B's image, claimed after the others yet run first.
    await (await queue.getJob(bulkJobs[0]))!.remove();
    const [bs] = await single(b);
    expect(await ctx.get(ImageDispatcher).dispatch()).toBe(1);
    expect((await queue.getWaiting()).map((job) => job.id)).toEqual([bs, ...bulkJobs.slice(1)]);
  });
});
