import type { OwnerScope } from '../../src/auth/scope';
import { ImportsWorkerModule } from '../../src/imports/imports-worker.module';
import type { CreateListingDto } from '../../src/listings/dto/create-listing.dto';
import { ListingsService } from '../../src/listings/listings.service';
import { ListingsStore } from '../../src/listings/listings.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { aListing } from '../support/listing-builder';

const dto = (externalId: string, price: number) =>
  aListing().with({ externalId, price }).build() as unknown as CreateListingDto;

/**
 * An import's chunk (ListingsService.upsertBatch) looks its listings up, then creates those it
 * did not find. A PUT that creates one of them in between wins the unique index; the chunk then
 * updates that listing, as the losing PUT of such a race does, instead of failing the line.
 */
describe('upsertBatch racing a PUT that creates the same externalId', () => {
  let ctx: IntegrationContext;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [ImportsWorkerModule] });
    owner = await ctx.newOwner();
  });
  afterAll(async () => ctx?.close());

  it('updates the listing the PUT created after the lookup, and creates the others', async () => {
    const listings = ctx.get(ListingsService);
    const store = ctx.get(ListingsStore);
    const lookup = jest
      .spyOn(store, 'findByExternalIdsForUpdate')
      .mockImplementationOnce(async (...args) => {
        const found = await ListingsStore.prototype.findByExternalIdsForUpdate.apply(store, args);
        // The PUT commits between the chunk's lookup and its insert.
        await listings.upsertByExternalId(owner, 'race-1', dto('race-1', 100));
        return found;
      });
    try {
      const outcomes = await ctx.dataSource.transaction((em) =>
        listings.upsertBatch(em, owner, [
          { externalId: 'race-1', dto: dto('race-1', 200) },
          { externalId: 'race-2', dto: dto('race-2', 300) },
        ]),
      );
      expect(outcomes.map((o) => o.outcome)).toEqual(['updated', 'created']);
    } finally {
      lookup.mockRestore();
    }
    const rows = await ctx.dataSource.query(
      `SELECT external_id, price FROM listings WHERE account_id = $1 ORDER BY external_id`,
      [owner.accountId],
    );
    expect(rows).toEqual([
      { external_id: 'race-1', price: 200 },
      { external_id: 'race-2', price: 300 },
    ]);
    const events = await ctx.dataSource.query(
      `SELECT event FROM outbox_events WHERE account_id = $1 AND data->>'externalId' = 'race-1'
       ORDER BY seq`,
      [owner.accountId],
    );
    expect(events.map((e: { event: string }) => e.event)).toEqual([
      'listing.created',
      'listing.updated',
    ]);
  });
});
