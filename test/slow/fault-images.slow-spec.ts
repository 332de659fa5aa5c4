import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { anAccount, TestAccount } from '../support/factories';
import { ImageServer } from '../support/image-server';
import { aListing } from '../support/listing-builder';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { TestApp, testEnv } from '../support/test-app';
import { createTestDatabase, databaseUrl, newRedisPrefix } from '../support/test-database';

const LISTINGS = 50;
const IMAGES_PER_LISTING = 10;
const IMAGES = LISTINGS * IMAGES_PER_LISTING;

/** The factories speak HTTP through `http()` only; this points them at the API process. */
const through = (api: ServiceProcess) => ({ http: () => request(api.baseUrl) }) as TestApp;

type States = Record<'pending' | 'ready' | 'failed', number>;

/**
 * [fault] A worker killed (SIGKILL) during a burst of 500 URL images: another worker takes over
 * the dead one's images (its Bull jobs stall, its database claims lapse after IMAGE_LEASE), and
 * every image ends ready with its three files, none left pending.
 */
describe('[fault] images: the worker killed during a burst', () => {
  let storageDir: string;
  let env: Record<string, string | undefined>;
  let db: Client;
  let api: ServiceProcess | undefined;
  const images = new ImageServer();
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    await images.start();
    storageDir = mkdtempSync(join(tmpdir(), 'lsvc-fault-images-'));
    const databaseName = await createTestDatabase();
    env = testEnv(databaseName, newRedisPrefix(), {
      STORAGE_DIR: storageDir,
      IMAGE_CONCURRENCY: '2',
      IMAGE_LEASE: '3s',
      IMAGE_DISPATCH_EVERY: '200ms',
    });
    db = new Client({ connectionString: databaseUrl(databaseName) });
    await db.connect();
    // The API never processes images, whatever its IMAGE_CONCURRENCY.
    api = await startServiceProcess({ ...env, PROCESS_ROLE: 'api' });
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) await worker.stop('SIGKILL');
    await api?.stop();
    await db?.end();
    await images.stop();
    if (storageDir) rmSync(storageDir, { recursive: true, force: true });
  });

  const states = async (accountId: string): Promise<States> => {
    const { rows } = await db.query<{ status: keyof States; n: number }>(
      `SELECT i.status, count(*)::int AS n FROM listing_images i
       JOIN listings l ON l.id = i.listing_id WHERE l.account_id = $1 GROUP BY i.status`,
      [accountId],
    );
    return {
      pending: 0,
      ready: 0,
      failed: 0,
      ...Object.fromEntries(rows.map((r) => [r.status, r.n])),
    };
  };

  async function until(accountId: string, done: (s: States) => boolean, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await states(accountId);
      if (done(current)) return current;
      if (Date.now() > deadline)
        throw new Error(`timed out; images are ${JSON.stringify(current)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const startWorker = async () => {
    const worker = await startServiceProcess({ ...env, PROCESS_ROLE: 'worker' });
    workers.push(worker);
    return worker;
  };

  it('ends every one of 500 images ready with its renditions, none pending', async () => {
    const seller: TestAccount = await anAccount(through(api!)).build();
    // A 640×320 PNG, ten per listing under distinct URLs: each row is fetched and rendered (its
    // three files written), at a fifth of a 2000×1000 source's CPU.
    const items = Array.from({ length: LISTINGS }, (_, l) =>
      aListing()
        .with({
          images: Array.from({ length: IMAGES_PER_LISTING }, (_, order) => ({
            url: `${images.base}/small.png?n=${l * IMAGES_PER_LISTING + order}`,
            order,
          })),
        })
        .build(),
    );
    const first = await startWorker();
    await request(api!.baseUrl)
      .post('/v1/listings/bulk')
      .set('Authorization', `Bearer ${seller.liveKey}`)
      .send({ items })
      .expect(200);
    const { rows: before } = await db.query<{ id: string; updated_at: Date }>(
      `SELECT id, updated_at FROM listings WHERE account_id = $1 ORDER BY id`,
      [seller.id],
    );
    expect(before).toHaveLength(LISTINGS);

    // Part-way: some images done, most still owed.
    const atKill = await until(seller.id, (s) => s.ready >= 20 || s.pending === 0, 120_000);
    process.kill(first.child.pid!, 'SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(atKill.pending).toBeGreaterThan(0);

    // No worker now: the dead one's claims lapse (IMAGE_LEASE 3 s), yet the API, though its
    // IMAGE_CONCURRENCY is 2, fetches nothing and the images wait.
    const fetched = images.hits.get('/small.png');
    const waiting = await states(seller.id);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(images.hits.get('/small.png')).toBe(fetched);
    expect(await states(seller.id)).toEqual(waiting);

    await startWorker();
    const end = await until(seller.id, (s) => s.pending === 0, 240_000);
    expect(end).toEqual({ pending: 0, ready: IMAGES, failed: 0 });

    // Each image has its three renditions on disk and in the stored JSON the list pages send.
    const { rows: files } = await db.query<{ keys: string[] }>(
      `SELECT i.rendition_keys AS keys FROM listing_images i
       JOIN listings l ON l.id = i.listing_id WHERE l.account_id = $1`,
      [seller.id],
    );
    expect(files.filter((f) => f.keys?.length !== 3)).toEqual([]);
    const missing = files
      .flatMap((f) => f.keys)
      .filter((key) => !existsSync(join(storageDir, key)));
    expect(missing).toEqual([]);
    // The killed worker's unfinished runs leave no file behind: every file in storage is named
    // (the run that ends an image deletes another run's files just after its commit).
    const named = new Set(files.flatMap((f) => f.keys));
    const unnamed = () => readdirSync(storageDir).filter((file) => !named.has(file));
    const deadline = Date.now() + 10_000;
    while (unnamed().length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unnamed()).toEqual([]);
    const { rows: rendered } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM listings l, json_array_elements(l.rendered::json->'images') AS i
       WHERE l.account_id = $1 AND i->>'status' = 'ready' AND i->'variants'->>'thumb' IS NOT NULL`,
      [seller.id],
    );
    expect(rendered[0].n).toBe(IMAGES);

    // Processing is derived data: no listing's updatedAt moved, no event beyond the creates.
    const { rows: after } = await db.query<{ id: string; updated_at: Date }>(
      `SELECT id, updated_at FROM listings WHERE account_id = $1 ORDER BY id`,
      [seller.id],
    );
    expect(after).toEqual(before);
    const { rows: events } = await db.query<{ event: string; n: number }>(
      `SELECT event, count(*)::int AS n FROM outbox_events WHERE account_id = $1 GROUP BY event`,
      [seller.id],
    );
    expect(events).toEqual([{ event: 'listing.created', n: LISTINGS }]);
  }, 420_000);
});
