import { anAccount, as } from '../support/factories';
import { expectError } from '../support/envelope';
import { createTestApp, TestApp } from '../support/test-app';
import { createHash } from 'node:crypto';

describe('Account, health and docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /v1/me shows the account and the key in use, never the key or its hash', async () => {
    const account = await anAccount(t).named('Bilhallen AB').build();
    const res = await as(t, account.liveKey).get('/v1/me').expect(200);
    expect(res.body.data.account).toMatchObject({
      id: account.id,
      name: 'Bilhallen AB',
      status: 'APPROVED',
    });
    expect(res.body.data.key).toMatchObject({ kind: 'live', prefix: account.liveKey.slice(0, 12) });
    expect(res.body.data.limits).toMatchObject({
      readPerMinute: expect.any(Number),
      writePerMinute: expect.any(Number),
    });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(account.liveKey);
    expect(text).not.toContain(createHash('sha256').update(account.liveKey).digest('hex'));
    expect(Object.keys(res.body.data.key).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'kind',
      'lastUsedAt',
      'name',
      'prefix',
      'scopes',
    ]);
  });

  it('answers /health/live and /health/ready without a key', async () => {
    await t.http().get('/health/live').expect(200);
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.data.details).toMatchObject({
      database: { status: 'up' },
      reads: { status: 'up' },
      redis: { status: 'up' },
    });
  });

  it('serves the OpenAPI document with the bearer scheme, the routes and the error envelope', async () => {
    const res = await t.http().get('/docs-json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/v1/categories', '/v1/locations', '/v1/me']),
    );
    expect(res.body.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(res.body.components.schemas.ErrorEnvelope).toBeDefined();
    expect(res.body.paths['/v1/me'].get.responses['401']).toBeDefined();
    expect(JSON.stringify(res.body)).not.toContain('/v1/admin');
    await t.http().get('/docs').expect(200);
  });

  it('documents the sync and recovery routes and every event payload', async () => {
    const { body } = await t.http().get('/docs-json').expect(200);
    const routes = {
      '/v1/events': 'get',
      '/v1/webhooks/{id}/deliveries/{deliveryId}': 'get',
      '/v1/webhooks/{id}/deliveries/{deliveryId}/retry': 'post',
      '/v1/webhooks/{id}/recover': 'post',
      '/v1/webhooks/{id}/rotate-secret': 'post',
    };
    for (const [path, method] of Object.entries(routes)) {
      expect(body.paths[path]?.[method]).toBeDefined();
    }
    const schemas = body.components.schemas;
    expect(schemas.Event.discriminator.propertyName).toBe('event');
    expect(schemas.ListingUpdatedEvent.properties.event).toEqual({
      type: 'string',
      enum: ['listing.updated'],
    });
    expect(schemas.DeliveryDetail.properties.attemptLog).toBeDefined();
    expect(schemas.RecoverRequest.properties.since).toBeDefined();
    expect(schemas.RotateSecretRequest.properties.expireCurrentAfterHours).toMatchObject({
      minimum: 0,
      maximum: 72,
    });
    expect(schemas.ListingCreatedWebhook.properties.eventId).toBeDefined();
    for (const [name, fields] of Object.entries({
      ListingCreatedData: ['status', 'updatedAt'],
      ListingUpdatedData: ['changedFields'],
      ListingSoldData: ['soldAt'],
      ListingExpiredData: ['expiredAt'],
      ListingRemovedData: ['removedAt', 'reason'],
      MessageReceivedData: ['messageId', 'receivedAt'],
      ListingFavoritedData: ['favoritedAt'],
    })) {
      const properties = Object.keys(schemas[name]?.properties ?? {});
      expect(properties).toEqual(
        expect.arrayContaining(['id', 'externalId', 'livemode', ...fields]),
      );
    }
  });

  it('keeps admin and docs outside the key guard but health outside /v1', async () => {
    const { liveKey } = await anAccount(t).build();
    expectError(await as(t, liveKey).get('/v1/health/live'), 404, 'NOT_FOUND');
    // Every path under /v1 needs a key first, unknown ones included.
    expectError(await t.http().get('/v1/health/live'), 401, 'UNAUTHORIZED');
    await t.http().get('/health/live').expect(200);
  });
});
