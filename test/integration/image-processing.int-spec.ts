import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { OwnerScope } from '../../src/auth/scope';
import { ImagesModule } from '../../src/images/images.module';
import { ImagesService } from '../../src/images/images.service';
import { ImagesWorkerModule } from '../../src/images/images-worker.module';
import { ImageDispatcher } from '../../src/images/pipeline/image-dispatcher';
import { ImageJobProcessor } from '../../src/images/pipeline/image-job.processor';
import { ImageJobsStore } from '../../src/images/pipeline/image-jobs.store';
import { IMAGE_QUEUE } from '../../src/images/pipeline/image-queue';
import { renditionKeys } from '../../src/images/pipeline/rendition-keys';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { IMAGE_PRIORITY } from '../../src/listings/gallery/image-priority';
import { ListingsService } from '../../src/listings/listings.service';
import { ImageFileCleanup } from '../../src/storage/image-file-cleanup';
import { STORAGE_DRIVER, StorageDriver } from '../../src/storage/storage-driver';
import { ImageServer } from '../support/image-server';
import { freePort } from '../support/service-process';
import { png } from '../support/images';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

interface ImageRow {
  id: string;
  status: string;
  width: number | null;
  height: number | null;
  variants: Record<string, string> | null;
  rendition_keys: string[] | null;
  pending_rendition_keys: string[] | null;
  error_reason: string | null;
  error_message: string | null;
  attempts: number;
  next_attempt_at: Date;
  queued_at: Date | null;
}

const RETRY_DELAYS = [60_000, 600_000, 3_600_000];

/**
 * The processor against a local HTTP server and the real database: every failure reason, the
 * retry schedule, ready images with their renditions, and what stays stable; the dispatcher's
 * hand-over, lease and backfill pacing.
 */
