import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

/** Every change writes exactly one outbox row in its own transaction; refused changes write none. */
describe('Listing events in the outbox', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const outboxFor = async (id: string) =>
    (await t.dataSource.query(
      `SELECT account_id, event, data FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq`,
      [id],
    )) as {
      account_id: string;
      event: string;
      data: Record<string, unknown>;
    }[];

  it('listing.created carries id, externalId, livemode, status and updatedAt', async () => {
    const l = (
      await as(t, seller.testKey)
        .post('/v1/listings')
        .send(aListing().withExternalId('ev-1').build())
        .expect(201)
    ).body.data;
    expect(await outboxFor(l.id)).toEqual([
      {
        account_id: seller.id,
        event: 'listing.created',
        data: {
          id: l.id,
          externalId: 'ev-1',
          livemode: false,
          status: 'DRAFT',
          updatedAt: l.updatedAt,
        },
      },
    ]);
  });

  it('listing.updated lists the changed fields, once per change; a no-op writes nothing', async () => {
    const l = (
      await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    const patched = (
      await as(t, seller.liveKey)
        .patch(`/v1/listings/${l.id}`)
        .send({ price: 1, title: 'A new title here', description: l.description })
        .expect(200)
    ).body.data;
    await as(t, seller.liveKey).patch(`/v1/listings/${l.id}`).send({ price: 1 }).expect(200);
    const events = await outboxFor(l.id);
    expect(events.map((e) => e.event)).toEqual(['listing.created', 'listing.updated']);
    expect(events[1].data).toEqual({
      id: l.id,
      externalId: null,
      livemode: true,
      status: 'ACTIVE',
      updatedAt: patched.updatedAt,
      changedFields: ['title', 'price'],
    });
  });

  it('a refused change writes no event and changes no row', async () => {
    const l = (
      await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    await as(t, seller.liveKey)
      .patch(`/v1/listings/${l.id}`)
      .send({ price: 5, locationKommun: 'malmo' })
      .expect(400);
    await as(t, seller.liveKey).post(`/v1/listings/${l.id}/renew`).expect(200);
    await as(t, seller.liveKey).post(`/v1/listings/${l.id}/sold`).expect(200);
    await as(t, seller.liveKey).post(`/v1/listings/${l.id}/sold`).expect(400);
    await as(t, seller.liveKey).post(`/v1/listings/${l.id}/renew`).expect(400);
    expect((await outboxFor(l.id)).map((e) => e.event)).toEqual([
      'listing.created',
      'listing.updated',
      'listing.sold',
    ]);
    expect((await as(t, seller.liveKey).get(`/v1/listings/${l.id}`)).body.data.price).toBe(l.price);
  });
});
