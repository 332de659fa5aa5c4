import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Metrics } from '../../src/platform/metrics/metrics';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { ImageServer } from '../support/image-server';
import { png, rawBytes } from '../support/images';
import { aListing } from '../support/listing-builder';
import { sampleValue } from '../support/metrics-text';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

interface Image {
  id: string;
  url: string;
  order: number;
  status: 'pending' | 'ready' | 'failed';
  width: number | null;
  height: number | null;
  variants: { thumb: string; medium: string; large: string } | null;
  error: { reason: string; message: string } | null;
}

/**
 * The image pipeline through HTTP, with the worker running in the test app: images answer at
 * once as pending, then become ready (renditions served as immutable WebP) or failed with a
 * reason; failed ones can be retried and found with imageStatus.
 */
describe('Image pipeline', () => {
  const server = new ImageServer();
  let t: TestApp;
  let seller: TestAccount;
  let other: TestAccount;
  let storageDir: string;

  beforeAll(async () => {
    await server.start();
    t = await createTestApp({
      env: {
        STORAGE_DIR: (storageDir = mkdtempSync(join(tmpdir(), 'lsvc-pipeline-'))),
        IMAGE_CONCURRENCY: '2',
        IMAGE_DISPATCH_EVERY: '50ms',
      },
    });
    seller = await anAccount(t).build();
    other = await anAccount(t).build();
  });
  afterAll(async () => {
    await t?.close();
    await server.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const live = () => as(t, seller.liveKey);
  const create = async (paths: string[]) =>
    (
      await live()
        .post('/v1/listings')
        .send(
          aListing()
            .with({ images: paths.map((p) => ({ url: `${server.base}${p}` })) })
            .build(),
        )
        .expect(201)
    ).body.data as { id: string; images: Image[] };
  const imagesOf = async (id: string) =>
    (await live().get(`/v1/listings/${id}`).expect(200)).body.data.images as Image[];
  /** The gallery once no image of it is pending. */
  const settled = async (id: string): Promise<Image[]> => {
    let images: Image[] = [];
    await eventually(
      async () => (images = await imagesOf(id)).every((image) => image.status !== 'pending'),
      30_000,
      () => `images still pending: ${JSON.stringify(images)}`,
    );
    return images;
  };
  const mediaPath = (url: string) => new URL(url).pathname;

  it('a URL image answers pending at once, then is ready with renditions served as immutable WebP', async () => {
    const listing = await create(['/wide.png']);
    expect(listing.images).toEqual([
      {
        id: expect.any(String),
        url: `${server.base}/wide.png`,
        order: 0,
        status: 'pending',
        width: null,
        height: null,
        variants: null,
        error: null,
      },
    ]);
    const [image] = await settled(listing.id);
    expect(image).toMatchObject({ status: 'ready', width: 2000, height: 1000, error: null });
    const sizes: [string, number][] = [
      ['thumb', 320],
      ['medium', 960],
      ['large', 1600],
    ];
    for (const [name, longest] of sizes) {
      const url = image.variants![name as keyof Image['variants'] & string];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1\/media\/[0-9a-f-]+-[0-9a-f]+-\w+\.webp$/);
      const res = await t.http().get(mediaPath(url)).buffer(true).parse(rawBytes).expect(200);
      expect(res.headers['content-type']).toBe('image/webp');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(await sharp(res.body as Buffer).metadata()).toMatchObject({
        format: 'webp',
        width: longest,
        height: longest / 2,
      });
    }
    // The list page shows the same record as GET by id.
    const page = (await live().get('/v1/listings?limit=100').expect(200)).body.data as {
      id: string;
      images: Image[];
    }[];
    expect(page.find((l) => l.id === listing.id)!.images).toEqual([image]);
    const metrics = await t.app.get(Metrics).registry.metrics();
    expect(sampleValue(metrics, 'images_processed_total', { outcome: 'ready' })).toBeGreaterThan(0);

    // Its files go with the image.
    await live().delete(`/v1/listings/${listing.id}/images/${image.id}`).expect(200);
    for (const url of Object.values(image.variants!))
      expectError(await t.http().get(mediaPath(url)), 404, 'NOT_FOUND');
  });

  it('an upload is ready too; adding a URL image answers 201 at once, pending', async () => {
    const listing = await create([]);
    const uploaded = await live()
      .post(`/v1/listings/${listing.id}/images`)
      .attach('file', await png(40, 30), 'a.png')
      .expect(201);
    expect(uploaded.body.data).toMatchObject({ status: 'pending', variants: null });
    const added = await live()
      .post(`/v1/listings/${listing.id}/images`)
      .send({ url: `${server.base}/photo.jpg` })
      .expect(201);
    expect(added.body.data).toMatchObject({ order: 1, status: 'pending', width: null });
    const images = await settled(listing.id);
    expect(images.map((i) => [i.status, i.width, i.height])).toEqual([
      ['ready', 40, 30],
      ['ready', 32, 64],
    ]);
  });

  it('a bad URL ends failed with its reason; retry queues it again (202), and it can then succeed', async () => {
    const listing = await create(['/later.jpg', '/page.html', '/photo.jpg']);
    const [later, page, photo] = await settled(listing.id);
    expect(later).toMatchObject({
      status: 'failed',
      variants: null,
      error: { reason: 'http_error', message: 'The URL answered HTTP 404.' },
    });
    expect(page).toMatchObject({ status: 'failed', error: { reason: 'not_an_image' } });
    expect(photo.status).toBe('ready');

    // Findable: listings with a failed image, and only those.
    const failed = (await live().get('/v1/listings?imageStatus=failed&limit=100').expect(200)).body;
    expect(failed.data.map((l: { id: string }) => l.id)).toContain(listing.id);
    for (const l of failed.data as { images: Image[] }[])
      expect(l.images.some((i) => i.status === 'failed')).toBe(true);
    expect(failed.pagination.total).toBe(failed.data.length);

    server.laterReady = true;
    const retried = await live()
      .post(`/v1/listings/${listing.id}/images/${later.id}/retry`)
      .expect(202);
    expect(retried.body.data).toEqual({ ...later, status: 'pending', error: null });
    const [again] = await settled(listing.id);
    expect(again).toMatchObject({ id: later.id, status: 'ready', width: 32, height: 64 });
  });

  it('retry refuses an image that is not failed (400 on status) and another account’s (404)', async () => {
    const listing = await create(['/photo.jpg']);
    const [ready] = await settled(listing.id);
    const refused = await live()
      .post(`/v1/listings/${listing.id}/images/${ready.id}/retry`)
      .expect(400);
    expect(expectError(refused, 400, 'VALIDATION_ERROR').details).toEqual([
      { field: 'status', message: 'Only a failed image can be retried; this one is ready.' },
    ]);
    expectError(
      await as(t, other.liveKey)
        .post(`/v1/listings/${listing.id}/images/${ready.id}/retry`)
        .expect(404),
      404,
      'NOT_FOUND',
    );
    const elsewhere = await create([]);
    expectError(
      await live().post(`/v1/listings/${elsewhere.id}/images/${ready.id}/retry`).expect(404),
      404,
      'NOT_FOUND',
    );
    // The read scope is not enough.
    const readOnly = await createKey(t, seller.id, { kind: 'live', scopes: ['listings:read'] });
    expectError(
      await as(t, readOnly).post(`/v1/listings/${listing.id}/images/${ready.id}/retry`).expect(403),
      403,
      'FORBIDDEN',
    );
  });

  it('imageStatus=pending finds listings still processing; a bad value is a 400 naming imageStatus', async () => {
    // /held.jpg answers only when released: the image stays pending meanwhile.
    let release!: () => void;
    let arrived!: () => void;
    const request = new Promise<void>((resolve) => (arrived = resolve));
    server.held = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
    const waiting = await live()
      .post('/v1/listings')
      .send(
        aListing()
          .with({ images: [{ url: `${server.base}/held.jpg` }] })
          .build(),
      )
      .expect(201);
    try {
      const pending = (await live().get('/v1/listings?imageStatus=pending&limit=100').expect(200))
        .body.data as { id: string }[];
      expect(pending.map((l) => l.id)).toContain(waiting.body.data.id);
      await request;
    } finally {
      release();
    }
    await settled(waiting.body.data.id);
    const after = (await live().get('/v1/listings?imageStatus=pending&limit=100').expect(200)).body
      .data as { id: string }[];
    expect(after.map((l) => l.id)).not.toContain(waiting.body.data.id);

    const bad = await live().get('/v1/listings?imageStatus=ready').expect(400);
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(bad)).toEqual(['imageStatus']);
  });

  it('importing the same feed again fetches nothing, and a changed line with the same URL keeps its image', async () => {
    const line = (title: string) =>
      JSON.stringify(
        aListing()
          .with({
            externalId: 'feed-img-1',
            title,
            images: [{ url: `${server.base}/photo.jpg?feed=1` }],
          })
          .build(),
      ) + '\n';
    const runImport = async (body: string) => {
      const id: string = (
        await live()
          .post('/v1/imports')
          .set('Content-Type', 'application/x-ndjson')
          .send(body)
          .expect(202)
      ).body.data.id;
      let view: { status: string; counts: Record<string, number> } | undefined;
      await eventually(
        async () => {
          view = (await live().get(`/v1/imports/${id}`).expect(200)).body.data;
          return !['queued', 'running'].includes(view!.status);
        },
        30_000,
        () => `import still ${JSON.stringify(view)}`,
      );
      return view!;
    };
    expect((await runImport(line('Volvo V70 i lager'))).counts.created).toBe(1);
    const [listing] = (await live().get('/v1/listings?externalId=feed-img-1').expect(200)).body
      .data as { id: string }[];
    const listingId = listing.id;
    const [first] = await settled(listingId);
    expect(first.status).toBe('ready');
    const fetches = server.hits.get('/photo.jpg');

    const again = await runImport(line('Volvo V70 i lager'));
    expect(again).toMatchObject({ status: 'succeeded', counts: { unchanged: 1 } });
    const changed = await runImport(line('Volvo V70 i lager, nytt pris'));
    expect(changed).toMatchObject({ status: 'succeeded', counts: { updated: 1 } });
    expect(await imagesOf(listingId)).toEqual([first]);
    expect(server.hits.get('/photo.jpg')).toBe(fetches);
  });
});
