import sharp from 'sharp';
import { storageConfig } from '../../src/platform/config/storage.config';
import { expectError } from '../support/envelope';
import { anAccount, as, TestAccount } from '../support/factories';
import { jpegWithGps, png, rawBytes } from '../support/images';
import { aListing } from '../support/listing-builder';
import { TestS3Server } from '../support/s3-server';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

describe('Images on S3-compatible object storage', () => {
  let s3: TestS3Server;
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    s3 = await TestS3Server.start();
    t = await createTestApp({ env: s3.env });
    seller = await anAccount(t).build();
  });
  afterAll(async () => {
    await t.close();
    await s3.close();
  });

  const live = () => as(t, seller.liveKey);
  const upload = async (listingId: string, file: Buffer, name: string) =>
    (await live().post(`/v1/listings/${listingId}/images`).attach('file', file, name).expect(201))
      .body.data as { id: string; url: string };
  const newListing = async () =>
    (await live().post('/v1/listings').send(aListing().build()).expect(201)).body.data as {
      id: string;
    };

  it('stores an upload in the bucket and streams it from /media with the caching headers', async () => {
    const listing = await newListing();
    const image = await upload(listing.id, await jpegWithGps(64, 32), 'IMG_0001.JPG');
    const path = new URL(image.url).pathname;
    expect(path).toMatch(/^\/media\/[0-9a-f-]{36}\.jpg$/);
    const key = path.slice('/media/'.length);

    // Stored under the service's prefix (S3_PREFIX, default media/), not at the bucket's top.
    const stored = await s3.object(`media/${key}`);
    expect(stored.status).toBe(200);
    expect((await s3.object(key)).status).toBe(404);
    expect(stored.headers.get('content-type')).toBe('image/jpeg');

    const served = await t.http().get(path).buffer(true).parse(rawBytes).expect(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.headers.etag).toBeDefined();
    expect(served.headers['last-modified']).toBeDefined();
    expect(Buffer.compare(served.body as Buffer, Buffer.from(await stored.arrayBuffer()))).toBe(0);
    const meta = await sharp(served.body as Buffer).metadata();
    expect([meta.width, meta.height]).toEqual([32, 64]);

    // A cache revalidating with the ETag gets 304 and no body.
    await t.http().get(path).set('If-None-Match', served.headers.etag).expect(304);
    const head = await t.http().head(path).expect(200);
    expect(head.headers['content-length']).toBe(String((served.body as Buffer).length));
  });

  it('removes the object when the image is deleted; /media then answers 404 in the envelope', async () => {
    const listing = await newListing();
    const image = await upload(listing.id, await png(), 'a.png');
    const path = new URL(image.url).pathname;
    await t.http().get(path).expect(200);
    await live().delete(`/v1/listings/${listing.id}/images/${image.id}`).expect(200);
    expect((await s3.object(`media/${path.slice('/media/'.length)}`)).status).toBe(404);
    expectError(await t.http().get(path), 404, 'NOT_FOUND');
  });

  it('answers 404 for a key that was never stored or is not a key', async () => {
    expectError(
      await t.http().get('/media/00000000-0000-4000-8000-000000000000.jpg'),
      404,
      'NOT_FOUND',
    );
    expectError(await t.http().get('/media/..%2Fsecret'), 404, 'NOT_FOUND');
    // A key that is not valid percent-encoding names nothing: 404, never a server error.
    expectError(await t.http().get('/media/%E0%A4%A.jpg'), 404, 'NOT_FOUND');
  });

  it('serves nothing of a shared bucket outside its prefix, whatever the path', async () => {
    const secret = '11111111-1111-4111-8111-111111111111.jpg';
    await s3.put(secret, 'not the service’s');
    await s3.put(`other/${secret}`, 'not the service’s');
    await s3.put(`mediax/${secret}`, 'not the service’s');
    expect((await s3.object(secret)).status).toBe(200);
    for (const path of [
      `/media/${secret}`,
      `/media/other%2F${secret}`,
      `/media/..%2F${secret}`,
      `/media/..%2Fother%2F${secret}`,
      `/media/%2E%2E%2F${secret}`,
      `/media/%2F${secret}`,
      `/media/x%2F..%2F..%2F${secret}`,
      `/media/..`,
      `/media/a..jpg`,
    ]) {
      expectError(await t.http().get(path), 404, 'NOT_FOUND');
      await t.http().head(path).expect(404);
    }
    // Put under the prefix, the same object is the service's to serve.
    await s3.put(`media/${secret}`, 'stored by the service');
    await t.http().get(`/media/${secret}`).expect(200);
  });

  it('keeps each instance to its own S3_PREFIX in one bucket', async () => {
    const other = await createTestApp({
      databaseName: t.databaseName,
      redisPrefix: t.redisPrefix,
      env: { ...s3.env, S3_PREFIX: 'tenant-b/images/' },
    });
    try {
      const listing = await newListing();
      const ours = new URL((await upload(listing.id, await png(), 'c.png')).url).pathname;
      const theirs = new URL(
        (
          await as(other, seller.liveKey)
            .post(`/v1/listings/${listing.id}/images`)
            .attach('file', await png(), 'd.png')
            .expect(201)
        ).body.data.url,
      ).pathname;
      expect((await s3.object(`tenant-b/images/${theirs.slice(7)}`)).status).toBe(200);
      await other.http().get(theirs).expect(200);
      await t.http().get(ours).expect(200);
      // Each reads only under its own prefix.
      expectError(await other.http().get(ours), 404, 'NOT_FOUND');
      expectError(await t.http().get(theirs), 404, 'NOT_FOUND');
    } finally {
      await other.close();
    }
  });

  it('redirects /media to MEDIA_PUBLIC_BASE_URL when the bucket is served publicly', async () => {
    const cdn = await createTestApp({
      databaseName: t.databaseName,
      redisPrefix: t.redisPrefix,
      env: { ...s3.env, MEDIA_PUBLIC_BASE_URL: 'https://cdn.example.com/images/' },
    });
    try {
      const listing = await newListing();
      const image = await upload(listing.id, await png(), 'b.png');
      const path = new URL(image.url).pathname;
      const res = await cdn.http().get(path).expect(302);
      // The base URL is the bucket's root: the object sits under the prefix there.
      expect(res.headers.location).toBe(`https://cdn.example.com/images/media/${path.slice(7)}`);
    } finally {
      await cdn.close();
    }
  });

  it('a worker renders an upload into the bucket; the renditions are served as immutable WebP and go with the image', async () => {
    const worker = await createTestApp({
      databaseName: t.databaseName,
      redisPrefix: t.redisPrefix,
      role: 'worker',
      env: { ...s3.env, IMAGE_CONCURRENCY: '2', IMAGE_DISPATCH_EVERY: '50ms' },
    });
    try {
      const listing = await newListing();
      const image = await upload(listing.id, await png(2000, 1000), 'wide.png');
      let ready: { status: string; variants: Record<string, string> | null } | undefined;
      await eventually(async () => {
        const images = (await live().get(`/v1/listings/${listing.id}`).expect(200)).body.data
          .images as { id: string; status: string; variants: Record<string, string> | null }[];
        ready = images.find((i) => i.id === image.id);
        return ready?.status === 'ready';
      }, 30_000);
      const paths = Object.values(ready!.variants!).map((url) => new URL(url).pathname);
      for (const path of paths) {
        expect((await s3.object(`media/${path.slice('/media/'.length)}`)).status).toBe(200);
        const served = await t.http().get(path).buffer(true).parse(rawBytes).expect(200);
        expect(served.headers['content-type']).toBe('image/webp');
        expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      }
      await live().delete(`/v1/listings/${listing.id}/images/${image.id}`).expect(200);
      for (const path of paths)
        expect((await s3.object(`media/${path.slice('/media/'.length)}`)).status).toBe(404);
    } finally {
      await worker.close();
    }
  });

  it('refuses STORAGE_DRIVER=s3 without S3_BUCKET at start, naming the variable', () => {
    const saved = { ...process.env };
    process.env.STORAGE_DRIVER = 's3';
    delete process.env.S3_BUCKET;
    try {
      expect(() => storageConfig()).toThrow(
        /S3_BUCKET=undefined: S3_BUCKET is required when STORAGE_DRIVER=s3/,
      );
    } finally {
      process.env = saved;
    }
  });
});
