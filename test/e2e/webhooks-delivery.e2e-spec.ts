import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { EVENT_NAMES, EventName } from '../../src/events/event-types';
import { WebhookDeliverySweeper } from '../../src/webhooks/dispatch/webhook-delivery.sweeper';
import { WebhookFanoutProcessor } from '../../src/webhooks/dispatch/webhook-fanout.processor';
import { DELIVERY_QUEUE } from '../../src/webhooks/dispatch/webhook-queues';
import { emitEvent, sampleEventData } from '../support/events';
import { anAccount, as, TestAccount } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually, expectSignedWebhook, WebhookReceiver } from '../support/webhook-receiver';
import { RegisteredEndpoint as Endpoint, registerEndpoint } from '../support/webhooks';

/** Ten attempts, 100 ms apart: the real schedule's shape in about a second. */
const FAST_SCHEDULE = Array(9).fill('100').join(',');

describe('Webhook delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([
      createTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: FAST_SCHEDULE, WEBHOOK_TIMEOUT_MS: '1000' } }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), receiver.close()]);
  });

  let paths = 0;
  const register = (account: TestAccount, events?: EventName[]) =>
    registerEndpoint(t, account.liveKey, receiver, `/hooks/${++paths}`, events);

  async function endpointOf(account: TestAccount, endpoint: Endpoint) {
    const res = await as(t, account.liveKey).get('/v1/webhooks').expect(200);
    return res.body.data.find((e: { id: string }) => e.id === endpoint.id);
  }

  async function deliveriesOf(account: TestAccount, endpoint: Endpoint) {
    const res = await as(t, account.liveKey)
      .get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`)
      .expect(200);
    return res.body.data as {
      deliveryId: string;
      event: string;
      status: string;
      attempts: number;
      nextAttemptAt: string | null;
      lastAttemptAt: string | null;
      lastResponseStatus: number | null;
      lastError: string | null;
    }[];
  }

  /** Runs `fn` while this app's delivery worker takes no new jobs; fan-out goes on. */
  async function withDeliveriesHeld(fn: (queue: Queue) => Promise<void>): Promise<void> {
    const queue = t.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
    await queue.pause(true);
    try {
      await fn(queue);
    } finally {
      await queue.resume(true);
    }
  }

  /** Lets stray retries arrive, if any were (wrongly) scheduled. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

  it('delivers every event type with its payload, headers and a valid signature', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    const sent = new Map<string, { event: EventName; data: object }>();
    for (const event of EVENT_NAMES) {
      const data = await emitEvent(t, account.id, event);
      sent.set(data.id, { event, data });
    }

    const received = await receiver.waitFor(endpoint.path, sent.size);
    for (const request of received) {
      expectSignedWebhook(request, endpoint.secret);
      const { event, data } = sent.get(request.body.data.id as string)!;
      const [{ id: eventId }] = await t.dataSource.query(
        `SELECT id FROM outbox_events WHERE data->>'id' = $1`,
        [request.body.data.id],
      );
      expect(request.body).toEqual({
        event,
        eventId,
        deliveryId: request.headers['x-service-delivery'],
        timestamp: expect.any(String),
        data,
      });
      expect(Object.keys(request.body)).toEqual([
        'event',
        'eventId',
        'deliveryId',
        'timestamp',
        'data',
      ]);
      expect(request.headers['user-agent']).toMatch(/^ListingsService-Webhooks/);
    }
    // The payload timestamp is the event's, not the attempt's.
    const [{ created_at }] = await t.dataSource.query(
      `SELECT created_at FROM outbox_events WHERE data->>'id' = $1`,
      [received[0].body.data.id],
    );
    expect(received[0].body.timestamp).toBe(created_at.toISOString());
    expect(new Set(received.map((r) => r.body.deliveryId)).size).toBe(sent.size);

    await eventually(async () =>
      (await deliveriesOf(account, endpoint)).every((d) => d.status === 'succeeded'),
    );
  });

  it('sends each endpoint only the events it subscribed to, and only its own account’s', async () => {
    const account = await anAccount(t).build();
    const other = await anAccount(t).build();
    const sold = await register(account, ['listing.sold']);
    const some = await register(account, ['listing.created', 'message.received']);
    const all = await register(account);
    const others = await register(other);

    for (const event of [
      'listing.created',
      'listing.sold',
      'message.received',
      'listing.expired',
    ] as const) {
      await emitEvent(t, account.id, event);
    }
    await receiver.waitFor(all.path, 4);
    await receiver.waitFor(some.path, 2);
    await receiver.waitFor(sold.path, 1);
    await settle();
    const events = (e: Endpoint) =>
      receiver
        .at(e.path)
        .map((r) => r.body.event)
        .sort();
    expect(events(sold)).toEqual(['listing.sold']);
    expect(events(some)).toEqual(['listing.created', 'message.received']);
    expect(events(all)).toEqual([
      'listing.created',
      'listing.expired',
      'listing.sold',
      'message.received',
    ]);
    expect(receiver.at(others.path)).toHaveLength(0);
  });

  it('fails an attempt answered later than the time-out', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    receiver.replyWith(endpoint.path, { status: 200, delayMs: 1_500 });
    const res = await as(t, account.liveKey).post(`/v1/webhooks/${endpoint.id}/test`).expect(200);
    expect(res.body.data).toMatchObject({
      status: 'failed',
      lastResponseStatus: null,
      lastError: 'Timed out after 1000 ms',
    });
    // The record dates from the request that made it, not from when the time-out ended.
    const { createdAt, lastAttemptAt } = res.body.data;
    expect(Date.parse(createdAt)).toBeLessThanOrEqual(Date.parse(lastAttemptAt));
  });

  it('reads at most 64 KB of the answer and keeps that much', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    receiver.replyWith(endpoint.path, { status: 200, body: 'x'.repeat(200_000) });
    const res = await as(t, account.liveKey).post(`/v1/webhooks/${endpoint.id}/test`).expect(200);
    expect(res.body.data.status).toBe('succeeded');
    const [{ length }] = await t.dataSource.query(
      'SELECT length(response_body_excerpt) AS length FROM webhook_deliveries WHERE id = $1',
      [res.body.data.deliveryId],
    );
    expect(length).toBe(64 * 1024);
  });

  it('500, 500, 200: three attempts with the same deliveryId and body, then succeeded', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    receiver.replyWith(endpoint.path, 500, { status: 500, body: 'still down' });
    await emitEvent(t, account.id, 'listing.sold');

    const attempts = await receiver.waitFor(endpoint.path, 3);
    await settle();
    expect(receiver.at(endpoint.path)).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.body.deliveryId)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.rawBody)).size).toBe(1);
    for (const attempt of attempts) expectSignedWebhook(attempt, endpoint.secret);

    await eventually(
      async () => (await deliveriesOf(account, endpoint))[0]?.status === 'succeeded',
    );
    const [delivery] = await deliveriesOf(account, endpoint);
    expect(delivery).toMatchObject({
      deliveryId: attempts[0].body.deliveryId,
      event: 'listing.sold',
      attempts: 3,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    expect((await endpointOf(account, endpoint)).consecutiveFailures).toBe(0);
  });

  it('records the failure and the next attempt time while retrying', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    // The first answer comes slowly enough to read the record between attempts.
    receiver.replyWith(endpoint.path, { status: 503 }, { status: 200, delayMs: 400 });
    await emitEvent(t, account.id, 'listing.updated');
    await receiver.waitFor(endpoint.path, 2);
    const [delivery] = await deliveriesOf(account, endpoint);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastResponseStatus: 503,
      lastError: 'HTTP 503',
    });
    expect(delivery.nextAttemptAt).toEqual(expect.any(String));
    expect((await endpointOf(account, endpoint)).consecutiveFailures).toBe(1);
  });

  it('after an attempt that timed out, shows the next attempt a retry delay after the time-out', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    // Past the 1 s time-out; the retry then answers slowly enough to read the record meanwhile.
    receiver.replyWith(
      endpoint.path,
      { status: 200, delayMs: 1_500 },
      { status: 200, delayMs: 400 },
    );
    await emitEvent(t, account.id, 'listing.updated');
    await receiver.waitFor(endpoint.path, 2);
    const [delivery] = await deliveriesOf(account, endpoint);
    expect(delivery).toMatchObject({ attempts: 1, lastError: 'Timed out after 1000 ms' });
    const shownWait = Date.parse(delivery.nextAttemptAt!) - Date.parse(delivery.lastAttemptAt!);
    // The attempt's 1,000 ms time-out, then the 100 ms delay, as the retry is scheduled.
    expect(shownWait).toBeGreaterThanOrEqual(1_100);
  });

  it('a delivery failing its whole schedule ends every pending delivery of the endpoint; re-enabling starts afresh', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    const first = sampleEventData('listing.updated');
    // The first delivery fails fast; the others answer slowly, so they are mid-schedule when
    // the first one has used up its ten attempts.
    receiver.byDefault(endpoint.path, (request) =>
      request.body.data.id === first.id ? { status: 500 } : { status: 500, delayMs: 400 },
    );
    await emitEvent(t, account.id, 'listing.updated', first);
    for (let i = 0; i < 2; i++) await emitEvent(t, account.id, 'listing.updated');

    await eventually(async () => (await endpointOf(account, endpoint)).isActive === false);
    expect((await endpointOf(account, endpoint)).disabledAt).toEqual(expect.any(String));
    await eventually(async () => (await deliveriesOf(account, endpoint)).length === 3);
    const deliveries = await deliveriesOf(account, endpoint);
    expect(deliveries.map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
    expect(deliveries.every((d) => d.nextAttemptAt === null)).toBe(true);
    const exhausted = deliveries.find((d) => d.attempts === 10)!;
    expect(exhausted.lastError).toBe('HTTP 500');
    for (const ended of deliveries.filter((d) => d !== exhausted)) {
      expect(ended.attempts).toBeLessThan(10);
      // An attempt in flight when the endpoint was disabled records its own answer on the ended
      // delivery (how often depends on the machine's load); otherwise the disable's reason shows.
      expect(ended.lastError).toMatch(
        /^(HTTP 500|.*Endpoint disabled: a delivery failed all of its attempts)$/,
      );
    }
    // Jobs of the ended deliveries still in the queue run and send nothing.
    const afterDisable = receiver.at(endpoint.path).length;
    await settle();
    expect(receiver.at(endpoint.path)).toHaveLength(afterDisable);

    // Events while disabled are not delivered, now or later.
    await emitEvent(t, account.id, 'listing.sold');
    await settle();
    expect(receiver.at(endpoint.path)).toHaveLength(afterDisable);

    receiver.byDefault(endpoint.path, 200);
    const enabled = await as(t, account.liveKey)
      .patch(`/v1/webhooks/${endpoint.id}`)
      .send({ isActive: true })
      .expect(200);
    expect(enabled.body.data).toMatchObject({
      isActive: true,
      consecutiveFailures: 0,
      disabledAt: null,
    });
    const data = await emitEvent(t, account.id, 'listing.favorited');
    await receiver.waitFor(endpoint.path, afterDisable + 1);
    expect(receiver.at(endpoint.path).at(-1)!.body.data.id).toBe(data.id);
    await eventually(async () => (await deliveriesOf(account, endpoint))[0].status === 'succeeded');
  });

  it('a burst of failures during a short outage disables nothing: every delivery is retried and arrives', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    // The outage: the next 50 requests fail, whichever deliveries they belong to.
    receiver.replyWith(endpoint.path, ...Array<number>(50).fill(503));
    await withDeliveriesHeld(async () => {
      for (let i = 0; i < 50; i++) await emitEvent(t, account.id, 'listing.updated');
      await eventually(async () => (await deliveriesOf(account, endpoint)).length === 50);
    });

    await receiver.waitFor(endpoint.path, 100);
    await eventually(async () =>
      (await deliveriesOf(account, endpoint)).every((d) => d.status === 'succeeded'),
    );
    const deliveries = await deliveriesOf(account, endpoint);
    expect(deliveries.reduce((n, d) => n + d.attempts, 0)).toBe(100);
    expect(await endpointOf(account, endpoint)).toMatchObject({
      isActive: true,
      disabledAt: null,
      consecutiveFailures: 0,
    });
  });

  it('a paused endpoint receives nothing more; its queued retries end without a request', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    receiver.replyWith(endpoint.path, 500);
    await withDeliveriesHeld(async () => {
      await emitEvent(t, account.id, 'listing.created');
      // The first attempt (made by the fan-out) failed; its retry waits in the held queue.
      await eventually(async () => (await deliveriesOf(account, endpoint))[0]?.attempts === 1);
      await as(t, account.liveKey)
        .patch(`/v1/webhooks/${endpoint.id}`)
        .send({ isActive: false })
        .expect(200);
      await emitEvent(t, account.id, 'listing.created');
    });
    await eventually(async () => (await deliveriesOf(account, endpoint))[0].status === 'failed');
    await settle();
    const deliveries = await deliveriesOf(account, endpoint);
    // The event after the pause made no delivery at all.
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      attempts: 1,
      lastError: 'HTTP 500; Endpoint is disabled',
    });
    expect(receiver.at(endpoint.path)).toHaveLength(1);
  });

  it('never doubles a delivery when an event is relayed or fanned out again', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    const data = await emitEvent(t, account.id, 'listing.sold');
    await receiver.waitFor(endpoint.path, 1);
    await eventually(
      async () => (await deliveriesOf(account, endpoint))[0]?.status === 'succeeded',
    );

    const [{ id: eventId }] = await t.dataSource
      .query(`UPDATE outbox_events SET relayed_at = NULL WHERE data->>'id' = $1 RETURNING id`, [
        data.id,
      ])
      .then(([rows]: [{ id: string }[]]) => rows);
    await t.app.get(WebhookFanoutProcessor).process({ data: { eventId } } as never, 'interactive');
    await eventually(async () => {
      const [row] = await t.dataSource.query('SELECT relayed_at FROM outbox_events WHERE id = $1', [
        eventId,
      ]);
      return row.relayed_at !== null;
    });
    await settle();
    expect(receiver.at(endpoint.path)).toHaveLength(1);
    expect(await deliveriesOf(account, endpoint)).toHaveLength(1);
  });

  it('re-queues a pending delivery whose job was lost, under the same deliveryId', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    // A failed first attempt leaves a retry job, which is then lost.
    receiver.replyWith(endpoint.path, 500);
    await withDeliveriesHeld(async (queue) => {
      await emitEvent(t, account.id, 'listing.expired');
      await eventually(async () => (await deliveriesOf(account, endpoint))[0]?.attempts === 1);
      const [{ deliveryId }] = await deliveriesOf(account, endpoint);
      await eventually(async () => (await queue.getJob(deliveryId)) !== null);
      // What Redis losing its data looks like from here: the record says pending, no job exists.
      await (await queue.getJob(deliveryId))!.remove();
    });
    const sweeper = t.app.get(WebhookDeliverySweeper);
    // Once the retry falls due, the sweep finds it without a job.
    await eventually(async () => (await sweeper.sweep(0)) === 1);
    const [, request] = await receiver.waitFor(endpoint.path, 2);
    expect(request.body.deliveryId).toBe((await deliveriesOf(account, endpoint))[0].deliveryId);
    await eventually(async () => (await deliveriesOf(account, endpoint))[0].status === 'succeeded');
    expect(await sweeper.sweep(0)).toBe(0);
  });

  it('fans out again a relayed event whose fan-out job was lost', async () => {
    const account = await anAccount(t).build();
    const endpoint = await register(account);
    // What Redis losing the fan-out job looks like from here: relayed, never fanned out, no job.
    const [{ id: eventId }] = await t.dataSource.query(
      `INSERT INTO outbox_events (account_id, event, data, relayed_at)
       VALUES ($1, 'listing.sold', $2, now() - interval '1 minute') RETURNING id`,
      [account.id, JSON.stringify(sampleEventData('listing.sold'))],
    );
    await t.app.get(WebhookDeliverySweeper).sweep(0);
    const [request] = await receiver.waitFor(endpoint.path, 1);
    expect(request.body).toMatchObject({ event: 'listing.sold' });
    const [row] = await t.dataSource.query(
      'SELECT fanned_out_at FROM outbox_events WHERE id = $1',
      [eventId],
    );
    expect(row.fanned_out_at).not.toBeNull();
    await t.app.get(WebhookDeliverySweeper).sweep(0);
    await settle();
    expect(receiver.at(endpoint.path)).toHaveLength(1);
  });

  it('queues a whole backlog of lost fan-outs again in one sweep, page after page', async () => {
    const account = await anAccount(t).build();
    // 1,200 events whose fan-out jobs Redis lost, relayed in one instant: more than a page (500),
    // and pages must neither repeat nor skip rows that share their time.
    const ids: string[] = (
      await t.dataSource.query(
        `INSERT INTO outbox_events (account_id, event, data, relayed_at)
         SELECT $1, 'listing.sold', $2, now() - interval '1 minute' FROM generate_series(1, 1200)
         RETURNING id`,
        [account.id, JSON.stringify(sampleEventData('listing.sold'))],
      )
    ).map((r: { id: string }) => r.id);
    // A grace of 30 s: what the fan-outs make meanwhile is not overdue itself.
    await t.app.get(WebhookDeliverySweeper).sweep(30_000);
    // One sweep queued them all: every one is fanned out, with no sweep after it.
    await eventually(async () => {
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM outbox_events WHERE id = ANY($1) AND fanned_out_at IS NOT NULL`,
        [ids],
      );
      return n === 1200;
    });
  });
});
