import { anAccount, as, TestAccount } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** Every answer tells browsers not to guess its type, whichever part of the app gives it. */
describe('X-Content-Type-Options: nosniff', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    account = await anAccount(t).build();
  });
  afterAll(() => t.close());

  it.each([
    ['a 200 JSON answer', () => as(t, account.liveKey).get('/v1/me'), 200],
    [
      'a 404 in the envelope',
      () => as(t, account.liveKey).get('/v1/listings/7d3c0f5e-8a8e-4b6a-9d0e-2f1b5c4a3e21'),
      404,
    ],
    ['a 401 without a key', () => t.http().get('/v1/me'), 401],
    ['a 400 naming a field', () => as(t, account.liveKey).get('/v1/listings?limit=0'), 400],
    ['an unknown path outside /v1', () => t.http().get('/nowhere'), 404],
    ['liveness', () => t.http().get('/health/live'), 200],
    ['readiness', () => t.http().get('/health/ready'), 200],
    ['the OpenAPI document', () => t.http().get('/docs-json'), 200],
    ['the docs page', () => t.http().get('/docs/'), 200],
  ])('on %s', async (_, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
