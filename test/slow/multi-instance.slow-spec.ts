import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { png } from '../support/images';
import { aListing } from '../support/listing-builder';
import { TestS3Server } from '../support/s3-server';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';
import { createTestDatabase, databaseUrl, runId } from '../support/test-database';
import { eventually, ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';

const READS_PER_MIN = 200;
const CONCURRENCY = 10;
const FANOUT_ENDPOINTS = ['/f1', '/f2', '/f3'];

/** The factories speak HTTP through `http()` only; this points them at one API process. */
const through = (api: ServiceProcess) => ({ http: () => request(api.baseUrl) }) as TestApp;

/** Polls without hammering the rate limit (eventually() polls every 50 ms). */
async function slowly(condition: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Two API processes and two workers from the built dist/, on one database, one Redis prefix and
 * one bucket, as a scaled-out deployment runs; everything is observed through HTTP.
 */
describe('Several API replicas and workers', () => {
  let s3: TestS3Server;
  let receiver: WebhookReceiver;
  let apis: ServiceProcess[];
  let workers: ServiceProcess[];

  beforeAll(async () => {
    s3 = await TestS3Server.start();
    receiver = await WebhookReceiver.start();
    const env = {
      ...s3.env,
      DATABASE_URL: databaseUrl(await createTestDatabase()),
      DB_MIGRATE_ON_START: 'false',
      DB_POOL_SIZE: '5',
      REDIS_KEY_PREFIX: `t${runId()}${randomBytes(3).toString('hex')}`,
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: 'http://127.0.0.1',
      WEBHOOK_ALLOW_HTTP: 'true',
      FETCH_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_WORKER_CONCURRENCY: String(CONCURRENCY),
      // A killed worker's jobs go back to the queue after this long without its lock. Not
      // shorter: a live worker starved of CPU by the test files beside it (2 s was) loses its
      // locks, and its jobs run twice.
      WEBHOOK_JOB_LOCK_MS: '10000',
      RATE_LIMIT_READ_PER_MIN: String(READS_PER_MIN),
      RATE_LIMIT_WRITE_PER_MIN: '100000',
      LISTING_VALIDITY: '5s',
      EXPIRY_SWEEP_EVERY: '300ms',
      SHUTDOWN_DRAIN_MS: '0',
    };
    apis = await Promise.all(
      [1, 2].map(() => startServiceProcess({ ...env, PROCESS_ROLE: 'api' })),
    );
    workers = await Promise.all(
      [1, 2].map(() => startServiceProcess({ ...env, PROCESS_ROLE: 'worker' })),
    );
  }, 300_000);
  afterAll(async () => {
    await Promise.all([...(apis ?? []), ...(workers ?? [])].map((p) => p.stop()));
    await receiver?.close();
    await s3?.close();
  });

  /** Creates `count` listings through the bulk endpoint, alternating between the replicas. */
  async function createListings(account: TestAccount, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 100) {
      const batches = [0, 50].filter((offset) => start + offset < count);
      const answers = await Promise.all(
        batches.map((offset, i) =>
          as(through(apis[i]), account.liveKey)
            .post('/v1/listings/bulk')
            .send({
              items: Array.from({ length: Math.min(50, count - start - offset) }, () =>
                aListing().build(),
              ),
            })
            .expect(200),
        ),
      );
      for (const answer of answers)
        for (const item of answer.body.data.results) ids.push(item.data.id as string);
    }
    expect(ids).toHaveLength(count);
    return ids;
  }

  async function subscribe(account: TestAccount, path: string, event: string): Promise<string> {
    const res = await as(through(apis[0]), account.liveKey)
      .post('/v1/webhooks')
      .send({ url: receiver.url(path), events: [event] })
      .expect(201);
    return res.body.data.id;
  }

  /** Every delivery of an endpoint through the deliveries API (both replicas, in turn). */
  async function deliveriesOf(key: string, endpointId: string) {
    const all: { deliveryId: string; status: string }[] = [];
    for (let page = 1; ; page++) {
      const res = await as(through(apis[page % 2]), key)
        .get(`/v1/webhooks/${endpointId}/deliveries?limit=100&page=${page}`)
        .expect(200);
      all.push(...res.body.data);
      if (!res.body.pagination.hasMore) return all;
    }
  }

  const distinct = (requests: ReceivedWebhook[], pick: (r: ReceivedWebhook) => unknown) =>
    new Set(requests.map(pick)).size;

  it('expires 100 listings once each while both workers sweep', async () => {
    const account = await anAccount(through(apis[0])).build();
    await subscribe(account, '/expired', 'listing.expired');
    const ids = await createListings(account, 100);
    const received = await receiver.waitFor('/expired', 100, 60_000);
    expect(received.map((r) => r.body.data.id).sort()).toEqual([...ids].sort());
    await slowly(
      async () => {
        const res = await as(through(apis[1]), account.liveKey)
          .get('/v1/listings?status=EXPIRED&limit=1')
          .expect(200);
        return res.body.pagination.total === 100;
      },
      30_000,
      'all 100 listings EXPIRED',
    );
    // Both workers kept sweeping meanwhile: still one event per listing.
    expect(receiver.at('/expired')).toHaveLength(100);
  }, 120_000);

  it('shares one rate limit across both replicas', async () => {
    const account = await anAccount(through(apis[0])).build();
    const statuses: number[] = [];
    for (let i = 0; i < READS_PER_MIN; i += 10) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          as(through(apis[j % 2]), account.liveKey).get('/v1/me'),
        ),
      );
      statuses.push(...answers.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(READS_PER_MIN);
    for (const api of apis) {
      const refused = await as(through(api), account.liveKey).get('/v1/me');
      expect(refused.status).toBe(429);
    }
  });

  it('creates one listing when the same Idempotency-Key races across both replicas', async () => {
    const account = await anAccount(through(apis[0])).build();
    const body = aListing().build();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        as(through(apis[i % 2]), account.liveKey)
          .post('/v1/listings')
          .set('Idempotency-Key', 'raced-across-replicas')
          .send(body),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((r) => r.body.data.id)).size).toBe(1);
    const list = await as(through(apis[1]), account.liveKey).get('/v1/listings').expect(200);
    expect(list.body.pagination.total).toBe(1);
  });

  it('serves an image uploaded through one replica from the other (S3 driver)', async () => {
    const account = await anAccount(through(apis[0])).build();
    const listing = await as(through(apis[0]), account.liveKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);
    const file = await png(30, 20);
    const image = await as(through(apis[0]), account.liveKey)
      .post(`/v1/listings/${listing.body.data.id}/images`)
      .attach('file', file, 'photo.png')
      .expect(201);
    const path = new URL(image.body.data.url).pathname;
    const fromA = await fetch(`${apis[0].baseUrl}${path}`);
    const fromB = await fetch(`${apis[1].baseUrl}${path}`);
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    expect(fromB.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fromB.arrayBuffer())).toEqual(Buffer.from(await fromA.arrayBuffer()));
  });

  describe('fan-out to 3 endpoints', () => {
    let account: TestAccount;
    let endpointIds: string[];

    beforeAll(async () => {
      account = await anAccount(through(apis[0])).build();
      endpointIds = [];
      for (const path of FANOUT_ENDPOINTS)
        endpointIds.push(await subscribe(account, path, 'listing.created'));
    });

    it('delivers 1,000 events once per endpoint, none left pending', async () => {
      const ids = await createListings(account, 1000);
      for (const path of FANOUT_ENDPOINTS) {
        const received = await receiver.waitFor(path, 1000, 120_000);
        expect(distinct(received, (r) => r.body.deliveryId)).toBe(1000);
        expect(new Set(received.map((r) => r.body.data.id))).toEqual(new Set(ids));
      }
      // A separate key: the deliveries are read 30 pages at a time against the read limit.
      const reader = await createKey(through(apis[1]), account.id, { kind: 'live' });
      // A request is answered before its attempt is recorded: the last records may lag a little.
      const unsettled = async () => {
        let left = 0;
        for (const endpointId of endpointIds) {
          const deliveries = await deliveriesOf(reader, endpointId);
          expect(deliveries).toHaveLength(1000);
          left += deliveries.filter((d) => d.status !== 'succeeded').length;
        }
        return left;
      };
      await slowly(
        async () => (await unsettled()) === 0,
        30_000,
        'every delivery recorded succeeded',
      );
      // Nothing arrived twice.
      for (const path of FANOUT_ENDPOINTS) expect(receiver.at(path)).toHaveLength(1000);
    }, 240_000);

    it('loses nothing when a worker is killed mid-stream: the other finishes', async () => {
      const before = FANOUT_ENDPOINTS.map((path) => receiver.at(path).length);
      const ids = await createListings(account, 300);
      await eventually(
        () => FANOUT_ENDPOINTS.some((path, i) => receiver.at(path).length - before[i] >= 50),
        60_000,
      );
      workers[0].child.kill('SIGKILL');
      expect((await workers[0].exited).signal).toBe('SIGKILL');
      // Mid-stream: deliveries were still owed when it died.
      const deliveredAtKill = FANOUT_ENDPOINTS.reduce(
        (sum, path, i) => sum + receiver.at(path).length - before[i],
        0,
      );
      expect(deliveredAtKill).toBeLessThan(ids.length * FANOUT_ENDPOINTS.length);

      for (const [i, path] of FANOUT_ENDPOINTS.entries()) {
        await eventually(
          () => distinct(receiver.at(path).slice(before[i]), (r) => r.body.data.id) === ids.length,
          120_000,
          () => `${path}: ${distinct(receiver.at(path).slice(before[i]), (r) => r.body.data.id)}`,
        );
        const received = receiver.at(path).slice(before[i]);
        expect(new Set(received.map((r) => r.body.data.id))).toEqual(new Set(ids));
        // At least once: a request the killed worker had sent but not recorded may come again,
        // with the same delivery id; at most one per job it was running.
        expect(distinct(received, (r) => r.body.deliveryId)).toBe(ids.length);
        expect(received.length - ids.length).toBeLessThanOrEqual(CONCURRENCY);
      }
      const reader = await createKey(through(apis[0]), account.id, { kind: 'live' });
      for (const endpointId of endpointIds) {
        const deliveries = await deliveriesOf(reader, endpointId);
        expect(deliveries).toHaveLength(1300);
        expect(deliveries.filter((d) => d.status !== 'succeeded')).toEqual([]);
      }
    }, 240_000);
  });
});
