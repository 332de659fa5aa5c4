import type { OwnerScope } from '../../src/auth/scope';
import { ValidationError } from '../../src/common/errors/domain-error';
import { ImagesModule } from '../../src/images/images.module';
import { ImagesService } from '../../src/images/images.service';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { ListingsService } from '../../src/listings/listings.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

/** Gallery edits: the permutation check of a reorder, and positions kept 0..n-1 by every edit. */
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
});
