import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { WebhookEndpointModes1763900000000 } from '../../src/platform/database/migrations/1763900000000-WebhookEndpointModes';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestDatabase, databaseUrl } from '../support/test-database';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Endpoints belong to the mode of the key that made them, as listings do. */
describe('Webhook endpoints and modes', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([createTestApp(), WebhookReceiver.start()]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), receiver.close()]);
  });

  const register = (key: string, path: string) =>
    as(t, key)
      .post('/v1/webhooks')
      .send({ url: receiver.url(path) });

  it('a test key cannot list, read, change, delete or test a live endpoint: 404, and it keeps its url', async () => {
    const account = await anAccount(t).build();
    const live = (await register(account.liveKey, '/live-owned').expect(201)).body.data;
    expect(live.livemode).toBe(true);

    const test = as(t, account.testKey);
    expect((await test.get('/v1/webhooks').expect(200)).body.data).toEqual([]);
    const redirect = { url: receiver.url('/attacker') };
    expectError(await test.patch(`/v1/webhooks/${live.id}`).send(redirect), 404, 'NOT_FOUND');
    expectError(
      await test.patch(`/v1/webhooks/${live.id}`).send({ isActive: false }),
      404,
      'NOT_FOUND',
    );
    expectError(await test.delete(`/v1/webhooks/${live.id}`), 404, 'NOT_FOUND');
    expectError(await test.post(`/v1/webhooks/${live.id}/test`), 404, 'NOT_FOUND');
    expectError(await test.get(`/v1/webhooks/${live.id}/deliveries`), 404, 'NOT_FOUND');

    const [unchanged] = (await as(t, account.liveKey).get('/v1/webhooks').expect(200)).body.data;
    expect(unchanged).toMatchObject({
      id: live.id,
      url: receiver.url('/live-owned'),
      isActive: true,
    });
    expect(receiver.at('/attacker')).toHaveLength(0);
  });

  it('a test key makes and manages test-mode endpoints, which live keys do not see', async () => {
    const account = await anAccount(t).build();
    const created = (await register(account.testKey, '/test-owned').expect(201)).body.data;
    expect(created.livemode).toBe(false);
    const test = as(t, account.testKey);
    expect((await test.get('/v1/webhooks').expect(200)).body.data).toEqual([
      expect.objectContaining({ id: created.id, livemode: false }),
    ]);
    const sent = await test.post(`/v1/webhooks/${created.id}/test`).expect(200);
    expect(sent.body.data.status).toBe('succeeded');
    expect(receiver.at('/test-owned')[0].body.data).toMatchObject({ livemode: false });

    const live = as(t, account.liveKey);
    expect((await live.get('/v1/webhooks').expect(200)).body.data).toEqual([]);
    expectError(await live.delete(`/v1/webhooks/${created.id}`), 404, 'NOT_FOUND');
    await test.delete(`/v1/webhooks/${created.id}`).expect(200);
  });

  it("delivers a test-mode listing's events only to test endpoints, a live one's only to live ones", async () => {
    const account = await anAccount(t).build();
    const live = (await register(account.liveKey, '/mode-live').expect(201)).body.data;
    const test = (await register(account.testKey, '/mode-test').expect(201)).body.data;

    const draft = (
      await as(t, account.testKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    const active = (
      await as(t, account.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data;
    const [toTest] = await receiver.waitFor('/mode-test', 1);
    const [toLive] = await receiver.waitFor('/mode-live', 1);
    expect(toTest.body).toMatchObject({
      event: 'listing.created',
      data: { id: draft.id, livemode: false },
    });
    expect(toLive.body).toMatchObject({
      event: 'listing.created',
      data: { id: active.id, livemode: true },
    });

    // Fan-out writes every delivery of an event at once, so once each event arrived somewhere,
    // the histories hold every delivery it will ever get.
    const history = async (key: string, id: string) =>
      (await as(t, key).get(`/v1/webhooks/${id}/deliveries`).expect(200)).body.data;
    expect(await history(account.liveKey, live.id)).toHaveLength(1);
    expect(await history(account.testKey, test.id)).toHaveLength(1);
    const ids = (path: string) => receiver.at(path).map((r) => r.body.data.id);
    expect(ids('/mode-live')).toEqual([active.id]);
    expect(ids('/mode-test')).toEqual([draft.id]);
  });

  it('the limit of 5 endpoints holds per mode: test endpoints never use up the live quota', async () => {
    const account = await anAccount(t).build();
    for (let i = 0; i < 5; i++) await register(account.testKey, `/limit-test-${i}`).expect(201);
    for (let i = 0; i < 5; i++) await register(account.liveKey, `/limit-live-${i}`).expect(201);
    for (const key of [account.liveKey, account.testKey]) {
      const sixth = await register(key, '/limit-6');
      expect(expectError(sixth, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'url', message: expect.stringContaining('at most 5') },
      ]);
      expect(fieldsOf(sixth)).toEqual(['url']);
      expect((await as(t, key).get('/v1/webhooks').expect(200)).body.data).toHaveLength(5);
    }
  });

  it('holds 5 per mode when creates of both modes race', async () => {
    const account = await anAccount(t).build();
    const results = await Promise.all(
      [account.liveKey, account.testKey].flatMap((key, k) =>
        Array.from({ length: 7 }, (_, i) => register(key, `/race-${k}-${i}`)),
      ),
    );
    const created = results.filter((r) => r.status === 201).map((r) => r.body.data.livemode);
    expect(created.filter((livemode) => livemode)).toHaveLength(5);
    expect(created.filter((livemode) => !livemode)).toHaveLength(5);
    expect(results.filter((r) => r.status === 400)).toHaveLength(4);
  });

  it('the migration makes endpoints that existed before modes live-mode endpoints', async () => {
    const client = new Client({ connectionString: databaseUrl(await createTestDatabase()) });
    await client.connect();
    try {
      const runner = { query: (sql: string) => client.query(sql) } as unknown as QueryRunner;
      const migration = new WebhookEndpointModes1763900000000();
      await migration.down(runner);
      const {
        rows: [{ id: accountId }],
      } = await client.query(`INSERT INTO accounts (name) VALUES ('Before AB') RETURNING id`);
      const {
        rows: [{ id }],
      } = await client.query(
        `INSERT INTO webhook_endpoints (account_id, url, secret) VALUES ($1, 'https://example.com/h', 'whsec_x') RETURNING id`,
        [accountId],
      );
      await migration.up(runner);
      const { rows } = await client.query('SELECT livemode FROM webhook_endpoints WHERE id = $1', [
        id,
      ]);
      expect(rows).toEqual([{ livemode: true }]);
    } finally {
      await client.end();
    }
  });
});
