import { ModulesContainer } from '@nestjs/core';
import { FeedPositioner } from '../../src/events/feed-positioner';
import { ImageJobProcessor } from '../../src/images/pipeline/image-job.processor';
import { ImportProcessor } from '../../src/imports/import.processor';
import { PeriodicJobs } from '../../src/platform/scheduling/periodic-jobs';
import { OutboxRelay } from '../../src/webhooks/dispatch/outbox-relay';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { registerEndpoint } from '../support/webhooks';
import { eventually, WebhookReceiver } from '../support/webhook-receiver';

const LINES = 2_000;

/**
 * One account's import floods its endpoint with listing events (the bulk lane) while the
 * receiver takes 20 ms per request and the worker sends 4 at a time: its backlog takes about
 * ten seconds to drain. Sales and the import's own end (interactive) must not wait behind it.
 */
describe('Webhook lanes: interactive events never wait behind an import backlog', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let a: TestAccount;
  let b: TestAccount;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.byDefault('/a', { status: 200, delayMs: 20 });
    t = await createTestApp({ env: { WEBHOOK_WORKER_CONCURRENCY: '4' } });
    [a, b] = [await anAccount(t).build(), await anAccount(t).build()];
    await registerEndpoint(t, a.liveKey, receiver, '/a');
    await registerEndpoint(t, b.liveKey, receiver, '/b', ['listing.sold']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const listingEventsAtA = () =>
    receiver.at('/a').filter((r) => r.body.event === 'listing.created').length;
  const arrivedAt = (path: string, event: string, id?: string) =>
    receiver.at(path).findIndex((r) => r.body.event === event && (!id || r.body.data.id === id));
  const createListing = async (account: TestAccount) =>
    (await as(t, account.liveKey).post('/v1/listings').send(aListing().build()).expect(201)).body
      .data.id as string;

  it("delivers another account's sale, the importer's own sale and its import.finished first", async () => {
    const aListingId = await createListing(a);
    const bListingId = await createListing(b);
    await receiver.waitFor('/a', 1); // A's own listing.created, before the import

    const file =
      Array.from({ length: LINES }, (_, i) =>
        JSON.stringify(
          aListing()
            .with({ externalId: `lane-${i}` })
            .build(),
        ),
      ).join('\n') + '\n';
    const created = await as(t, a.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(file)
      .expect(202);
    // The import has written every line; most of its events are still to be delivered.
    await eventually(async () => {
      const res = await as(t, a.liveKey).get(`/v1/imports/${created.body.data.id}`).expect(200);
      return res.body.data.status === 'succeeded';
    }, 60_000);
    const backlogAtSale = LINES + 1 - listingEventsAtA();
    expect(backlogAtSale).toBeGreaterThan(LINES / 2);

    await as(t, b.liveKey).post(`/v1/listings/${bListingId}/sold`).expect(200);
    await as(t, a.liveKey).post(`/v1/listings/${aListingId}/sold`).expect(200);
    await receiver.waitFor('/b', 1);
    await eventually(() => arrivedAt('/a', 'listing.sold', aListingId) >= 0, 15_000);

    // Both sales, and the import's end, arrived while most of A's listing events still waited.
    const stillWaiting = LINES + 1 - listingEventsAtA();
    expect(stillWaiting).toBeGreaterThan(LINES / 4);
    expect(arrivedAt('/a', 'import.finished')).toBeGreaterThanOrEqual(0);
    expect(arrivedAt('/a', 'import.finished')).toBeLessThan(LINES / 2);
    expect(receiver.at('/b').map((r) => r.body.data.id)).toEqual([bListingId]);

    // Nothing lost, nothing doubled, once the backlog drains.
    await eventually(() => listingEventsAtA() === LINES + 1, 150_000);
    const ids = receiver.at('/a').map((r) => r.body.deliveryId);
    expect(new Set(ids).size).toBe(ids.length);
    // Room for its own waits (60 s, 15 s, 150 s): the drain of 2,000 deliveries is slow when
    // other suites share the machine; only its completeness is asserted.
  }, 240_000);
});

/** Whether any module of the app provides `type`. */
const provides = (t: TestApp, type: object) =>
  [...t.app.get(ModulesContainer).values()].some((m) => m.providers.has(type as never));

/**
 * Deployed with a worker per lane (docker-compose): the interactive worker relays and delivers
 * sales and does nothing else; the bulk worker runs imports, renders, the feed positioner and the
 * periodic jobs, and delivers the import's events.
 */
describe('Webhook lanes: a worker per lane', () => {
  let api: TestApp;
  const workers: TestApp[] = [];
  let receiver: WebhookReceiver;
  let a: TestAccount;

  const worker = (lanes: string) =>
    createTestApp({
      role: 'worker',
      databaseName: api.databaseName,
      redisPrefix: api.redisPrefix,
      env: { WORKER_LANES: lanes },
    });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    api = await createTestApp({ role: 'api' });
    workers.push(await worker('interactive'));
    a = await anAccount(api).build();
    await registerEndpoint(api, a.liveKey, receiver, '/a');
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await api?.close();
    await receiver?.close();
  });

  it('leaves imports, image renders, the feed positioner and the periodic jobs out of an interactive-only worker', () => {
    expect(provides(workers[0], OutboxRelay)).toBe(true);
    for (const background of [ImportProcessor, ImageJobProcessor, FeedPositioner, PeriodicJobs])
      expect(provides(workers[0], background)).toBe(false);
  });

  it('delivers a sale from the interactive worker, and the import waits for a bulk worker', async () => {
    const listingId = (
      await as(api, a.liveKey).post('/v1/listings').send(aListing().build()).expect(201)
    ).body.data.id as string;
    const file = [0, 1, 2]
      .map((i) =>
        JSON.stringify(
          aListing()
            .with({ externalId: `split-${i}` })
            .build(),
        ),
      )
      .join('\n');
    const created = await as(api, a.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(file)
      .expect(202);
    await as(api, a.liveKey).post(`/v1/listings/${listingId}/sold`).expect(200);
    await eventually(() => receiver.at('/a').some((r) => r.body.event === 'listing.sold'), 15_000);
    // A second on: an import would have started within milliseconds had this worker run them.
    await new Promise((r) => setTimeout(r, 1_000));
    const importId = created.body.data.id as string;
    const status = async () =>
      (await as(api, a.liveKey).get(`/v1/imports/${importId}`).expect(200)).body.data.status;
    expect(await status()).toBe('queued');

    workers.push(await worker('bulk'));
    for (const background of [ImportProcessor, ImageJobProcessor, FeedPositioner, PeriodicJobs])
      expect(provides(workers[1], background)).toBe(true);
    await eventually(async () => (await status()) === 'succeeded', 30_000);
    const imported = () =>
      receiver
        .at('/a')
        .filter(
          (r) =>
            r.body.event === 'listing.created' &&
            String(r.body.data.externalId).startsWith('split-'),
        );
    await eventually(() => imported().length === 3, 15_000);
    const ids = receiver.at('/a').map((r) => r.body.deliveryId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
