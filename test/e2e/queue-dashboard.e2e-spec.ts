import { expectError } from '../support/envelope';
import { anAccount, as } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { sampleValue } from '../support/metrics-text';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';

const basic = (password: string) =>
  `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;

describe('Queue dashboard and metrics on the public port', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ role: 'api', env: { METRICS_ON_API_PORT: 'true' } });
  });
  afterAll(() => t.close());

  it('does not exist without ADMIN_TOKEN', async () => {
    const bare = await createTestApp({
      role: 'api',
      databaseName: t.databaseName,
      redisPrefix: t.redisPrefix,
      env: { ADMIN_TOKEN: undefined },
    });
    try {
      expectError(await bare.http().get('/admin/queues'), 404, 'NOT_FOUND');
      expectError(
        await bare
          .http()
          .get('/admin/queues/api/queues')
          .set('Authorization', `Bearer ${ADMIN_TOKEN}`),
        404,
        'NOT_FOUND',
      );
    } finally {
      await bare.close();
    }
  });

  it('refuses a missing or wrong token with 401 and asks a browser for basic auth', async () => {
    const none = await t.http().get('/admin/queues');
    expectError(none, 401, 'UNAUTHORIZED');
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expectError(
      await t
        .http()
        .get('/admin/queues/api/queues')
        .set('Authorization', 'Bearer wrong-token-0123456789'),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await t.http().get('/admin/queues').set('Authorization', basic('wrong-token-0123456789')),
      401,
      'UNAUTHORIZED',
    );
  });

  it('counts wrong tokens toward the per-address failure limit, and still lets the right one in', async () => {
    const limited = await createTestApp({
      role: 'api',
      databaseName: t.databaseName,
      env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '3' },
    });
    try {
      for (let i = 0; i < 3; i++) {
        expectError(
          await limited
            .http()
            .get('/admin/queues')
            .set('Authorization', basic(`guess-${i}`)),
          401,
          'UNAUTHORIZED',
        );
      }
      const blocked = await limited
        .http()
        .get('/admin/queues')
        .set('Authorization', basic('guess-3'));
      expectError(blocked, 429, 'RATE_LIMITED');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Blocked for the admin API too: the count is per address, whichever door was knocked on.
      expectError(
        await limited
          .http()
          .post('/v1/admin/accounts')
          .set('Authorization', 'Bearer guess-4')
          .send({}),
        429,
        'RATE_LIMITED',
      );
      const right = await limited
        .http()
        .get('/admin/queues/api/queues')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(right.status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('serves the page with the token as basic-auth password, and its API with a Bearer token', async () => {
    const page = await t
      .http()
      .get('/admin/queues')
      .set('Authorization', basic(ADMIN_TOKEN))
      .expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Listings queues');
    // The page's scripts load relative to its base, behind the same credentials.
    expect(page.text).toMatch(/<base href="\/admin\/queues\/?"/);
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    await t.http().get(`/admin/queues/${script}`).expect(401);
    await t
      .http()
      .get(`/admin/queues/${script}`)
      .set('Authorization', basic(ADMIN_TOKEN))
      .expect(200);

    const api = await t
      .http()
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
    const queues = api.body.queues as { name: string; readOnlyMode: boolean }[];
    expect(queues.map((q) => q.name).sort()).toEqual([
      'images',
      'imports',
      'webhook-delivery',
      'webhook-delivery-bulk',
      'webhook-fanout',
      'webhook-fanout-bulk',
    ]);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it('refuses changes: the queues are read-only', async () => {
    const res = await t
      .http()
      .put('/admin/queues/api/queues/webhook-delivery/clean/completed')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(405);
    expect(JSON.stringify(res.body)).toContain('QUEUE_READ_ONLY');
  });

  it('answers GET /metrics on the public port when METRICS_ON_API_PORT is set, without a key', async () => {
    const res = await t.http().get('/metrics').expect(200);
    expect(res.text).toMatch(/^process_cpu_user_seconds_total /m);
  });

  it('reports the outbox backlog and its age per lane: an API replica alone relays nothing', async () => {
    const account = await anAccount(t).build();
    const interactive = { lane: 'interactive' };
    const bulk = { lane: 'bulk' };
    const first = (await t.http().get('/metrics').expect(200)).text;
    const before = sampleValue(first, 'outbox_backlog_events', interactive);
    const bulkBefore = sampleValue(first, 'outbox_backlog_events', bulk);
    await as(t, account.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
    await as(t, account.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
    const text = (await t.http().get('/metrics').expect(200)).text;
    expect(sampleValue(text, 'outbox_backlog_events', interactive)).toBe(before + 2);
    expect(sampleValue(text, 'outbox_lag_seconds', interactive)).toBeGreaterThan(0);
    // A request's events are interactive; only an import's chunks write bulk ones.
    expect(sampleValue(text, 'outbox_backlog_events', bulk)).toBe(bulkBefore);
  });
});
