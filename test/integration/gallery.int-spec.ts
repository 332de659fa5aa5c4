import type { OwnerScope } from '../../src/auth/scope';
import { ValidationError } from '../../src/common/errors/domain-error';
import { ImagesModule } from '../../src/images/images.module';
import { ImagesService } from '../../src/images/images.service';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { GalleryStore } from '../../src/listings/gallery/gallery.store';
import { IMAGE_PRIORITY } from '../../src/listings/gallery/image-priority';
import { ListingsService } from '../../src/listings/listings.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

/**
 * Gallery edits: the permutation check of a reorder, positions kept 0..n-1 by every edit, and a
 * replaced gallery keeping the rows of the URLs it still lists.
 */
/** A new image's processing state, as every image here has it (no pipeline runs). */
const pending = { status: 'pending', width: null, height: null, variants: null, error: null };

describe('ImagesService gallery edits', () => {
  let ctx: IntegrationContext;
  let images: ImagesService;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ImagesModule] });
    images = ctx.get(ImagesService);
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx.close());

  const withImages = (count: number) =>
    ctx.dataSource.transaction((em) =>
      ctx
        .get(ListingsService)
        .create(em, owner, aListing().withImages(count).build() as unknown as CreateListingDto),
    );
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).details![0];
      },
    );
  const positions = async (listingId: string) =>
    (
      await ctx.dataSource.query(
        'SELECT id, position FROM listing_images WHERE listing_id = $1 ORDER BY position',
        [listingId],
      )
    ).map((row: { id: string; position: number }) => [row.id, row.position]);
  const updates = async (listingId: string) =>
    (
      await ctx.dataSource.query(
        `SELECT count(*)::int AS n FROM outbox_events WHERE event = 'listing.updated' AND data->>'id' = $1`,
        [listingId],
      )
    )[0].n;

  it('a reorder must name every image once: duplicates, foreign ids and missing ones are each named', async () => {
    const l = await withImages(3);
    const [a, b, c] = l.images.map((i) => i.id);
    const foreign = (await withImages(1)).images[0].id;
    expect(await refusalOf(images.reorder(owner, l.id, [a, a, b, foreign]))).toEqual({
      field: 'imageIds',
      message: `imageIds must list every image of the listing exactly once (duplicated: ${a}; not images of this listing: ${foreign}; missing: ${c}).`,
    });
    expect(await refusalOf(images.reorder(owner, l.id, [a, b]))).toMatchObject({
      field: 'imageIds',
      message: expect.stringContaining(`(missing: ${c})`),
    });
    // Refused: nothing moved, nothing emitted.
    expect(await positions(l.id)).toEqual([
      [a, 0],
      [b, 1],
      [c, 2],
    ]);
    expect(await updates(l.id)).toBe(0);
  });

  it('the same order changes nothing; a new one is stored 0..n-1 with one event', async () => {
    const l = await withImages(3);
    const [a, b, c] = l.images.map((i) => i.id);
    await images.reorder(owner, l.id, [a, b, c]);
    expect(await updates(l.id)).toBe(0);
    const gallery = await images.reorder(owner, l.id, [c, a, b]);
    expect(gallery.images.map((i) => [i.id, i.order])).toEqual([
      [c, 0],
      [a, 1],
      [b, 2],
    ]);
    expect(await positions(l.id)).toEqual([
      [c, 0],
      [a, 1],
      [b, 2],
    ]);
    expect(await updates(l.id)).toBe(1);
  });

  it('adding at a requested order and removing one keep positions contiguous', async () => {
    const l = await withImages(2);
    const [a, b] = l.images.map((i) => i.id);
    const added = await images.add(
      owner,
      l.id,
      { kind: 'url', url: 'https://img.example.com/new.jpg' },
      0, // on a tie the image already there stays first
    );
    expect(await positions(l.id)).toEqual([
      [a, 0],
      [added.id, 1],
      [b, 2],
    ]);
    const gallery = await images.remove(owner, l.id, a);
    expect(gallery.images.map((i) => [i.id, i.order])).toEqual([
      [added.id, 0],
      [b, 1],
    ]);
    expect(await updates(l.id)).toBe(2);
  });

  describe('replacing the gallery', () => {
    const url = (name: string) => `https://img.example.com/${name}.jpg`;
    const rows = async (listingId: string) =>
      (await ctx.dataSource.query(
        `SELECT id, url, storage_key, position, created_at FROM listing_images
         WHERE listing_id = $1 ORDER BY position`,
        [listingId],
      )) as { id: string; url: string; storage_key: string | null; position: number }[];
    const rendered = async (listingId: string) =>
      JSON.parse(
        (await ctx.dataSource.query('SELECT rendered FROM listings WHERE id = $1', [listingId]))[0]
          .rendered,
      ).images;
    const replace = (listingId: string, urls: string[]) =>
      ctx.dataSource.transaction((em) =>
        ctx.get(GalleryStore).replace(
          em,
          listingId,
          urls.map((u) => ({ url: u })),
          IMAGE_PRIORITY.request,
        ),
      );
    /** A listing whose gallery is a (an upload, with a storage key) then b (by URL). */
    const withUploadThenUrl = async () => {
      const l = await withImages(0);
      await ctx.dataSource.transaction(async (em) => {
        const store = ctx.get(GalleryStore);
        await store.insertAt(
          em,
          l.id,
          { url: url('a'), storageKey: 'uploads/a.jpg' },
          0,
          IMAGE_PRIORITY.request,
        );
        await store.insertAt(
          em,
          l.id,
          { url: url('b'), storageKey: null },
          1,
          IMAGE_PRIORITY.request,
        );
      });
      return { id: l.id, before: await rows(l.id) };
    };

    it('[a, b] → [b, a, c] keeps a and b (every column but the position), adds c, renders the new order', async () => {
      const { id, before } = await withUploadThenUrl();
      const [a, b] = before;
      const updated = await ctx.dataSource.transaction((em) =>
        ctx
          .get(ListingsService)
          .update(
            em,
            owner,
            id,
            { images: [{ url: url('b') }, { url: url('a') }, { url: url('c') }] },
            IMAGE_PRIORITY.request,
          ),
      );
      const after = await rows(id);
      expect(after.map((r) => [r.id, r.position])).toEqual([
        [b.id, 0],
        [a.id, 1],
        [expect.any(String), 2],
      ]);
      expect(after[0]).toEqual({ ...b, position: 0 });
      expect(after[1]).toEqual({ ...a, position: 1 });
      expect(after[2]).toMatchObject({ url: url('c'), storage_key: null });
      expect([a.id, b.id]).not.toContain(after[2].id);
      const gallery = after.map((r) => ({ id: r.id, url: r.url, order: r.position, ...pending }));
      expect(updated.images).toEqual(gallery);
      expect(await rendered(id)).toEqual(gallery);
      expect(await updates(id)).toBe(1);
    });

    it('dropping an upload returns its key; a kept one or the same list again returns none and keeps every id', async () => {
      const { id, before } = await withUploadThenUrl();
      const [a, b] = before;
      expect(await replace(id, [url('b'), url('a')])).toEqual({
        gallery: [
          { id: b.id, url: url('b'), order: 0, ...pending },
          { id: a.id, url: url('a'), order: 1, ...pending },
        ],
        droppedKeys: [],
      });
      const same = await replace(id, [url('b'), url('a')]);
      expect(same.gallery.map((i) => i.id)).toEqual([b.id, a.id]);
      expect(same.droppedKeys).toEqual([]);
      expect(await replace(id, [url('b')])).toEqual({
        gallery: [{ id: b.id, url: url('b'), order: 0, ...pending }],
        droppedKeys: ['uploads/a.jpg'],
      });
      expect(await rendered(id)).toEqual([{ id: b.id, url: url('b'), order: 0, ...pending }]);
      expect(await replace(id, [])).toEqual({ gallery: [], droppedKeys: [] });
      expect(await rows(id)).toEqual([]);
      expect(await rendered(id)).toEqual([]);
    });

    it('dropping or deleting an image returns its renditions and those a processing run named but never finished', async () => {
      const { id, before } = await withUploadThenUrl();
      const [a, b] = before;
      const withKeys = (image: string, keys: { done?: string[]; named: string[] }) =>
        ctx.dataSource.query(
          'UPDATE listing_images SET rendition_keys = $2, pending_rendition_keys = $3 WHERE id = $1',
          [image, keys.done ?? null, keys.named],
        );
      await withKeys(a.id, { done: ['a-1-thumb.webp'], named: ['a-2-thumb.webp'] });
      await withKeys(b.id, { named: ['b-1-thumb.webp'] });
      const dropped = await replace(id, [url('b')]);
      expect(dropped.droppedKeys).toEqual(['a-1-thumb.webp', 'a-2-thumb.webp', 'uploads/a.jpg']);
      const deleted = await ctx.dataSource.transaction((em) =>
        ctx.get(GalleryStore).delete(em, id, dropped.gallery[0]),
      );
      expect(deleted).toEqual(['b-1-thumb.webp']);
    });

    it('a URL listed twice: its first place keeps the old row, a further place is a new row with the same file', async () => {
      const { id, before } = await withUploadThenUrl();
      const [a, b] = before;
      const twice = await replace(id, [url('a'), url('b'), url('a')]);
      expect(twice.droppedKeys).toEqual([]);
      const [, , again] = await rows(id);
      expect(twice.gallery).toEqual([
        { id: a.id, url: url('a'), order: 0, ...pending },
        { id: b.id, url: url('b'), order: 1, ...pending },
        { id: again.id, url: url('a'), order: 2, ...pending },
      ]);
      expect(again.id).not.toBe(a.id);
      expect(again.storage_key).toBe('uploads/a.jpg');
      expect(await rendered(id)).toEqual(twice.gallery);
      // The k-th place pairs with the k-th row: moving one `a` first keeps both a-rows in order.
      const moved = await replace(id, [url('a'), url('a'), url('b')]);
      expect(moved.gallery.map((i) => i.id)).toEqual([a.id, again.id, b.id]);
      // One `a` left: the file is still shown, so no key is returned; the later row goes.
      const once = await replace(id, [url('b'), url('a')]);
      expect(once).toEqual({
        gallery: [
          { id: b.id, url: url('b'), order: 0, ...pending },
          { id: a.id, url: url('a'), order: 1, ...pending },
        ],
        droppedKeys: [],
      });
    });
  });
});
