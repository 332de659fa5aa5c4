import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { admin, anAccount, as, createKey, TestAccount } from '../support/factories';
import { expectError } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { ProbeModule } from '../support/probe.module';
import { createTestApp, TestApp } from '../support/test-app';

/** The spec's limits; the test app otherwise raises them out of the way. */
const SPEC_LIMITS = { RATE_LIMIT_READ_PER_MIN: '300', RATE_LIMIT_WRITE_PER_MIN: '30' };
const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];

/** `count` requests, `concurrency` at a time, answers in order. */
async function repeat(count: number, send: () => Promise<Response>, concurrency = 10) {
  const answers: Response[] = [];
  while (answers.length < count) {
    const batch = Math.min(concurrency, count - answers.length);
    answers.push(...(await Promise.all(Array.from({ length: batch }, send))));
  }
  return answers;
}

const statuses = (answers: Response[]) => [...new Set(answers.map((r) => r.status))];

function expectRetryAfter(res: Response): number {
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  return seconds;
}

describe('Rate limits', () => {
  describe('per API key, GET 300 and writes 30 a minute', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ env: SPEC_LIMITS, extraModules: [ProbeModule] });
    });
    afterAll(() => t.close());

    it('the 31st write in a minute gets 429 RATE_LIMITED with Retry-After; another key is unaffected', async () => {
      const account = await anAccount(t).build();
      const other = await anAccount(t).build();
      const writes = await repeat(30, () => as(t, account.liveKey).post('/v1/probe'));
      expect(statuses(writes)).toEqual([201]);

      const refused = await as(t, account.liveKey).post('/v1/probe');
      expectError(refused, 429, 'RATE_LIMITED');
      const retryAfter = expectRetryAfter(refused);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['x-ratelimit-reset']).toBe(String(retryAfter));
      // Every write method shares the one window.
      expectError(
        await as(t, account.liveKey).patch(`/v1/probe/${randomUUID()}`),
        429,
        'RATE_LIMITED',
      );
      expectError(
        await as(t, account.liveKey).delete(`/v1/probe/${randomUUID()}`),
        429,
        'RATE_LIMITED',
      );

      // The limit is per key: the same account's other key, another account, and reads go on.
      await as(t, account.testKey).post('/v1/probe').expect(201);
      await as(t, other.liveKey).put(`/v1/probe/${randomUUID()}`).expect(200);
      await as(t, account.liveKey).get('/v1/me').expect(200);
    });

    it('counts a bulk request of 50 listings once', async () => {
      const account = await anAccount(t).build();
      const items = Array.from({ length: 50 }, () => aListing().build());
      const bulk = await as(t, account.liveKey)
        .post('/v1/listings/bulk')
        .send({ items })
        .expect(200);
      expect(bulk.body.data.created).toBe(50);
      expect(bulk.headers['x-ratelimit-remaining']).toBe('29');
      const next = await as(t, account.liveKey)
        .post('/v1/listings/bulk/sold')
        .send({ ids: [randomUUID()] })
        .expect(200);
      expect(next.headers['x-ratelimit-remaining']).toBe('28');
    });

    it('the 301st GET in a minute gets 429, and writes keep their own window', async () => {
      const account = await anAccount(t).build();
      const reads = await repeat(
        300,
        () => as(t, account.liveKey).get(`/v1/probe/${randomUUID()}`),
        20,
      );
      expect(statuses(reads)).toEqual([200]);
      const refused = await as(t, account.liveKey).get('/v1/me');
      expectError(refused, 429, 'RATE_LIMITED');
      expectRetryAfter(refused);
      expect(refused.headers['x-ratelimit-limit']).toBe('300');
      await as(t, account.liveKey).post('/v1/probe').expect(201);
    });

    it('every authenticated answer carries the headers, counting down, errors included', async () => {
      const { liveKey } = await anAccount(t).build();
      const first = await as(t, liveKey).get('/v1/me').expect(200);
      expect(first.headers).toMatchObject({
        'x-ratelimit-limit': '300',
        'x-ratelimit-remaining': '299',
        'ratelimit-policy': '300;w=60',
      });
      const reset = Number(first.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(59);
      expect(reset).toBeLessThanOrEqual(60);
      expect(first.headers.ratelimit).toBe(`limit=300, remaining=299, reset=${reset}`);

      const remaining = async (res: Promise<Response>, status: number) => {
        const answer = await res;
        expect(answer.status).toBe(status);
        for (const header of RATE_LIMIT_HEADERS) expect(answer.headers[header]).toBeDefined();
        return answer.headers['x-ratelimit-remaining'];
      };
      expect(await remaining(as(t, liveKey).get('/v1/categories'), 200)).toBe('298');
      expect(await remaining(as(t, liveKey).get('/v1/probe/not-a-uuid'), 404)).toBe('297');
      expect(await remaining(as(t, liveKey).get('/v1/me/usage?days=0'), 400)).toBe('296');
      expect(await remaining(as(t, liveKey).get('/v1/probe/errors/unexpected'), 500)).toBe('295');
      // A recognised key refused by its scopes or its account's status is counted and told so.
      const account = await anAccount(t).build();
      const readOnly = await createKey(t, account.id, { kind: 'live', scopes: ['listings:read'] });
      expect(await remaining(as(t, readOnly).get('/v1/me'), 403)).toBe('299');
      const { liveKey: suspendedKey } = await anAccount(t).suspended().build();
      expect(await remaining(as(t, suspendedKey).get('/v1/me'), 403)).toBe('299');

      const write = await as(t, liveKey).post('/v1/probe').expect(201);
      expect(write.headers).toMatchObject({
        'x-ratelimit-limit': '30',
        'x-ratelimit-remaining': '29',
        'ratelimit-policy': '30;w=60',
      });
    });

    it('answers without a key, health and the admin API carry no limit headers and are not limited', async () => {
      const unauthenticated = await t.http().get('/v1/me');
      expect(unauthenticated.status).toBe(401);
      const health = await t.http().get('/health/ready').expect(200);
      const adminCalls = await repeat(35, () =>
        admin(t).post('/v1/admin/accounts').send({ name: 'Many AB' }),
      );
      expect(statuses(adminCalls)).toEqual([201]);
      for (const res of [unauthenticated, health, adminCalls[34]]) {
        for (const header of RATE_LIMIT_HEADERS) expect(res.headers[header]).toBeUndefined();
      }
    });
  });

  it('two instances share one count', async () => {
    const a = await createTestApp({ env: SPEC_LIMITS, extraModules: [ProbeModule] });
    const b = await createTestApp({
      databaseName: a.databaseName,
      redisPrefix: a.redisPrefix,
      env: SPEC_LIMITS,
      extraModules: [ProbeModule],
    });
    try {
      const { liveKey } = await anAccount(a).build();
      // Alternate between the instances.
      let sent = 0;
      const writes = await repeat(30, () => as(sent++ % 2 ? a : b, liveKey).post('/v1/probe'));
      expect(statuses(writes)).toEqual([201]);
      expectError(await as(a, liveKey).post('/v1/probe'), 429, 'RATE_LIMITED');
      expectError(await as(b, liveKey).post('/v1/probe'), 429, 'RATE_LIMITED');
    } finally {
      await b.close();
      await a.close();
    }
  });

  describe('failed authentications, per client address', () => {
    const FAILURES_ALLOWED = 5;
    let t: TestApp;
    let account: TestAccount;
    const wrongKey = () => `svc_live_${randomUUID().replace(/-/g, '')}`;

    beforeAll(async () => {
      t = await createTestApp({
        env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(FAILURES_ALLOWED) },
      });
      account = await anAccount(t).build();
    });
    afterAll(() => t.close());

    it(`answer 401 ${FAILURES_ALLOWED} times a minute, then 429 for any wrong key, everywhere`, async () => {
      for (let i = 0; i < FAILURES_ALLOWED; i++) {
        expectError(await as(t, wrongKey()).get('/v1/categories'), 401, 'UNAUTHORIZED');
      }
      const refused = await as(t, wrongKey()).get('/v1/categories');
      expectError(refused, 429, 'RATE_LIMITED');
      expectRetryAfter(refused);
      expectError(await t.http().get('/v1/categories'), 429, 'RATE_LIMITED');
      // Only failures are limited: a valid key from the blocked address still gets through.
      await as(t, account.liveKey).get('/v1/me').expect(200);

      // Another instance shares the count: its first failure from this address is already over.
      const other = await createTestApp({
        databaseName: t.databaseName,
        redisPrefix: t.redisPrefix,
        env: t.env,
      });
      try {
        expectError(await as(other, wrongKey()).get('/v1/me'), 429, 'RATE_LIMITED');
        await as(other, account.liveKey).get('/v1/me').expect(200);
      } finally {
        await other.close();
      }

      // Health is not behind the guard; the admin API takes its valid token from a blocked address.
      await t.http().get('/health/live').expect(200);
      await admin(t).post('/v1/admin/accounts').send({ name: 'Still AB' }).expect(201);
      expectError(
        await as(t, 'wrong-admin-token-0123456789')
          .post('/v1/admin/accounts')
          .send({ name: 'X AB' }),
        429,
        'RATE_LIMITED',
      );
    });
  });

  describe('failed authentications at the default limit', () => {
    let t: TestApp;
    let account: TestAccount;

    beforeAll(async () => {
      t = await createTestApp();
      account = await anAccount(t).build();
    });
    afterAll(() => t.close());

    it('60 wrong keys from one address, then a valid key still works', async () => {
      const wrong = await repeat(60, () =>
        as(t, `svc_live_${randomUUID().replace(/-/g, '')}`).get('/v1/me'),
      );
      expect(statuses(wrong)).toEqual([401]);
      await as(t, account.liveKey).get('/v1/me').expect(200);
    });
  });

  describe('failed admin authentications', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('count toward the same per-address limit: 61 wrong admin tokens, the last answers 429', async () => {
      const wrong = await repeat(61, () =>
        as(t, `wrong-admin-${randomUUID()}`).post('/v1/admin/accounts').send({ name: 'X AB' }),
      );
      expect(wrong.slice(0, 60).map((r) => r.status)).toEqual(Array(60).fill(401));
      expectError(wrong[60], 429, 'RATE_LIMITED');
      // The right token still works from that address.
      await admin(t).post('/v1/admin/accounts').send({ name: 'Still AB' }).expect(201);
    });
  });

  describe('behind a proxy (TRUST_PROXY=1)', () => {
    const FAILURES_ALLOWED = 3;
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({
        env: { TRUST_PROXY: '1', RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(FAILURES_ALLOWED) },
      });
    });
    afterAll(() => t.close());

    const viaProxy = (forwardedFor: string) =>
      t
        .http()
        .get('/v1/me')
        .set('Authorization', 'Bearer svc_live_wrong')
        .set('X-Forwarded-For', forwardedFor);

    it('counts the right-most untrusted hop, whatever the client forges on the left', async () => {
      for (let i = 0; i < FAILURES_ALLOWED; i++) {
        expectError(await viaProxy(`10.9.${i}.1, 203.0.113.7`), 401, 'UNAUTHORIZED');
      }
      // A new forged left-most address does not buy a fresh count: 203.0.113.7 is blocked.
      expectError(await viaProxy('198.51.100.99, 203.0.113.7'), 429, 'RATE_LIMITED');
      // Another client behind the same proxy is not.
      expectError(await viaProxy('203.0.113.8'), 401, 'UNAUTHORIZED');
    });
  });

  describe('while Redis is unreachable', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({
        env: {
          // Nothing listens there; the real Redis keeps serving the other test files.
          REDIS_URL: 'redis://127.0.0.1:6390',
          RATE_LIMIT_READ_PER_MIN: '2',
          RATE_LIMIT_WRITE_PER_MIN: '2',
          RATE_LIMIT_AUTH_FAILURES_PER_MIN: '2',
        },
        extraModules: [ProbeModule],
      });
    });
    afterAll(() => t.close());

    it('keeps serving: limits fail open, without limit headers', async () => {
      const { liveKey } = await anAccount(t).build();
      const reads = await repeat(5, () => as(t, liveKey).get('/v1/me'));
      const writes = await repeat(5, () => as(t, liveKey).post('/v1/probe'));
      expect(statuses(reads)).toEqual([200]);
      expect(statuses(writes)).toEqual([201]);
      expect(reads[0].headers['x-ratelimit-limit']).toBeUndefined();
      const failures = await repeat(4, () => as(t, `svc_live_${'x'.repeat(32)}`).get('/v1/me'));
      expect(statuses(failures)).toEqual([401]);
    });

    it('reports Redis degraded and the database up in /health/ready', async () => {
      const ready = await t.http().get('/health/ready').expect(200);
      expect(ready.body.data.details).toMatchObject({
        database: { status: 'up' },
        redis: { status: 'degraded' },
      });
    });
  });
});
