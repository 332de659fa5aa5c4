import { randomUUID } from 'node:crypto';
import { UsageRecorder } from '../../src/usage/usage.recorder';
import { anAccount, as, createKey } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { ProbeModule } from '../support/probe.module';
import { createTestApp, TestApp } from '../support/test-app';

const USAGE_ROUTE = '/v1/me/usage';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

interface Usage {
  days: number;
  from: string;
  to: string;
  totals: { requests: number; errors: number; rateLimited: number };
  daily: { date: string; requests: number; errors: number; rateLimited: number }[];
  byEndpoint: { method: string; route: string; requests: number }[];
}

const requestsTo = (usage: Usage, method: string, route: string) =>
  usage.byEndpoint.find((e) => e.method === method && e.route === route)?.requests ?? 0;

/**
 * Reads /me/usage until `done` holds, through the real path (no forced flush). The reads are
 * counted too, under GET /v1/me/usage, so assertions leave that route out.
 */
async function usageWhen(t: TestApp, key: string, done: (u: Usage) => boolean, path = USAGE_ROUTE) {
  const deadline = Date.now() + 6_000;
  for (;;) {
    const usage = (await as(t, key).get(path).expect(200)).body.data as Usage;
    if (done(usage) || Date.now() > deadline) return usage;
    await sleep(200);
  }
}

describe('Usage statistics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      env: { RATE_LIMIT_WRITE_PER_MIN: '3' },
      extraModules: [ProbeModule],
    });
  });
  afterAll(() => t.close());

  it('counts every answer per day and endpoint, errors and 429s included, for the key in use, not a path no route answers', async () => {
    const account = await anAccount(t).build();
    const key = account.liveKey;
    await as(t, key).get('/v1/me').expect(200);
    await as(t, key).get('/v1/me').expect(200);
    for (let i = 0; i < 3; i++) await as(t, key).get(`/v1/probe/${randomUUID()}`).expect(200);
    await as(t, key).get('/v1/probe/not-a-uuid').expect(404);
    for (let i = 0; i < 3; i++) await as(t, key).post('/v1/probe').expect(201);
    await as(t, key).post('/v1/probe').expect(429);
    await as(t, key).get('/v1/probe/errors/unexpected').expect(500);
    await as(t, `svc_live_${'q'.repeat(32)}`)
      .get('/v1/me')
      .expect(401); // no key to charge
    await as(t, key).get('/v1/no-such-route').expect(404); // no endpoint to charge

    const known = 11;
    const usage = await usageWhen(
      t,
      key,
      (u) => u.totals.requests - requestsTo(u, 'GET', USAGE_ROUTE) >= known,
    );
    const reads = requestsTo(usage, 'GET', USAGE_ROUTE);
    expect(usage.totals).toEqual({ requests: known + reads, errors: 3, rateLimited: 1 });
    expect(usage.byEndpoint).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/v1/probe/:id', requests: 4 },
        { method: 'POST', route: '/v1/probe', requests: 4 },
        { method: 'GET', route: '/v1/me', requests: 2 },
        { method: 'GET', route: '/v1/probe/errors/unexpected', requests: 1 },
      ]),
    );
    expect(usage.byEndpoint).toHaveLength(reads > 0 ? 5 : 4);
    expect(usage.daily.at(-1)).toEqual({ date: today(), ...usage.totals });
    expect(usage.daily.slice(0, -1).every((d) => d.requests === 0)).toBe(true);

    // Another key of the same account has its own statistics.
    const other = await usageWhen(t, account.testKey, () => true);
    expect(other.totals).toEqual({ requests: 0, errors: 0, rateLimited: 0 });
  });

  it('shows a request within 5 seconds, and the key’s lastUsedAt with it', async () => {
    const { liveKey } = await anAccount(t).build();
    const first = await as(t, liveKey).get('/v1/me').expect(200);
    expect(first.body.data.key.lastUsedAt).toBeNull();
    const sentAt = Date.now();

    const usage = await usageWhen(t, liveKey, (u) => requestsTo(u, 'GET', '/v1/me') === 1);
    expect(requestsTo(usage, 'GET', '/v1/me')).toBe(1);
    let lastUsedAt: string | null = null;
    while (!lastUsedAt && Date.now() - sentAt < 6_000) {
      lastUsedAt = (await as(t, liveKey).get('/v1/me').expect(200)).body.data.key.lastUsedAt;
      if (!lastUsedAt) await sleep(200);
    }
    expect(Date.now() - sentAt).toBeLessThan(5_000);
    expect(Date.parse(lastUsedAt!)).toBeGreaterThanOrEqual(sentAt - 1_000);
  });

  it('counts refusals of a known key (403) but not answers without one (401)', async () => {
    const account = await anAccount(t).build();
    const narrow = await createKey(t, account.id, { kind: 'live', scopes: ['listings:read'] });
    expectError(await as(t, narrow).get(USAGE_ROUTE), 403, 'FORBIDDEN');
    await t.app.get(UsageRecorder).flush();
    const rows = await t.dataSource.query(
      `SELECT u.route, u.status_class, u.requests::int AS requests
       FROM api_usage u JOIN api_keys k ON k.id = u.key_id WHERE k.prefix = $1`,
      [narrow.slice(0, 12)],
    );
    expect(rows).toEqual([{ route: USAGE_ROUTE, status_class: 4, requests: 1 }]);
  });

  it('adds up the counts of several instances, each written at the latest when it shuts down', async () => {
    const { liveKey } = await anAccount(t).build();
    const other = await createTestApp({ databaseName: t.databaseName, redisPrefix: t.redisPrefix });
    await as(other, liveKey).get('/v1/categories').expect(200);
    await as(other, liveKey).get('/v1/categories').expect(200);
    await other.close(); // well before its next periodic flush
    await as(t, liveKey).get('/v1/categories').expect(200);

    const usage = await usageWhen(t, liveKey, (u) => requestsTo(u, 'GET', '/v1/categories') >= 3);
    expect(requestsTo(usage, 'GET', '/v1/categories')).toBe(3);
  });

  describe('days', () => {
    it('defaults to 30 days ending today, every day listed oldest first', async () => {
      const { liveKey } = await anAccount(t).build();
      const usage = (await as(t, liveKey).get(USAGE_ROUTE).expect(200)).body.data as Usage;
      expect(usage).toMatchObject({ days: 30, from: daysAgo(29), to: today() });
      expect(usage.daily.map((d) => d.date)).toEqual(
        Array.from({ length: 30 }, (_, i) => daysAgo(29 - i)),
      );
    });

    it('accepts 1 to 90', async () => {
      const { liveKey } = await anAccount(t).build();
      for (const days of [1, 7, 90]) {
        const usage = (await as(t, liveKey).get(`${USAGE_ROUTE}?days=${days}`).expect(200)).body
          .data as Usage;
        expect(usage).toMatchObject({ days, from: daysAgo(days - 1), to: today() });
        expect(usage.daily).toHaveLength(days);
      }
    });

    it.each(['0', '91', '-1', '1.5', 'abc', '', '7&days=8'])(
      'refuses days=%s with 400 naming days',
      async (days) => {
        const { liveKey } = await anAccount(t).build();
        const res = await as(t, liveKey).get(`${USAGE_ROUTE}?days=${days}`);
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(fieldsOf(res)).toEqual(['days']);
      },
    );
  });
});
