import { ValidationError } from '../../src/common/errors/domain-error';
import type { OwnerScope } from '../../src/auth/scope';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import type { UpdateListingDto } from '../../src/listings/dto/update-listing.dto';
import { IMAGE_PRIORITY } from '../../src/listings/gallery/image-priority';
import { ListingsModule } from '../../src/listings/listings.module';
import { ListingsService } from '../../src/listings/listings.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

/** PATCH merging: what a partial body does to the stored listing, its updatedAt and its events. */
describe('ListingsService.update (PATCH merging)', () => {
  let ctx: IntegrationContext;
  let listings: ListingsService;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ListingsModule] });
    listings = ctx.get(ListingsService);
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx.close());

  const create = (fields: Record<string, unknown> = {}) =>
    ctx.dataSource.transaction((em) =>
      listings.create(em, owner, aListing().with(fields).build() as unknown as CreateListingDto),
    );
  const patch = (id: string, dto: Record<string, unknown>) =>
    ctx.dataSource.transaction((em) =>
      listings.update(em, owner, id, dto as unknown as UpdateListingDto, IMAGE_PRIORITY.request),
    );
  const eventsOf = async (id: string) =>
    (
      await ctx.dataSource.query(
        `SELECT event, data FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq`,
        [id],
      )
    ).map((row: { event: string; data: { changedFields?: string[] } }) => [
      row.event,
      row.data.changedFields,
    ]);

  it('changes only the fields sent; null clears an optional field', async () => {
    const before = await create({ phone: '+46701234567', externalId: 'int-patch-1' });
    const after = await patch(before.id, { price: 1, phone: null });
    expect(after).toMatchObject({
      price: 1,
      phone: null,
      title: before.title,
      description: before.description,
      external_id: 'int-patch-1',
    });
    expect(after.attributes).toEqual(before.attributes);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(await eventsOf(before.id)).toEqual([
      ['listing.created', undefined],
      ['listing.updated', ['price', 'phone']],
    ]);
  });

  it('a body that changes nothing returns the row as it was and writes no event', async () => {
    const before = await create();
    const after = await patch(before.id, { price: before.price, title: before.title });
    expect(after.updated_at).toEqual(before.updated_at);
    expect(await eventsOf(before.id)).toEqual([['listing.created', undefined]]);
  });

  it('refuses null for required fields, naming each, and validates the merged listing', async () => {
    const l = await create();
    const refusal = await patch(l.id, { title: null, price: null }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).details?.map((d) => d.field)).toEqual(['title', 'price']);
    // a kommun that is not in the listing's län is only wrong once merged
    const merged = await patch(l.id, { locationKommun: 'malmo' }).catch((e: unknown) => e);
    expect(merged).toBeInstanceOf(ValidationError);
    expect(await eventsOf(l.id)).toEqual([['listing.created', undefined]]);
  });

  it('images: absent keeps the gallery, null clears it, a list replaces it in order', async () => {
    const l = await create({ images: [{ url: 'https://img.example.com/a.jpg' }] });
    expect((await patch(l.id, { price: 2 })).images).toEqual(l.images);
    const replaced = await patch(l.id, {
      images: [{ url: 'https://img.example.com/b.jpg' }, { url: 'https://img.example.com/a.jpg' }],
    });
    expect(replaced.images.map((i) => [i.url, i.order])).toEqual([
      ['https://img.example.com/b.jpg', 0],
      ['https://img.example.com/a.jpg', 1],
    ]);
    // an explicit order wins over the position in the list
    const reordered = await patch(l.id, {
      images: [
        { url: 'https://img.example.com/b.jpg', order: 1 },
        { url: 'https://img.example.com/a.jpg', order: 0 },
      ],
    });
    expect(reordered.images.map((i) => [i.url, i.order])).toEqual([
      ['https://img.example.com/a.jpg', 0],
      ['https://img.example.com/b.jpg', 1],
    ]);
    expect((await patch(l.id, { images: null })).images).toEqual([]);
  });
});
