import type { Response } from 'supertest';
import sharp from 'sharp';
import { readdir } from 'node:fs/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { anAccount, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { gif, jpegWithGps, pixelBomb, png, rawBytes, webp } from '../support/images';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

interface Image {
  id: string;
  url: string;
  order: number;
}

describe('Listing images', () => {
  let t: TestApp;
  let seller: TestAccount;
  let storageDir: string;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'lsvc-media-'));
    t = await createTestApp({ env: { STORAGE_DIR: storageDir } });
    seller = await anAccount(t).build();
  });
  afterAll(async () => {
    await t?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const live = () => as(t, seller.liveKey);
  const newListing = async (images = 0) =>
    (await live().post('/v1/listings').send(aListing().withImages(images).build()).expect(201)).body
      .data as { id: string; images: Image[] };
  const addUrl = (id: string, body: object) => live().post(`/v1/listings/${id}/images`).send(body);
  const gallery = async (id: string) =>
    (await live().get(`/v1/listings/${id}`).expect(200)).body.data.images as Image[];
  const urlsAt = async (id: string) =>
    (await gallery(id)).map((i) => [i.url.replace('https://img.example.com/', ''), i.order]);

  describe('ordering (spec rules 5–9)', () => {
    it('order 0 on a non-empty gallery lands at 1: the existing image stays first', async () => {
      const l = await newListing(3);
      expect(
        (await addUrl(l.id, { url: 'https://img.example.com/new.jpg', order: 0 }).expect(201)).body
          .data.order,
      ).toBe(1);
      expect(await urlsAt(l.id)).toEqual([
        ['0.jpg', 0],
        ['new.jpg', 1],
        ['1.jpg', 2],
        ['2.jpg', 3],
      ]);
    });

    it('resolves ties in a create payload by array position, unordered last', async () => {
      const res = await live()
        .post('/v1/listings')
        .send(
          aListing()
            .with({
              images: [
                { url: 'https://img.example.com/a.jpg', order: 1 },
                { url: 'https://img.example.com/b.jpg' },
                { url: 'https://img.example.com/c.jpg', order: 1 },
                { url: 'https://img.example.com/d.jpg', order: 0 },
              ],
            })
            .build(),
        )
        .expect(201);
      expect(res.body.data.images.map((i: Image) => [i.url.slice(-5), i.order])).toEqual([
        ['d.jpg', 0],
        ['a.jpg', 1],
        ['c.jpg', 2],
        ['b.jpg', 3],
      ]);
    });

    // A JSON body's order is a number, as on create; only a multipart text field is read as one.
    it.each([-1, 30, 2.5, '1'])('refuses order %p with 400', async (order) => {
      const l = await newListing(1);
      const res = await addUrl(l.id, { url: 'https://img.example.com/x.jpg', order });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['order']);
    });

    it('refuses a 31st image with 400 on images', async () => {
      const l = await newListing(30);
      const res = await addUrl(l.id, { url: 'https://img.example.com/31.jpg' });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['images']);
      expect(await gallery(l.id)).toHaveLength(30);
    });
  });

  describe('reorder', () => {
    it('takes every id once and makes the first the primary image', async () => {
      const l = await newListing(3);
      const [a, b, c] = l.images;
      const res = await live()
        .patch(`/v1/listings/${l.id}/images/reorder`)
        .send({ imageIds: [c.id, a.id, b.id] })
        .expect(200);
      expect(res.body.data).toEqual({
        listingId: l.id,
        images: [
          { ...c, order: 0 },
          { ...a, order: 1 },
          { ...b, order: 2 },
        ],
      });
      expect(await gallery(l.id)).toEqual(res.body.data.images);
    });

    it.each([
      ['a duplicate', (ids: string[]) => [ids[0], ids[0], ids[1], ids[2]]],
      ['a non-UUID', (ids: string[]) => [...ids.slice(0, 2), 'x']],
    ])('refuses %s with 400 naming imageIds', async (_name, change) => {
      const l = await newListing(3);
      const res = await live()
        .patch(`/v1/listings/${l.id}/images/reorder`)
        .send({ imageIds: change(l.images.map((i) => i.id)) });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)[0]).toBe('imageIds');
      expect(await gallery(l.id)).toEqual(l.images);
    });
  });

  describe('delete', () => {
    it('removes the image and renumbers the rest densely', async () => {
      const l = await newListing(4);
      const res = await live().delete(`/v1/listings/${l.id}/images/${l.images[1].id}`).expect(200);
      expect(res.body.data.images.map((i: Image) => [i.id, i.order])).toEqual([
        [l.images[0].id, 0],
        [l.images[2].id, 1],
        [l.images[3].id, 2],
      ]);
      expectError(
        await live().delete(`/v1/listings/${l.id}/images/${l.images[1].id}`),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('uploads', () => {
    it('accepts a multipart JPEG: orientation applied, EXIF and GPS gone, served from /media', async () => {
      const l = await newListing(1);
      const res = await live()
        .post(`/v1/listings/${l.id}/images`)
        .attach('file', await jpegWithGps(64, 32), 'IMG_0001.JPG')
        .field('order', '0')
        .expect(201);
      expect(res.body.data.order).toBe(1);
      const path = new URL(res.body.data.url).pathname;
      expect(path).toMatch(/^\/media\/[0-9a-f-]{36}\.jpg$/);
      const served = await t.http().get(path).buffer(true).parse(rawBytes).expect(200);
      expect(served.headers['content-type']).toBe('image/jpeg');
      expect(served.headers.etag).toBeDefined();
      expect(served.headers['cache-control']).toContain('immutable');
      const meta = await sharp(served.body as Buffer).metadata();
      expect([meta.width, meta.height]).toEqual([32, 64]);
      expect(meta.exif).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
      expect((served.body as Buffer).includes(Buffer.from('TestCam'))).toBe(false);
    });

    it('serves only files inside STORAGE_DIR: a path climbing out of it answers 404', async () => {
      // A file beside the storage directory, one `..` away from it.
      const outside = `${basename(storageDir)}-secret.txt`;
      writeFileSync(join(dirname(storageDir), outside), 'not a media file');
      try {
        for (const path of [
          `/media/../${outside}`,
          `/media/..%2F${outside}`,
          `/media/%2E%2E%2F${outside}`,
          `/media/%2E%2E/${outside}`,
          `/media/x%2F..%2F..%2F${outside}`,
          `/media/..%5C${outside}`,
          `/media/${encodeURIComponent(join(dirname(storageDir), outside))}`,
        ]) {
          const res = await t.http().get(path);
          expect([path, res.status]).toEqual([path, 404]);
          expect(res.text).not.toContain('not a media file');
        }
      } finally {
        rmSync(join(dirname(storageDir), outside), { force: true });
      }
    });

    it('accepts raw base64 and data: URLs, PNG and WebP, recognised by content', async () => {
      const l = await newListing(0);
      const raw = await addUrl(l.id, {
        base64: (await png()).toString('base64'),
        filename: 'photo.jpg',
      }).expect(201);
      expect(raw.body.data.url).toMatch(/\.png$/);
      const dataUrl = await addUrl(l.id, {
        base64: `data:image/webp;base64,${(await webp()).toString('base64')}`,
      }).expect(201);
      expect(dataUrl.body.data.url).toMatch(/\.webp$/);
      expect(dataUrl.body.data.order).toBe(1);
    });

    it.each([
      ['a text file', async () => Buffer.from('hello, this is not an image'), 'notes.jpg'],
      ['a GIF', gif, 'anim.gif'],
      ['a truncated JPEG', async () => (await jpegWithGps(400, 300)).subarray(0, 600), 'cut.jpg'],
    ])('refuses %s with 400 on file and stores nothing', async (_name, make, filename) => {
      const l = await newListing(0);
      const before = (await readdir(storageDir)).length;
      const res = await live()
        .post(`/v1/listings/${l.id}/images`)
        .attach('file', await make(), filename);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['file']);
      expect((await readdir(storageDir)).length).toBe(before);
      expect(await gallery(l.id)).toEqual([]);
    });

    it('refuses an image over 40 megapixels before decoding it, with its own message', async () => {
      const l = await newListing(0);
      const bomb = await pixelBomb();
      const multipart = await live()
        .post(`/v1/listings/${l.id}/images`)
        .attach('file', bomb, 'bomb.png');
      expectError(multipart, 400, 'VALIDATION_ERROR');
      expect(multipart.body.error.details).toEqual([
        { field: 'file', message: 'The image is larger than 40 megapixels (10000×10000).' },
      ]);
      const base64 = await addUrl(l.id, { base64: bomb.toString('base64') });
      expect(fieldsOf(base64)).toEqual(['base64']);
      expect(base64.body.error.message).toContain('larger than 40 megapixels');
      expect(await gallery(l.id)).toEqual([]);
    });

    it('refuses bad base64 and a body with two sources', async () => {
      const l = await newListing(0);
      expect(fieldsOf(await addUrl(l.id, { base64: 'not base64 at all!' }))).toEqual(['base64']);
      expect(
        fieldsOf(await addUrl(l.id, { base64: Buffer.from('plain text').toString('base64') })),
      ).toEqual(['base64']);
      expect(
        fieldsOf(await addUrl(l.id, { url: 'https://img.example.com/a.jpg', base64: 'AAAA' })),
      ).toEqual(['file']);
      expect(fieldsOf(await addUrl(l.id, {}))).toEqual(['file']);
      // A multipart body carries its image as the file: a url text field is not its JSON twin.
      const multipartUrl = await live()
        .post(`/v1/listings/${l.id}/images`)
        .field('url', 'https://img.example.com/a.jpg');
      expect(fieldsOf(multipartUrl)).toEqual(['url']);
      expect(await gallery(l.id)).toEqual([]);
    });

    it('refuses a malformed multipart body with 400 on body, in words of its own', async () => {
      const l = await newListing(0);
      const multipart = (contentType: string, body: string) =>
        live()
          .post(`/v1/listings/${l.id}/images`)
          .set('Content-Type', contentType)
          .serialize((b: unknown) => b as string)
          .send(body);
      for (const res of [
        await multipart('multipart/form-data; boundary=XX', '--XX\r\nContent-Disposition: form-da'),
        await multipart('multipart/form-data', 'no boundary'),
      ]) {
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(res.body.error.details).toEqual([
          { field: 'body', message: 'The multipart body is malformed or incomplete.' },
        ]);
      }
      expect(await gallery(l.id)).toEqual([]);
    });

    it('says what is wrong with a url, an order or a reorder of the wrong type', async () => {
      const l = await newListing(1);
      const detailsOf = async (res: Promise<Response>) => (await res).body.error.details;
      expect(await detailsOf(addUrl(l.id, { url: 5 }))).toEqual([
        { field: 'url', message: 'url must be an http(s) URL' },
      ]);
      expect(
        await detailsOf(
          live()
            .post(`/v1/listings/${l.id}/images`)
            .attach('file', await jpegWithGps(8, 8), 'a.jpg')
            .field('order', '-1'),
        ),
      ).toEqual([{ field: 'order', message: 'order must not be less than 0' }]);
      for (const body of [{}, { imageIds: 'abc' }]) {
        expect(
          await detailsOf(live().patch(`/v1/listings/${l.id}/images/reorder`).send(body)),
        ).toEqual([{ field: 'imageIds', message: 'imageIds must be an array' }]);
      }
      expect(
        await detailsOf(
          live()
            .post(`/v1/listings/${l.id}/images`)
            .send([{ url: 'https://img.example.com/a.jpg' }]),
        ),
      ).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
      expect(await gallery(l.id)).toHaveLength(1);
    });

    it('refuses a file over 10 MB', async () => {
      const l = await newListing(0);
      const res = await live()
        .post(`/v1/listings/${l.id}/images`)
        .attach('file', Buffer.alloc(10 * 1024 * 1024 + 1), 'big.jpg');
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['file']);
    });

    it('removes the stored file when the change is refused after the upload', async () => {
      const l = await newListing(30);
      const before = (await readdir(storageDir)).length;
      expect(fieldsOf(await addUrl(l.id, { base64: (await png()).toString('base64') }))).toEqual([
        'images',
      ]);
      expect((await readdir(storageDir)).length).toBe(before);
    });
  });

  describe('rules around the gallery', () => {
    it("answers 404 for another account's listing", async () => {
      const l = await newListing(1);
      const stranger = await anAccount(t).build();
      expectError(
        await as(t, stranger.liveKey)
          .post(`/v1/listings/${l.id}/images`)
          .send({ url: 'https://img.example.com/x.jpg' }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await as(t, stranger.liveKey)
          .patch(`/v1/listings/${l.id}/images/reorder`)
          .send({ imageIds: [l.images[0].id] }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await as(t, stranger.liveKey).delete(`/v1/listings/${l.id}/images/${l.images[0].id}`),
        404,
        'NOT_FOUND',
      );
    });

    it('refuses changes to SOLD or REMOVED listings with 400 on status', async () => {
      const l = await newListing(1);
      await live().post(`/v1/listings/${l.id}/sold`).expect(200);
      expect(fieldsOf(await addUrl(l.id, { url: 'https://img.example.com/x.jpg' }))).toEqual([
        'status',
      ]);
      expect(
        fieldsOf(await live().delete(`/v1/listings/${l.id}/images/${l.images[0].id}`)),
      ).toEqual(['status']);
    });

    it('bumps updatedAt and emits listing.updated with changedFields images', async () => {
      const l = await newListing(1);
      await addUrl(l.id, { url: 'https://img.example.com/x.jpg' }).expect(201);
      const events = await t.dataSource.query(
        `SELECT event, data FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq`,
        [l.id],
      );
      expect(events.map((e: { event: string }) => e.event)).toEqual([
        'listing.created',
        'listing.updated',
      ]);
      expect(events[1].data.changedFields).toEqual(['images']);
      const after = (await live().get(`/v1/listings/${l.id}`)).body.data;
      expect(after.updatedAt).toBe(events[1].data.updatedAt);
    });
  });

  describe('files of images dropped from a gallery', () => {
    /** A listing with one uploaded image; returns the listing and the file's /media path. */
    async function withUpload(externalId?: string) {
      const body = aListing().withImages(1);
      if (externalId) body.withExternalId(externalId);
      const l = (await live().post('/v1/listings').send(body.build()).expect(201)).body.data;
      const res = await live()
        .post(`/v1/listings/${l.id}/images`)
        .attach('file', await png(), 'upload.png')
        .expect(201);
      const path = new URL(res.body.data.url).pathname;
      await t.http().get(path).expect(200);
      return { id: l.id as string, url: res.body.data.url as string, path };
    }
    const urlOnly = [{ url: 'https://img.example.com/only.jpg' }];

    it('PATCH images: the dropped upload is no longer served', async () => {
      const l = await withUpload();
      await live().patch(`/v1/listings/${l.id}`).send({ images: urlOnly }).expect(200);
      await t.http().get(l.path).expect(404);
    });

    it('PUT by external id: the dropped upload is no longer served', async () => {
      const l = await withUpload('gallery-put-1');
      await live()
        .put('/v1/listings/by-external-id/gallery-put-1')
        .send(aListing().withExternalId('gallery-put-1').with({ images: urlOnly }).build())
        .expect(200);
      await t.http().get(l.path).expect(404);
    });

    it('bulk update: the dropped upload is no longer served', async () => {
      const l = await withUpload();
      const res = await live()
        .patch('/v1/listings/bulk')
        .send({ items: [{ id: l.id, images: [] }] })
        .expect(200);
      expect(res.body.data.results[0].success).toBe(true);
      await t.http().get(l.path).expect(404);
    });

    it('DELETE of the image: its file is no longer served', async () => {
      const l = await withUpload();
      const uploaded = (await gallery(l.id)).find((image) => image.url === l.url)!;
      await live().delete(`/v1/listings/${l.id}/images/${uploaded.id}`).expect(200);
      await t.http().get(l.path).expect(404);
    });

    it('an upload kept in the new gallery keeps its file, until it is dropped', async () => {
      const l = await withUpload();
      await live()
        .patch(`/v1/listings/${l.id}`)
        .send({ images: [...urlOnly, { url: l.url }] })
        .expect(200);
      await t.http().get(l.path).expect(200);
      await live().patch(`/v1/listings/${l.id}`).send({ images: urlOnly }).expect(200);
      await t.http().get(l.path).expect(404);
    });

    it('a file another listing shows by URL is kept when its own listing drops it', async () => {
      const l = await withUpload();
      // Relisting: another listing shows the same uploaded image by its URL.
      const copy = (
        await live()
          .post('/v1/listings')
          .send(
            aListing()
              .with({ images: [{ url: l.url }] })
              .build(),
          )
          .expect(201)
      ).body.data;
      await live().patch(`/v1/listings/${l.id}`).send({ images: urlOnly }).expect(200);
      await t.http().get(l.path).expect(200);
      expect((await gallery(copy.id)).map((image) => image.url)).toEqual([l.url]);
    });
  });

  describe('concurrency', () => {
    it('10 simultaneous adds end dense 0..9 without an error', async () => {
      const l = await newListing(0);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          addUrl(l.id, { url: `https://img.example.com/c${i}.jpg`, order: 0 }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
      expect((await gallery(l.id)).map((i) => i.order)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('an add racing a reorder never loses or duplicates an image', async () => {
      const l = await newListing(5);
      const reversed = l.images.map((i) => i.id).reverse();
      const [added, reordered] = await Promise.all([
        addUrl(l.id, { url: 'https://img.example.com/racer.jpg', order: 2 }),
        live().patch(`/v1/listings/${l.id}/images/reorder`).send({ imageIds: reversed }),
      ]);
      expect(added.status).toBe(201);
      // Either the reorder ran first, or it no longer names every image and is refused: never a 500.
      expect([200, 400]).toContain(reordered.status);
      const final = await gallery(l.id);
      expect(final.map((i) => i.order)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(new Set(final.map((i) => i.id)).size).toBe(6);
      expect(final.map((i) => i.id)).toEqual(
        expect.arrayContaining([...l.images.map((i) => i.id), added.body.data.id]),
      );
    });
  });
});
