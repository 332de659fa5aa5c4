import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { OwnerScope } from '../../src/auth/scope';
import { ImagesModule } from '../../src/images/images.module';
import { ImagesService } from '../../src/images/images.service';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { GalleryStore } from '../../src/listings/gallery/gallery.store';
import { IMAGE_PRIORITY } from '../../src/listings/gallery/image-priority';
import { ListingsService } from '../../src/listings/listings.service';
import { inBatches } from '../../src/platform/scheduling/in-batches';
import { ImageFileCleanup } from '../../src/storage/image-file-cleanup';
import { STORAGE_DRIVER, StorageDriver } from '../../src/storage/storage-driver';
import { StorageDeletionsStore } from '../../src/storage/storage-deletions.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

/**
 * Deletes of dropped images' files are requested in `storage_deletions` within the dropping
 * transaction, settled after its commit, and finished by the sweep when that did not happen.
 */
describe('Storage deletions', () => {
  let ctx: IntegrationContext;
  let owner: OwnerScope;
  let storage: StorageDriver;
  let cleanup: ImageFileCleanup;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ImagesModule] });
    owner = await ctx.newOwner();
    storage = ctx.get<StorageDriver>(STORAGE_DRIVER as never);
    cleanup = ctx.get(ImageFileCleanup);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await ctx.close();
  });

  const stored = (key: string) => existsSync(join(ctx.storageDir, key));
  const requested = async (keys: string[]) =>
    (
      await ctx.dataSource.query(
        'SELECT key FROM storage_deletions WHERE key = ANY($1) ORDER BY key',
        [keys],
      )
    ).map((row: { key: string }) => row.key);
  /** The grace period of these requests has passed. */
  const backdate = (keys: string[]) =>
    ctx.dataSource.query(
      `UPDATE storage_deletions SET requested_at = now() - interval '2 minutes' WHERE key = ANY($1)`,
      [keys],
    );
  /** A listing showing one upload, stored under a key of its own. */
  const withUpload = async () => {
    const key = `${randomUUID()}.webp`;
    await storage.put(key, Buffer.from('webp'), 'image/webp');
    const listing = await ctx.dataSource.transaction((em) =>
      ctx
        .get(ListingsService)
        .create(em, owner, aListing().withImages(0).build() as unknown as CreateListingDto),
    );
    const image = await ctx.dataSource.transaction((em) =>
      ctx
        .get(GalleryStore)
        .insertAt(
          em,
          listing.id,
          { url: storage.publicUrl(key), storageKey: key },
          0,
          IMAGE_PRIORITY.request,
        ),
    );
    return { listingId: listing.id, imageId: image.id, key };
  };
  /** Batches until one comes back short, as the worker's sweep runs them (without its rests). */
  const sweep = () =>
    inBatches(
      (n) => cleanup.sweepBatch(n),
      undefined,
      100,
      async () => undefined,
    );

  /** The requests `em`'s transaction sees (its own uncommitted ones too). */
  const requestedIn = async (em: EntityManager, key: string) =>
    (await em.query('SELECT key FROM storage_deletions WHERE key = $1', [key])).length;

  it('a drop requests the delete in its transaction; after the commit the file and the request are gone', async () => {
    const { listingId, key } = await withUpload();
    await ctx.dataSource.transaction(async (em) => {
      await ctx
        .get(ListingsService)
        .update(em, owner, listingId, { images: [] }, IMAGE_PRIORITY.request);
      expect(await requestedIn(em, key)).toBe(1);
      // Not committed: seen by no one else, so no sweep takes it.
      expect(await requested([key])).toEqual([]);
    });
    expect(stored(key)).toBe(false);
    expect(await requested([key])).toEqual([]);
  });

  it('a delete that fails after the commit leaves its request and the file; the sweep finishes it after the grace period', async () => {
    const { listingId, imageId, key } = await withUpload();
    jest.spyOn(storage, 'delete').mockRejectedValueOnce(new Error('storage unavailable'));
    await ctx.get(ImagesService).remove(owner, listingId, imageId);
    expect(stored(key)).toBe(true);
    expect(await requested([key])).toEqual([key]);

    // Within the grace period the request is left to the path that made it.
    expect(await cleanup.sweepBatch(100)).toBe(0);
    expect(stored(key)).toBe(true);

    await backdate([key]);
    expect(await sweep()).toBe(1);
    expect(stored(key)).toBe(false);
    expect(await requested([key])).toEqual([]);
  });

  it('the sweep keeps a file an image row holds, or shows by its URL, and removes its request', async () => {
    const held = await withUpload();
    const shown = await withUpload();
    // Another listing showing the upload by its URL stores no key of its own.
    const other = await ctx.dataSource.transaction((em) =>
      ctx.get(ListingsService).create(
        em,
        owner,
        aListing()
          .with({ images: [{ url: storage.publicUrl(shown.key) }] })
          .build() as unknown as CreateListingDto,
      ),
    );
    expect(other.images).toHaveLength(1);
    await ctx.dataSource.query('DELETE FROM listing_images WHERE id = $1', [shown.imageId]);
    const loose = `${randomUUID()}.webp`;
    await storage.put(loose, Buffer.from('webp'), 'image/webp');
    const keys = [held.key, shown.key, loose];
    await ctx.dataSource.query('INSERT INTO storage_deletions (key) SELECT unnest($1::text[])', [
      keys,
    ]);
    await backdate(keys);

    expect(await sweep()).toBe(3);
    expect([stored(held.key), stored(shown.key), stored(loose)]).toEqual([true, true, false]);
    expect(await requested(keys)).toEqual([]);
  });

  it('a file not deleted by the sweep keeps its request for the next one', async () => {
    const keys = [`${randomUUID()}.webp`, `${randomUUID()}.webp`].sort();
    await Promise.all(keys.map((key) => storage.put(key, Buffer.from('webp'), 'image/webp')));
    await ctx.dataSource.query('INSERT INTO storage_deletions (key) SELECT unnest($1::text[])', [
      keys,
    ]);
    await backdate(keys);
    const deletes = jest.spyOn(storage, 'delete');
    deletes.mockImplementation(async (key) => {
      if (key === keys[0]) throw new Error('permission denied');
    });
    expect(await sweep()).toBe(1);
    expect(await requested(keys)).toEqual([keys[0]]);
    // Claimed, so it waits for another grace period.
    deletes.mockRestore();
    expect(await cleanup.sweepBatch(100)).toBe(0);
    await backdate(keys);
    expect(await sweep()).toBe(1);
    expect(stored(keys[0])).toBe(false);
    expect(await requested(keys)).toEqual([]);
  });

  it('a rolled-back drop leaves no request and deletes nothing', async () => {
    const { listingId, key } = await withUpload();
    const deletes = jest.spyOn(storage, 'delete');
    await expect(
      ctx.dataSource.transaction(async (em) => {
        await ctx
          .get(ListingsService)
          .update(em, owner, listingId, { images: [] }, IMAGE_PRIORITY.request);
        expect(await requestedIn(em, key)).toBe(1);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await requested([key])).toEqual([]);
    expect(deletes).not.toHaveBeenCalled();
    expect(stored(key)).toBe(true);
  });

  it('sweeps running at once claim apart', async () => {
    const keys = Array.from({ length: 20 }, () => `${randomUUID()}.webp`);
    await ctx.dataSource.query('INSERT INTO storage_deletions (key) SELECT unnest($1::text[])', [
      keys,
    ]);
    await backdate(keys);
    const store = ctx.get(StorageDeletionsStore);
    const claims = await Promise.all(Array.from({ length: 4 }, () => store.claimDue(60_000, 1000)));
    const ours = claims.flat().filter((key) => keys.includes(key));
    expect(ours.sort()).toEqual([...keys].sort());
  });
});
