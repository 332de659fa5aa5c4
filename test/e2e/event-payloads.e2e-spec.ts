import { EVENT_NAMES, payloadProblems } from '../../src/events/event-types';
import { ExpiryService } from '../../src/listings/expiry/expiry.service';
import { admin, anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Events are built in TypeScript (checked by the compiler against EventPayloads) and in SQL (the
 * create statement, the expiry sweep), which no compiler sees. Every path that writes an event
 * runs here, and every outbox row it wrote must match EVENT_FIELDS exactly: the same keys, each
 * value of its kind.
 */
describe('Event payloads: every writer against the one description', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const live = () => as(t, seller.liveKey);
  const create = async (body = aListing().build()) =>
    (await live().post('/v1/listings').send(body).expect(201)).body.data;

  it('every event of every writing path matches its description', async () => {
    // POST, with a gallery; PATCH; renew; sold
    const posted = await create(aListing().withExternalId('pay-1').withImages(2).build());
    await live().patch(`/v1/listings/${posted.id}`).send({ price: 1234 }).expect(200);
    await live().post(`/v1/listings/${posted.id}/renew`).expect(200);

    // image add, reorder, delete
    const [first, second] = posted.images;
    const added = (
      await live()
        .post(`/v1/listings/${posted.id}/images`)
        .send({ url: 'https://img.example.com/added.jpg' })
        .expect(201)
    ).body.data;
    await live()
      .patch(`/v1/listings/${posted.id}/images/reorder`)
      .send({ imageIds: [added.id, second.id, first.id] })
      .expect(200);
    await live().delete(`/v1/listings/${posted.id}/images/${first.id}`).expect(200);
    await live().post(`/v1/listings/${posted.id}/sold`).expect(200);

    // PUT create, then PUT update
    const put = aListing().withExternalId('pay-put').build();
    await live().put('/v1/listings/by-external-id/pay-put').send(put).expect(201);
    await live()
      .put('/v1/listings/by-external-id/pay-put')
      .send({ ...put, price: 4321 })
      .expect(200);

    // bulk create, update, sold
    const bulk = (
      await live()
        .post('/v1/listings/bulk')
        .send({ items: [aListing().build(), aListing().withExternalId('pay-bulk').build()] })
        .expect(200)
    ).body.data;
    const [b1, b2] = bulk.results.map((r: { data: { id: string } }) => r.data.id);
    await live()
      .patch('/v1/listings/bulk')
      .send({
        items: [
          { id: b1, price: 99 },
          { externalId: 'pay-bulk', title: 'Ny titel här' },
        ],
      })
      .expect(200);
    await live()
      .post('/v1/listings/bulk/sold')
      .send({ ids: [b1] })
      .expect(200);

    // the expiry sweep
    const expiring = await create();
    await t.dataSource.query(
      `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expiring.id],
    );
    await t.app.get(ExpiryService).sweep();

    // admin: remove, message, favourite
    await admin(t).post(`/v1/admin/listings/${b2}/remove`).send({ reason: 'Dubblett' }).expect(200);
    const other = await create();
    await admin(t).post(`/v1/admin/listings/${other.id}/messages`).send({}).expect(201);
    await admin(t)
      .post(`/v1/admin/listings/${other.id}/messages`)
      .send({ messageId: 'm-1', preview: 'Finns den kvar?' })
      .expect(201);
    await admin(t).post(`/v1/admin/listings/${other.id}/favorites`).send({}).expect(201);
    await admin(t)
      .post(`/v1/admin/listings/${other.id}/favorites`)
      .send({ userRef: 'u-7' })
      .expect(201);

    const rows: { event: string; data: Record<string, unknown> }[] = await t.dataSource.query(
      'SELECT event, data FROM outbox_events WHERE account_id = $1 ORDER BY seq',
      [seller.id],
    );
    expect(rows.flatMap((row) => payloadProblems(row.event, row.data))).toEqual([]);
    expect([...new Set(rows.map((row) => row.event))].sort()).toEqual([...EVENT_NAMES].sort());
    // Each path above wrote its event (the image edits and the PUT update one listing.updated each).
    const count = (event: string) => rows.filter((row) => row.event === event).length;
    expect(count('listing.created')).toBe(6);
    expect(count('listing.updated')).toBe(8);
    expect(count('listing.sold')).toBe(2);
  });
});
