import { BulkModule } from '../../src/bulk/bulk.module';
import { BulkService } from '../../src/bulk/bulk.service';
import type { BulkCreateDto } from '../../src/bulk/dto/bulk-create.dto';
import type { BulkItemResult } from '../../src/bulk/dto/bulk-item-result.response';
import type { OwnerScope } from '../../src/auth/scope';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

/** Bulk result assembly: per-item outcomes in input order, counts, and what a refusal leaves behind. */
describe('BulkService results', () => {
  let ctx: IntegrationContext;
  let bulk: BulkService;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [BulkModule] });
    bulk = ctx.get(BulkService);
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx.close());

  /** Bulk create without an Idempotency-Key, which always answers. */
  const createAll = async (dto: BulkCreateDto) => (await bulk.create(owner, dto)).data!;
  /** 'ok', or the refusal's code and the field it names */
  const outcomes = (results: BulkItemResult[]) =>
    results.map((r) =>
      r.success
        ? 'ok'
        : `${r.error!.code}:${r.error!.details?.map((d) => d.field).join(',') ?? ''}`,
    );
  const rowsOf = (ids: string[]) =>
    ctx.dataSource.query(
      `SELECT id, status, price FROM listings WHERE id = ANY($1) ORDER BY price`,
      [ids],
    );

  it('create: results in input order, refusals by index; a repeated externalId loses to its first use', async () => {
    const data = await createAll({
      items: [
        aListing().withExternalId('b-1').with({ price: 1 }).build(),
        aListing().with({ title: '' }).build(),
        aListing().withExternalId('b-1').with({ price: 3 }).build(),
        aListing().with({ price: 4 }).build(),
      ],
    });
    expect(data).toMatchObject({ total: 4, created: 2, failed: 2 });
    expect(data.results.map((r) => r.index)).toEqual([0, 1, 2, 3]);
    expect(outcomes(data.results)).toEqual([
      'ok',
      'VALIDATION_ERROR:title',
      'VALIDATION_ERROR:externalId',
      'ok',
    ]);
    const ids = data.results.filter((r) => r.success).map((r) => r.data!.id);
    expect((await rowsOf(ids)).map((r: { price: number }) => r.price)).toEqual([1, 4]);
  });

  it('create: an externalId already held by a stored listing refuses only that item', async () => {
    await createAll({ items: [aListing().withExternalId('held').build()] });
    const data = await createAll({
      items: [aListing().with({ price: 10 }).build(), aListing().withExternalId('held').build()],
    });
    expect(outcomes(data.results)).toEqual(['ok', 'VALIDATION_ERROR:externalId']);
  });

  it('sold: a refused item is rolled back alone and keeps its place in the results', async () => {
    const created = await createAll({
      items: [aListing().with({ price: 21 }).build(), aListing().with({ price: 22 }).build()],
    });
    const [a, b] = created.results.map((r) => r.data!.id);
    await bulk.markSold(owner, { ids: [a] });
    const sold = await bulk.markSold(owner, {
      ids: [b, a, '00000000-0000-4000-8000-000000000000', 'not-a-uuid'],
    });
    expect(sold).toMatchObject({ total: 4, sold: 1, failed: 3 });
    expect(outcomes(sold.results)).toEqual([
      'ok',
      'VALIDATION_ERROR:status',
      'NOT_FOUND:',
      'NOT_FOUND:',
    ]);
    expect((await rowsOf([a, b])).map((r: { status: string }) => r.status)).toEqual([
      'SOLD',
      'SOLD',
    ]);
    const soldEvents = await ctx.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE event = 'listing.sold' AND data->>'id' = ANY($1)`,
      [[a, b]],
    );
    expect(soldEvents[0].n).toBe(2);
  });

  it('update: items name a listing by id or externalId, exactly one of them', async () => {
    const created = await createAll({
      items: [aListing().withExternalId('u-1').with({ price: 31 }).build()],
    });
    const id = created.results[0].data!.id;
    const { results } = await bulk.update(owner, {
      items: [
        { id, price: 32 },
        { externalId: 'u-1', price: 33 },
        { id, externalId: 'u-1', price: 34 },
        { price: 35 },
      ],
    });
    expect(outcomes(results)).toEqual(['ok', 'ok', 'VALIDATION_ERROR:id', 'VALIDATION_ERROR:id']);
    expect((await rowsOf([id]))[0].price).toBe(33);
  });
});
