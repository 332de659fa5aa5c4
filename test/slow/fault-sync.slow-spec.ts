import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { startServiceProcess } from '../support/service-process';
import { createTestApp, TestApp } from '../support/test-app';
import { ThrowawayRedis } from '../support/throwaway-redis';
import { eventually, WebhookReceiver } from '../support/webhook-receiver';

interface FeedItem {
  id: string;
  event: string;
  data: { id: string };
}

/** Reads the feed after `cursor` to its end; returns the items and the cursor to go on from. */
async function readFeed(t: TestApp, key: string, cursor?: string) {
  const items: FeedItem[] = [];
  for (;;) {
    const res = await as(t, key)
      .get(`/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`)
      .expect(200);
    items.push(...res.body.data);
    cursor = res.body.pagination.nextCursor ?? cursor;
    if (!res.body.pagination.hasMore) return { items, cursor };
  }
}

async function createListings(t: TestApp, seller: TestAccount, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await as(t, seller.liveKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);
    ids.push(res.body.data.id);
  }
  return ids;
}

/** [fault] The feed and recover are how an integrator catches up: they must survive outages. */
describe('[fault] events feed and recover through outages', () => {
  it('Redis stopped: the feed keeps up, recover is accepted, and after the restart every missed event arrives once', async () => {
    const redis = await ThrowawayRedis.start();
    const receiver = await WebhookReceiver.start();
    const t = await createTestApp({ env: { REDIS_URL: redis.url } });
    try {
      const seller = await anAccount(t).build();
      const endpoint = (
        await as(t, seller.liveKey)
          .post('/v1/webhooks')
          .send({ url: receiver.url('/missed'), events: ['listing.created'] })
          .expect(201)
      ).body.data;
      const since = new Date(Date.now() - 1000).toISOString();
      await as(t, seller.liveKey)
        .patch(`/v1/webhooks/${endpoint.id}`)
        .send({ isActive: false })
        .expect(200);
      const before = await createListings(t, seller, 4);
      await eventually(async () => (await readFeed(t, seller.liveKey)).items.length === 4);

      await redis.stop();
      const during = await createListings(t, seller, 3);
      // Positions need only PostgreSQL: the feed shows what was written while Redis is away.
      await eventually(async () => (await readFeed(t, seller.liveKey)).items.length === 7);
      const { items } = await readFeed(t, seller.liveKey);
      expect(items.map((i) => i.data.id)).toEqual([...before, ...during]);

      await as(t, seller.liveKey)
        .patch(`/v1/webhooks/${endpoint.id}`)
        .send({ isActive: true })
        .expect(200);
      const recovered = await as(t, seller.liveKey)
        .post(`/v1/webhooks/${endpoint.id}/recover`)
        .send({ since })
        .expect(202);
      expect(recovered.body.data).toEqual({ queued: 7 });
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toEqual([]);

      await redis.start();
      await receiver.waitFor('/missed', 7, 30_000);
      // Relay, fan-out and the recover requests all ran after the restart: still once each.
      await new Promise((r) => setTimeout(r, 1_000));
      const got = receiver.at('/missed').map((r) => r.body.data.id as string);
      expect(got.sort()).toEqual([...before, ...during].sort());
    } finally {
      await t.close();
      await receiver.close();
      await redis.stop();
    }
  });

  it('the worker killed: a reader continuing with after misses nothing, and a recover made meanwhile is delivered after the restart', async () => {
    const receiver = await WebhookReceiver.start();
    const api = await createTestApp({ role: 'api' });
    const workerEnv = { ...api.env, PROCESS_ROLE: 'worker' };
    const first = await startServiceProcess(workerEnv);
    let second: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
    try {
      const seller = await anAccount(api).build();
      const endpoint = (
        await as(api, seller.liveKey)
          .post('/v1/webhooks')
          .send({ url: receiver.url('/after-kill'), events: ['listing.sold'] })
          .expect(201)
      ).body.data;
      const since = new Date(Date.now() - 1000).toISOString();
      const before = await createListings(api, seller, 3);
      await eventually(async () => (await readFeed(api, seller.liveKey)).items.length === 3);
      const { cursor } = await readFeed(api, seller.liveKey);

      await first.stop('SIGKILL');
      const during = await createListings(api, seller, 3);
      for (const id of during)
        await as(api, seller.liveKey).post(`/v1/listings/${id}/sold`).expect(200);
      const recovered = await as(api, seller.liveKey)
        .post(`/v1/webhooks/${endpoint.id}/recover`)
        .send({ since })
        .expect(202);
      // No worker: the sold events were never fanned out, recover takes them on.
      expect(recovered.body.data).toEqual({ queued: 3 });

      second = await startServiceProcess(workerEnv);
      await eventually(
        async () => (await readFeed(api, seller.liveKey, cursor)).items.length === 6,
        30_000,
      );
      const rest = (await readFeed(api, seller.liveKey, cursor)).items;
      expect(rest.map((i) => `${i.event}:${i.data.id}`)).toEqual([
        ...during.map((id) => `listing.created:${id}`),
        ...during.map((id) => `listing.sold:${id}`),
      ]);
      const all = (await readFeed(api, seller.liveKey)).items;
      expect(all.map((i) => i.data.id).slice(0, 3)).toEqual(before);

      await receiver.waitFor('/after-kill', 3, 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const got = receiver.at('/after-kill').map((r) => r.body.data.id as string);
      expect(got.sort()).toEqual([...during].sort());
    } finally {
      await first.stop('SIGKILL');
      await second?.stop();
      await api.close();
      await receiver.close();
    }
  });
});
