import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metrics } from '../../src/platform/metrics/metrics';
import { anAccount, as, TestAccount } from '../support/factories';
import { ImageServer } from '../support/image-server';
import { aListing } from '../support/listing-builder';
import { sampleValue } from '../support/metrics-text';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

/** Large enough that the worker takes many seconds over the backlog. */
const BACKLOG_REQUESTS = 2;
const LISTINGS_PER_REQUEST = 50;
const IMAGES_PER_LISTING = 4;
const BACKLOG = BACKLOG_REQUESTS * LISTINGS_PER_REQUEST * IMAGES_PER_LISTING;

/**
 * Through HTTP with the worker running: an image added by a single request is processed while a
 * bulk backlog (another account's, or its own) still waits, not after it.
 */
describe('Image priority', () => {
  const server = new ImageServer();
  let t: TestApp;
  let dealer: TestAccount;
  let seller: TestAccount;
  let storageDir: string;

  beforeAll(async () => {
    await server.start();
    t = await createTestApp({
      env: {
        STORAGE_DIR: (storageDir = mkdtempSync(join(tmpdir(), 'lsvc-priority-'))),
        IMAGE_CONCURRENCY: '2',
        IMAGE_DISPATCH_EVERY: '50ms',
      },
    });
    dealer = await anAccount(t).build();
    seller = await anAccount(t).build();
  });
  afterAll(async () => {
    await t?.close();
    await server.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const pendingOf = async (account: TestAccount): Promise<number> =>
    (
      await t.dataSource.query(
        `SELECT count(*)::int AS n FROM listing_images WHERE account_id = $1 AND status = 'pending'`,
        [account.id],
      )
    )[0].n;
  const imageOf = async (key: string) =>
    (
      await as(t, key)
        .post('/v1/listings')
        .send(
          aListing()
            .with({ images: [{ url: `${server.base}/photo.jpg` }] })
            .build(),
        )
        .expect(201)
    ).body.data as { id: string; images: { id: string }[] };
  const statusOf = async (key: string, listingId: string) =>
    (await as(t, key).get(`/v1/listings/${listingId}`).expect(200)).body.data.images[0].status;

  it('a single request’s image is ready while a bulk backlog, another account’s or its own, still waits', async () => {
    for (let request = 0; request < BACKLOG_REQUESTS; request++) {
      const items = Array.from({ length: LISTINGS_PER_REQUEST }, () =>
        aListing()
          .with({
            images: Array.from({ length: IMAGES_PER_LISTING }, () => ({
              url: `${server.base}/wide.png`,
            })),
          })
          .build(),
      );
      await as(t, dealer.liveKey).post('/v1/listings/bulk').send({ items }).expect(200);
    }
    const theirs = await imageOf(seller.liveKey);
    const own = await imageOf(dealer.liveKey);

    await eventually(
      async () =>
        (await statusOf(seller.liveKey, theirs.id)) === 'ready' &&
        (await statusOf(dealer.liveKey, own.id)) === 'ready',
      30_000,
      () => 'the single requests’ images were not processed',
    );
    // Most of the backlog still waits: the two were not processed after it.
    expect(await pendingOf(dealer)).toBeGreaterThan(BACKLOG / 2);
    const metrics = await t.app.get(Metrics).registry.metrics();
    expect(sampleValue(metrics, 'images_pending', { priority: 'request' })).toBe(0);
    expect(sampleValue(metrics, 'images_pending', { priority: 'bulk' })).toBeGreaterThan(0);
  });
});
