import { Client } from 'pg';
import { emitEvent } from '../support/events';
import { anAccount, as, TestAccount } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { databaseUrl } from '../support/test-database';
import { ThrowawayRedis } from '../support/throwaway-redis';
import { eventually, WebhookReceiver } from '../support/webhook-receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function register(t: TestApp, account: TestAccount, url: string): Promise<string> {
  const res = await as(t, account.liveKey).post('/v1/webhooks').send({ url }).expect(201);
  return res.body.data.id;
}

async function pendingOutboxRows(t: TestApp): Promise<number> {
  const [{ n }] = await t.dataSource.query(
    'SELECT count(*)::int AS n FROM outbox_events WHERE relayed_at IS NULL',
  );
  return n;
}

describe('Webhook processes', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.close());

  it('loses no event while Redis is down: they wait in the outbox and go out once it is back', async () => {
    const redis = await ThrowawayRedis.start();
    const t = await createTestApp({ env: { REDIS_URL: redis.url } });
    try {
      const account = await anAccount(t).build();
      await register(t, account, receiver.url('/outage'));
      await emitEvent(t, account.id, 'listing.created');
      await receiver.waitFor('/outage', 1);

      await redis.stop();
      const during: string[] = [];
      for (let i = 0; i < 5; i++)
        during.push((await emitEvent(t, account.id, 'listing.updated')).id);
      await sleep(1_000); // several relay ticks, all without Redis
      expect(await pendingOutboxRows(t)).toBe(5);
      expect(receiver.at('/outage')).toHaveLength(1);

      await redis.start();
      const received = await receiver.waitFor('/outage', 6, 30_000);
      await sleep(1_000); // nothing arrives twice
      expect(receiver.at('/outage')).toHaveLength(6);
      expect(
        received
          .slice(1)
          .map((r) => r.body.data.id)
          .sort(),
      ).toEqual([...during].sort());
      expect(await pendingOutboxRows(t)).toBe(0);
    } finally {
      await t.close();
      await redis.stop();
    }
  });

  it('runs API and delivery worker apart: the API only writes the outbox, the worker delivers', async () => {
    const api = await createTestApp({ role: 'api' });
    let worker: TestApp | undefined;
    try {
      const account = await anAccount(api).build();
      await register(api, account, receiver.url('/roles'));
      const data = await emitEvent(api, account.id, 'listing.sold');
      await sleep(500);
      expect(await pendingOutboxRows(api)).toBe(1); // no relay in an API replica

      worker = await createTestApp({
        role: 'worker',
        databaseName: api.databaseName,
        redisPrefix: api.redisPrefix,
        env: { WEBHOOK_WORKER_CONCURRENCY: '2' },
      });
      const [request] = await receiver.waitFor('/roles', 1);
      expect(request.body.data.id).toBe(data.id);
    } finally {
      await worker?.close();
      await api.close();
    }
  });

  it('finishes an in-flight delivery before shutting down', async () => {
    const t = await createTestApp();
    const account = await anAccount(t).build();
    await register(t, account, receiver.url('/shutdown'));
    receiver.replyWith('/shutdown', { status: 200, delayMs: 1_000 });
    await emitEvent(t, account.id, 'listing.removed');
    await receiver.waitFor('/shutdown', 1);
    await t.close(); // while the receiver is still answering

    const db = new Client({ connectionString: databaseUrl(t.databaseName) });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT status, attempts FROM webhook_deliveries');
      expect(rows).toEqual([{ status: 'succeeded', attempts: 1 }]);
    } finally {
      await db.end();
    }
    await eventually(() => receiver.at('/shutdown').length === 1);
  });

  it('has at most WEBHOOK_WORKER_CONCURRENCY requests in flight, though one event fans out to more endpoints', async () => {
    const t = await createTestApp({ env: { WEBHOOK_WORKER_CONCURRENCY: '2' } });
    try {
      let inFlight = 0;
      let most = 0;
      const reply = () => {
        most = Math.max(most, ++inFlight);
        return { status: 200, after: sleep(300).then(() => inFlight--) };
      };
      const account = await anAccount(t).build();
      for (let i = 0; i < 5; i++) {
        receiver.byDefault(`/limited-${i}`, reply);
        await register(t, account, receiver.url(`/limited-${i}`));
      }
      await emitEvent(t, account.id, 'listing.sold');
      await eventually(
        () => [0, 1, 2, 3, 4].every((i) => receiver.at(`/limited-${i}`).length === 1),
        15_000,
      );
      expect(most).toBe(2);
    } finally {
      await t.close();
    }
  });

  it("a failed first attempt (made by the fan-out) is retried only after the schedule's first delay", async () => {
    const schedule = ['800', ...Array(8).fill('100')].join(',');
    const t = await createTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: schedule } });
    try {
      const arrivals: number[] = [];
      const account = await anAccount(t).build();
      receiver.byDefault('/scheduled', () => {
        arrivals.push(Date.now());
        return { status: arrivals.length === 1 ? 500 : 200 };
      });
      await register(t, account, receiver.url('/scheduled'));
      await emitEvent(t, account.id, 'listing.sold');
      await eventually(() => arrivals.length === 2, 15_000);
      expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(800);
    } finally {
      await t.close();
    }
  });
});
