import { anAccount, as } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { startServiceProcess } from '../support/service-process';
import { createTestApp } from '../support/test-app';
import { ThrowawayRedis } from '../support/throwaway-redis';
import { eventually, WebhookReceiver } from '../support/webhook-receiver';
import { FAST_RETRIES, registerEndpoint } from '../support/webhooks';

describe('[fault] webhooks through outages', () => {
  it('Redis stopped while listings are created and sold, then restarted: every event delivered once per endpoint', async () => {
    const redis = await ThrowawayRedis.start();
    const receiver = await WebhookReceiver.start();
    const t = await createTestApp({ env: { ...FAST_RETRIES, REDIS_URL: redis.url } });
    try {
      const seller = await anAccount(t).build();
      await registerEndpoint(t, seller.liveKey, receiver, '/a');
      await registerEndpoint(t, seller.liveKey, receiver, '/b', ['listing.sold']);

      await redis.stop();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const l = (
          await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
        ).body.data;
        await as(t, seller.liveKey).post(`/v1/listings/${l.id}/sold`).expect(200);
        ids.push(l.id);
      }
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toEqual([]);
      await redis.start();

      await receiver.waitFor('/a', 10, 30_000);
      await receiver.waitFor('/b', 5, 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const a = receiver
        .at('/a')
        .map((r) => `${r.body.event}:${r.body.data.id}`)
        .sort();
      const b = receiver
        .at('/b')
        .map((r) => `${r.body.event}:${r.body.data.id}`)
        .sort();
      expect(a).toEqual(
        ids.flatMap((id) => [`listing.created:${id}`, `listing.sold:${id}`]).sort(),
      );
      expect(b).toEqual(ids.map((id) => `listing.sold:${id}`).sort());
    } finally {
      await t.close();
      await receiver.close();
      await redis.stop();
    }
  });

  it('the worker killed mid-delivery: after a restart the delivery completes with the same deliveryId', async () => {
    const receiver = await WebhookReceiver.start();
    const api = await createTestApp({ role: 'api', env: FAST_RETRIES });
    const workerEnv = {
      ...api.env,
      ...FAST_RETRIES,
      PROCESS_ROLE: 'worker',
      WEBHOOK_JOB_LOCK_MS: '2000',
    };
    const first = await startServiceProcess(workerEnv);
    let second: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
    try {
      const seller = await anAccount(api).build();
      await registerEndpoint(api, seller.liveKey, receiver, '/slow', ['listing.sold']);
      // The first attempt hangs on the receiver: the worker dies while it is in flight.
      receiver.replyWith('/slow', { status: 200, delayMs: 8_000 });
      const l = (
        await as(api, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
      ).body.data;
      await as(api, seller.liveKey).post(`/v1/listings/${l.id}/sold`).expect(200);
      const [inFlight] = await receiver.waitFor('/slow', 1, 30_000);
      await first.stop('SIGKILL');

      second = await startServiceProcess(workerEnv);
      const requests = await receiver.waitFor('/slow', 2, 30_000);
      expect(requests[1].body.deliveryId).toBe(inFlight.body.deliveryId);
      expect(requests[1].rawBody).toBe(inFlight.rawBody);
      await eventually(async () => {
        const [row] = await api.dataSource.query(
          'SELECT status FROM webhook_deliveries WHERE id = $1',
          [inFlight.body.deliveryId],
        );
        return row.status === 'succeeded';
      });
    } finally {
      await first.stop('SIGKILL');
      await second?.stop();
      await api.close();
      await receiver.close();
    }
  });
});