describe('Image processing', () => {
  const server = new ImageServer();
  let ctx: IntegrationContext;
  let owner: OwnerScope;
  let processor: ImageJobProcessor;

  beforeAll(async () => {
    await server.start();
    ctx = await createIntegrationContext(
      { imports: [ImagesModule, ImagesWorkerModule] },
      {
        IMAGE_FETCH_TIMEOUT: '1s',
        IMAGE_DISPATCH_BATCH: '1000',
        IMAGE_BACKFILL_BATCH: '2',
        IMAGE_LEASE: '300ms',
        // No loops: each test runs the processor and the dispatcher itself.
        IMAGE_CONCURRENCY: '0',
      },
    );
    owner = await ctx.newOwner();
    processor = ctx.get(ImageJobProcessor);
  });
  afterAll(async () => {
    await ctx.close();
    await server.stop();
  });

  const newListing = async (urls: string[]) =>
    ctx.dataSource.transaction((em) =>
      ctx.get(ListingsService).create(
        em,
        owner,
        aListing()
          .with({ images: urls.map((url) => ({ url })) })
          .build() as unknown as CreateListingDto,
      ),
    );
  const imageOf = async (url: string) => (await newListing([url])).images[0].id;
  const row = async (id: string): Promise<ImageRow> =>
    (await ctx.dataSource.query('SELECT * FROM listing_images WHERE id = $1', [id]))[0];
  const processed = async (url: string) => {
    const id = await imageOf(url);
    await processor.process(id);
    return row(id);
  };
  /** Marks the image's earlier tries as spent, so this one is its last. */
  const lastTry = (id: string) =>
    ctx.dataSource.query('UPDATE listing_images SET attempts = $2 WHERE id = $1', [
      id,
      RETRY_DELAYS.length,
    ]);
  /** What processing must never change: updatedAt and the listing's events. */
  const stamp = (listingId: string) =>
    ctx.dataSource.query(
      `SELECT updated_at, (SELECT count(*)::int FROM outbox_events WHERE data->>'id' = $2) AS events
       FROM listings WHERE id = $1`,
      [listingId, listingId],
    );
  const filesOf = async (id: string) =>
    (await readdir(ctx.storageDir)).filter((name) => name.startsWith(id)).sort();

  it('renders a URL image: ready with its oriented size and three WebP renditions, served by key', async () => {
    const listing = await newListing([`${server.base}/photo.jpg`, `${server.base}/wide.png`]);
    const [photo, wide] = listing.images.map((i) => i.id);
    const before = await stamp(listing.id);
    await processor.process(photo);
    await processor.process(wide);

    // EXIF orientation 6: the 64×32 JPEG stands 32×64.
    expect(await row(photo)).toMatchObject({
      status: 'ready',
      width: 32,
      height: 64,
      error_reason: null,
    });
    const ready = await row(wide);
    expect(ready).toMatchObject({ status: 'ready', width: 2000, height: 1000 });
    expect(ready.variants).toEqual({
      thumb: `http://127.0.0.1/media/${ready.rendition_keys![0]}`,
      medium: `http://127.0.0.1/media/${ready.rendition_keys![1]}`,
      large: `http://127.0.0.1/media/${ready.rendition_keys![2]}`,
    });
    const sizes = await Promise.all(
      ready.rendition_keys!.map(async (key) => {
        const meta = await sharp(join(ctx.storageDir, key)).metadata();
        return [meta.format, meta.width, meta.height];
      }),
    );
    expect(sizes).toEqual([
      ['webp', 320, 160],
      ['webp', 960, 480],
      ['webp', 1600, 800],
    ]);

    // Derived data: updatedAt and the events stay as they were, the rendered JSON shows it.
    expect(await stamp(listing.id)).toEqual(before);
    const byId = await ctx.get(ListingsService).get(owner, listing.id);
    const [{ rendered }] = await ctx.dataSource.query(
      'SELECT rendered FROM listings WHERE id = $1',
      [listing.id],
    );
    expect(JSON.parse(rendered).images).toEqual(byId.images);
    expect(byId.images[1]).toEqual({
      id: wide,
      url: `${server.base}/wide.png`,
      order: 1,
      status: 'ready',
      width: 2000,
      height: 1000,
      variants: ready.variants,
      error: null,
    });
  });

  it('renders an upload, and a /media URL of this service, from storage, fetching nothing', async () => {
    const listing = await newListing([]);
    const added = await ctx
      .get(ImagesService)
      .add(owner, listing.id, { kind: 'upload', data: await png(40, 30), field: 'file' });
    expect(added.status).toBe('pending');
    await processor.process(added.id);
    expect(await row(added.id)).toMatchObject({ status: 'ready', width: 40, height: 30 });
    // Another listing showing that upload by its /media URL (no key of its own): read from
    // storage too (http://127.0.0.1/media/… has no server behind it here).
    expect(added.url).toMatch(/^http:\/\/127\.0\.0\.1\/media\//);
    const copy = await imageOf(added.url);
    await processor.process(copy);
    expect(await row(copy)).toMatchObject({ status: 'ready', width: 40, height: 30 });
  });

  it.each([
    ['/missing.jpg', 'http_error', /HTTP 404/],
    ['/page.html', 'not_an_image', /JPEG, PNG, WebP and AVIF|not a decodable image/],
    ['/bomb.png', 'too_many_pixels', /40 megapixels/],
    ['/huge.jpg', 'too_large', /larger than 10485760 bytes/],
    // answers of the server, not network errors: not retried
    ['/loop.jpg', 'too_many_redirects', /More than 3 redirects/],
    [
      '/file-redirect.jpg',
      'unsupported_scheme',
      /Only http and https URLs can be fetched, not file:/,
    ],
  ])('%s fails at once: %s', async (path, reason, message) => {
    const image = await processed(`${server.base}${path}`);
    expect(image).toMatchObject({ status: 'failed', error_reason: reason, attempts: 1 });
    expect(image.error_message).toMatch(message);
    expect(image.variants).toBeNull();
    expect(await filesOf(image.id)).toEqual([]);
  });

  it.each([
    ['HTTP 500', '/flaky.jpg', 'http_error'],
    ['HTTP 429', '/busy.jpg', 'http_error'],
    ['a server that drips bytes past the deadline', '/drip.jpg', 'timeout'],
  ])('%s is retried after 1 min, 10 min and 1 h, then fails with %s', async (_, path, reason) => {
    server.flakyFailures = 100;
    const id = await imageOf(`${server.base}${path}`);
    const started = Date.now();
    await processor.process(id);
    const retried = await row(id);
    // Still pending, no error shown yet, due again a minute on.
    expect(retried).toMatchObject({ status: 'pending', attempts: 1, error_reason: null });
    expect(retried.next_attempt_at.getTime()).toBeGreaterThanOrEqual(started + RETRY_DELAYS[0]);
    expect(retried.next_attempt_at.getTime()).toBeLessThan(started + RETRY_DELAYS[1]);
    await processor.process(id);
    const second = await row(id);
    expect(second.attempts).toBe(2);
    expect(second.next_attempt_at.getTime()).toBeGreaterThanOrEqual(started + RETRY_DELAYS[1]);
    await lastTry(id);
    await processor.process(id);
    expect(await row(id)).toMatchObject({ status: 'failed', error_reason: reason });
  });

  it('a 500 then an image: ready on the retry', async () => {
    server.flakyFailures = 1;
    const id = await imageOf(`${server.base}/flaky.jpg`);
    await processor.process(id);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1 });
    await processor.process(id);
    expect(await row(id)).toMatchObject({ status: 'ready', width: 32, height: 64 });
  });

  it('a port nobody listens on is unreachable, retried, then failed', async () => {
    const id = await imageOf(`http://127.0.0.1:${await freePort()}/photo.jpg`);
    await processor.process(id);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1 });
    await lastTry(id);
    await processor.process(id);
    expect(await row(id)).toMatchObject({ status: 'failed', error_reason: 'unreachable' });
  });

  it('an image deleted while it is processed: the result is dropped with its files', async () => {
    let arrived!: () => void;
    const request = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    server.held = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
    const listing = await newListing([`${server.base}/held.jpg`]);
    const id = listing.images[0].id;
    const processing = processor.process(id);
    await request;
    await ctx.get(ImagesService).remove(owner, listing.id, id);
    release();
    await processing;
    expect(await row(id)).toBeUndefined();
    expect(await filesOf(id)).toEqual([]);
    server.held = undefined;
  });

  it('a replaced gallery keeps an unchanged URL’s image as it is and fetches nothing again; a dropped one’s files go', async () => {
    const listing = await newListing([`${server.base}/photo.jpg`, `${server.base}/wide.png`]);
    const [kept, dropped] = listing.images.map((i) => i.id);
    await processor.process(kept);
    await processor.process(dropped);
    const before = await row(kept);
    const droppedFiles = await filesOf(dropped);
    expect(droppedFiles).toHaveLength(3);
    const fetches = server.hits.get('/photo.jpg');

    const updated = await ctx.dataSource.transaction((em) =>
      ctx
        .get(ListingsService)
        .update(
          em,
          owner,
          listing.id,
          { images: [{ url: `${server.base}/missing.jpg` }, { url: `${server.base}/photo.jpg` }] },
          IMAGE_PRIORITY.request,
        ),
    );
    expect(updated.images[1]).toMatchObject({
      id: kept,
      status: 'ready',
      variants: before.variants,
    });
    expect(updated.images[0]).toMatchObject({ status: 'pending', variants: null });
    expect(await row(kept)).toMatchObject({
      status: 'ready',
      variants: before.variants,
      attempts: 0,
    });

    // A worker processes what is pending: the new image only, so the kept one is not fetched.
    const pending: { id: string }[] = await ctx.dataSource.query(
      `SELECT id FROM listing_images WHERE listing_id = $1 AND status = 'pending'`,
      [listing.id],
    );
    expect(pending).toEqual([{ id: updated.images[0].id }]);
    for (const image of pending) await processor.process(image.id);
    expect(server.hits.get('/photo.jpg')).toBe(fetches);
    expect(await row(kept)).toEqual({ ...before, position: 1 });
    // The dropped image's renditions are deleted after the commit.
    expect(await filesOf(dropped)).toEqual([]);
    expect(await filesOf(kept)).toHaveLength(3);
  });

  describe('a run killed between writing its files and recording its result', () => {
    /** What such a run leaves: its files in storage, named in the row as pending, the image pending. */
    const killedRun = async (id: string) => {
      const keys = Object.values(renditionKeys(id));
      expect(await ctx.get(ImageJobsStore).recordPending(id, keys)).toBe(true);
      const storage = ctx.get<StorageDriver>(STORAGE_DRIVER as never);
      await Promise.all(keys.map((key) => storage.put(key, Buffer.from('webp'), 'image/webp')));
      expect(await filesOf(id)).toEqual([...keys].sort());
      return keys;
    };
    /** The listing row's version: any re-render writes a new one. */
    const version = async (listingId: string) =>
      (await ctx.dataSource.query('SELECT xmin FROM listings WHERE id = $1', [listingId]))[0].xmin;

    it('naming the files renders no listing; the next run ends ready with new keys and deletes the killed run’s files', async () => {
      const listing = await newListing([`${server.base}/photo.jpg`]);
      const id = listing.images[0].id;
      const before = await version(listing.id);
      const killed = await killedRun(id);
      expect(await version(listing.id)).toBe(before);
      expect(await row(id)).toMatchObject({ status: 'pending', pending_rendition_keys: killed });

      await processor.process(id);
      const ready = await row(id);
      expect(ready).toMatchObject({ status: 'ready', pending_rendition_keys: null });
      expect(ready.rendition_keys).toHaveLength(3);
      expect(ready.rendition_keys!.filter((key) => killed.includes(key))).toEqual([]);
      expect(await filesOf(id)).toEqual([...ready.rendition_keys!].sort());
    });

    it('the result requests their deletion in its transaction: a delete that fails is finished by the sweep', async () => {
      const listing = await newListing([`${server.base}/photo.jpg`]);
      const id = listing.images[0].id;
      const killed = await killedRun(id);
      const storage = ctx.get<StorageDriver>(STORAGE_DRIVER as never);
      const deletes = jest.spyOn(storage, 'delete').mockRejectedValue(new Error('unavailable'));
      await processor.process(id);
      deletes.mockRestore();
      const ready = await row(id);
      expect(ready).toMatchObject({ status: 'ready', pending_rendition_keys: null });
      expect(await filesOf(id)).toEqual([...killed, ...ready.rendition_keys!].sort());
      const requested = () =>
        ctx.dataSource.query('SELECT key FROM storage_deletions WHERE key = ANY($1)', [killed]);
      expect(await requested()).toHaveLength(3);

      await ctx.dataSource.query(
        `UPDATE storage_deletions SET requested_at = now() - interval '2 minutes'
         WHERE key = ANY($1)`,
        [killed],
      );
      expect(await ctx.get(ImageFileCleanup).sweepBatch(100)).toBe(3);
      expect(await filesOf(id)).toEqual([...ready.rendition_keys!].sort());
      expect(await requested()).toEqual([]);
    });

    it('a failure for good deletes them too', async () => {
      const listing = await newListing([`${server.base}/missing.jpg`]);
      const id = listing.images[0].id;
      await killedRun(id);
      await processor.process(id);
      expect(await row(id)).toMatchObject({ status: 'failed', pending_rendition_keys: null });
      expect(await filesOf(id)).toEqual([]);
    });

    it('a failure to be retried keeps them: a run still under way records its files after it', async () => {
      server.flakyFailures = 1;
      const listing = await newListing([`${server.base}/flaky.jpg`]);
      const id = listing.images[0].id;
      // A run that named and wrote its files, still under way (a stalled job run again beside it).
      const live = await killedRun(id);
      await processor.process(id);
      expect(await row(id)).toMatchObject({ status: 'pending', pending_rendition_keys: live });
      expect(await filesOf(id)).toEqual([...live].sort());

      const recorded = await ctx.get(ImageJobsStore).markReady(id, {
        width: 64,
        height: 32,
        variants: { thumb: 't', medium: 'm', large: 'l' },
        keys: live,
      });
      expect(recorded).toBe(true);
      expect(await row(id)).toMatchObject({ status: 'ready', rendition_keys: live });
      expect(await filesOf(id)).toEqual([...live].sort());
    });

    it('deleting the image deletes the files the killed run named', async () => {
      const listing = await newListing([`${server.base}/photo.jpg`]);
      const id = listing.images[0].id;
      await killedRun(id);
      await ctx.get(ImagesService).remove(owner, listing.id, id);
      expect(await filesOf(id)).toEqual([]);
    });

    it('a replaced gallery dropping the image deletes them', async () => {
      const listing = await newListing([`${server.base}/photo.jpg`]);
      const id = listing.images[0].id;
      await killedRun(id);
      await ctx.dataSource.transaction((em) =>
        ctx
          .get(ListingsService)
          .update(em, owner, listing.id, { images: [] }, IMAGE_PRIORITY.request),
      );
      expect(await filesOf(id)).toEqual([]);
    });

    it('nothing is named for an image no longer pending, or gone', async () => {
      const listing = await newListing([`${server.base}/photo.jpg`]);
      const id = listing.images[0].id;
      await processor.process(id);
      const store = ctx.get(ImageJobsStore);
      expect(await store.recordPending(id, ['late.webp'])).toBe(false);
      await ctx.get(ImagesService).remove(owner, listing.id, id);
      expect(await store.recordPending(id, ['late.webp'])).toBe(false);
    });
  });

  describe('the dispatcher', () => {
    const queue = () => ctx.get<Queue>(getQueueToken(IMAGE_QUEUE) as never);

    it('hands a due image over once; a job that vanished is handed over again after the lease', async () => {
      const id = await imageOf(`${server.base}/photo.jpg`);
      await ctx.get(ImageDispatcher).dispatch();
      const job = await queue().getJob(id);
      expect(job?.data).toEqual({ imageId: id });
      expect((await row(id)).queued_at).not.toBeNull();

      // Gone from Redis (flushed, lost): within the lease nothing happens, then it comes back.
      await job!.remove();
      await ctx.get(ImageDispatcher).dispatch();
      const deadline = Date.now() + 10_000;
      while (!(await queue().getJob(id))) {
        if (Date.now() > deadline) throw new Error('the image was not handed over again');
        await ctx.get(ImageDispatcher).dispatch();
      }
      expect(await queue().getJob(id)).not.toBeNull();
    });

    it('claims each due image once, however many workers claim at the same moment', async () => {
      const ids = (
        await newListing(Array.from({ length: 12 }, (_, i) => `${server.base}/n${i}.jpg`))
      ).images.map((i) => i.id);
      const store = ctx.get(ImageJobsStore);
      const claims = await Promise.all(
        Array.from({ length: 4 }, () => store.claimDue(1000, false, 60_000)),
      );
      const ours = claims.map((claim) =>
        claim.map((image) => image.id).filter((id) => ids.includes(id)),
      );
      expect(ours.flat().sort()).toEqual([...ids].sort());
    });

    it('paces the backfill: fresh images first, then at most IMAGE_BACKFILL_BATCH per run', async () => {
      const old = (
        await newListing(['a', 'b', 'c', 'd', 'e'].map((n) => `${server.base}/${n}.jpg`))
      ).images.map((i) => i.id);
      await ctx.dataSource.query('UPDATE listing_images SET backfill = true WHERE id = ANY($1)', [
        old,
      ]);
      const fresh = await imageOf(`${server.base}/photo.jpg`);
      const queued = async () =>
        (
          await ctx.dataSource.query(
            'SELECT id FROM listing_images WHERE id = ANY($1) AND queued_at IS NOT NULL',
            [[...old, fresh]],
          )
        ).map((r: { id: string }) => r.id);
      await ctx.get(ImageDispatcher).dispatch();
      const first = await queued();
      expect(first).toContain(fresh);
      expect(first.filter((id: string) => old.includes(id))).toHaveLength(2);
      await ctx.get(ImageDispatcher).dispatch();
      expect((await queued()).filter((id: string) => old.includes(id))).toHaveLength(4);
    });
  });
});

