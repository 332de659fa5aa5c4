import { ExpiryService } from '../../src/listings/expiry/expiry.service';
import { anAccount, admin, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually, expectSignedWebhook, WebhookReceiver } from '../support/webhook-receiver';
import { FAST_RETRIES, registerEndpoint } from '../support/webhooks';

describe('Webhooks for listing changes made through the API', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let seller: TestAccount;
  let secret: string;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([
      createTestApp({ env: FAST_RETRIES }),
      WebhookReceiver.start(),
    ]);
    seller = await anAccount(t).build();
    secret = (await registerEndpoint(t, seller.liveKey, receiver, '/all')).secret;
  });
  afterAll(() => Promise.all([t.close(), receiver.close()]));

  const deliveriesFor = (id: string) => receiver.at('/all').filter((r) => r.body.data.id === id);
  const waitForEvent = async (id: string, event: string) => {
    await eventually(
      () => deliveriesFor(id).some((r) => r.body.event === event),
      15_000,
      () => `no ${event} for ${id}`,
    );
    const request = deliveriesFor(id).find((r) => r.body.event === event)!;
    expectSignedWebhook(request, secret);
    return request.body.data;
  };

  it('delivers created, updated, sold, each signed and with its data', async () => {
    const l = (
      await as(t, seller.liveKey)
        .post('/v1/listings')
        .send(aListing().withExternalId('wh-1').build())
        .expect(201)
    ).body.data;
    expect(await waitForEvent(l.id, 'listing.created')).toEqual({
      id: l.id,
      externalId: 'wh-1',
      livemode: true,
      status: 'ACTIVE',
      updatedAt: l.updatedAt,
    });
    const patched = (
      await as(t, seller.liveKey).patch(`/v1/listings/${l.id}`).send({ price: 1000 }).expect(200)
    ).body.data;
    expect(await waitForEvent(l.id, 'listing.updated')).toEqual({
      id: l.id,
      externalId: 'wh-1',
      livemode: true,
      status: 'ACTIVE',
      updatedAt: patched.updatedAt,
      changedFields: ['price'],
    });
    const sold = (await as(t, seller.liveKey).post(`/v1/listings/${l.id}/sold`).expect(200)).body
      .data;
    expect(await waitForEvent(l.id, 'listing.sold')).toEqual({
      id: l.id,
      externalId: 'wh-1',
      livemode: true,
      soldAt: sold.soldAt,
    });
  });

  it('delivers expired, removed, message.received and listing.favorited', async () => {
    const expiring = (
      await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    await t.dataSource.query(
      `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expiring.id],
    );
    await t.app.get(ExpiryService).sweep();
    expect(await waitForEvent(expiring.id, 'listing.expired')).toMatchObject({
      id: expiring.id,
      expiredAt: expect.any(String),
    });

    const other = (
      await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    await admin(t)
      .post(`/v1/admin/listings/${other.id}/messages`)
      .send({ messageId: 'msg-1' })
      .expect(201);
    expect(await waitForEvent(other.id, 'message.received')).toMatchObject({
      messageId: 'msg-1',
      receivedAt: expect.any(String),
    });
    await admin(t).post(`/v1/admin/listings/${other.id}/favorites`).send({}).expect(201);
    expect(await waitForEvent(other.id, 'listing.favorited')).toMatchObject({
      favoritedAt: expect.any(String),
    });
    await admin(t)
      .post(`/v1/admin/listings/${other.id}/remove`)
      .send({ reason: 'Dubblett' })
      .expect(200);
    expect(await waitForEvent(other.id, 'listing.removed')).toMatchObject({
      reason: 'Dubblett',
      removedAt: expect.any(String),
    });
  });

  it('delivers test-mode events to test-mode endpoints, marked livemode false', async () => {
    const testSecret = (await registerEndpoint(t, seller.testKey, receiver, '/test-mode')).secret;
    const draft = (
      await as(t, seller.testKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    const [request] = await receiver.waitFor('/test-mode', 1);
    expectSignedWebhook(request, testSecret);
    expect(request.body).toMatchObject({
      event: 'listing.created',
      data: { id: draft.id, livemode: false, status: 'DRAFT' },
    });
  });

  it('sends nothing for a refused change or a bulk item that failed', async () => {
    const l = (
      await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    await waitForEvent(l.id, 'listing.created');
    const before = receiver.at('/all').length;
    await as(t, seller.liveKey)
      .patch(`/v1/listings/${l.id}`)
      .send({ locationKommun: 'malmo' })
      .expect(400);
    const res = await as(t, seller.liveKey)
      .post('/v1/listings/bulk')
      .send({ items: [aListing().build(), aListing().without('price').build()] })
      .expect(200);
    const createdId = res.body.data.results[0].data.id;
    await waitForEvent(createdId, 'listing.created');
    await new Promise((r) => setTimeout(r, 500));
    expect(
      receiver
        .at('/all')
        .slice(before)
        .map((r) => [r.body.event, r.body.data.id]),
    ).toEqual([['listing.created', createdId]]);
  });
});