describe('Image processing with the address rule on', () => {
  const server = new ImageServer();
  let ctx: IntegrationContext;

  beforeAll(async () => {
    await server.start();
    ctx = await createIntegrationContext(
      { imports: [ImagesModule, ImagesWorkerModule] },
      { FETCH_ALLOW_PRIVATE_TARGETS: 'false', IMAGE_CONCURRENCY: '0' },
    );
  });
  afterAll(async () => {
    await ctx.close();
    await server.stop();
  });

  it.each(['127.0.0.1', 'localhost', '169.254.169.254'])(
    'refuses %s: failed with blocked_address, never retried, nothing fetched',
    async (host) => {
      const owner = await ctx.newOwner();
      const url = `http://${host}:${new URL(server.base).port}/photo.jpg`;
      const listing = await ctx.dataSource.transaction((em) =>
        ctx.get(ListingsService).create(
          em,
          owner,
          aListing()
            .with({ images: [{ url }] })
            .build() as unknown as CreateListingDto,
        ),
      );
      const id = listing.images[0].id;
      await ctx.get(ImageJobProcessor).process(id);
      const [image] = await ctx.dataSource.query(
        'SELECT status, error_reason, attempts FROM listing_images WHERE id = $1',
        [id],
      );
      expect(image).toEqual({ status: 'failed', error_reason: 'blocked_address', attempts: 1 });
      expect(server.hits.get('/photo.jpg')).toBeUndefined();
    },
  );
});
