import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { sampleValue } from '../support/metrics-text';
import { Metrics } from '../../src/platform/metrics/metrics';
import { createTestApp, TestApp } from '../support/test-app';

/** A request whose body is sent by the test, part by part; `answer` settles when the server answers. */
interface OpenUpload {
  req: ClientRequest;
  answer: Promise<{ status: number; body: string }>;
}

/**
 * Image uploads are read after the guards, and within a slot of the process's upload gate
 * (IMAGE_UPLOADS_IN_FLIGHT=2 here: one for each account): a burst waits unread.
 */
describe('Image uploads: read after the guards, a few at a time', () => {
  let t: TestApp;
  let a: TestAccount;
  let b: TestAccount;
  let port: number;
  const storageDir = mkdtempSync(join(tmpdir(), 'lsvc-gate-'));
  let body: Buffer; // a JSON upload of a real image, well over the ungated 64 KB

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        STORAGE_DIR: storageDir,
        IMAGE_UPLOADS_IN_FLIGHT: '2',
        // Long enough for a held upload to outlast the other requests of a test, even on a busy CI.
        IMAGE_UPLOAD_BODY_TIMEOUT: '5s',
      },
    });
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    [a, b] = await Promise.all([anAccount(t).build(), anAccount(t).build()]);
    const noise = randomBytes(160 * 160 * 3); // incompressible: a PNG of about 77 KB
    const noisy = await sharp(noise, { raw: { width: 160, height: 160, channels: 3 } })
      .png()
      .toBuffer();
    body = Buffer.from(JSON.stringify({ base64: noisy.toString('base64') }));
    expect(body.length).toBeGreaterThan(64 * 1024);
  });
  afterAll(async () => {
    await t.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const listingOf = async (account: TestAccount) =>
    (await as(t, account.liveKey).post('/v1/listings').send(aListing().build()).expect(201)).body
      .data.id as string;

  /** Starts an upload announcing `length` bytes and sends the first `sent` of `bytes`. */
  function upload(
    key: string,
    listingId: string,
    bytes: Buffer,
    sent = bytes.length,
    headers: Record<string, string> = {},
  ): OpenUpload {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/v1/listings/${listingId}/images`,
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': bytes.length,
        ...headers,
      },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
    });
    answer.catch(() => undefined);
    req.write(bytes.subarray(0, sent));
    if (sent === bytes.length) req.end();
    return { req, answer };
  }

  it('a key without listings:write is refused before its 12 MB body is sent', async () => {
    const listingId = await listingOf(a);
    const readOnly = await createKey(t, a.id, { kind: 'live', scopes: ['listings:read'] });
    const announced = Buffer.alloc(12 * 1024 * 1024, 'A');
    const { req, answer } = upload(readOnly, listingId, announced, 1024);
    // The rest is never sent: only an answer given unread can arrive.
    const { status, body: text } = await answer;
    req.destroy();
    expect(status).toBe(403);
    expect(JSON.parse(text).error.code).toBe('FORBIDDEN');
  });

  /** The `image_uploads` gauge as the next scrape would show it. */
  const uploads = async () => {
    const text = await t.app.get(Metrics).registry.metrics();
    return {
      reading: sampleValue(text, 'image_uploads', { state: 'reading' }),
      waiting: sampleValue(text, 'image_uploads', { state: 'waiting' }),
    };
  };
  const until = async (wanted: { reading: number; waiting: number }) => {
    for (;;) {
      const now = await uploads();
      if (now.reading === wanted.reading && now.waiting === wanted.waiting) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it("a key's second upload waits unread for its first; another key's goes by; none is lost", async () => {
    const [forA, forB] = await Promise.all([listingOf(a), listingOf(b)]);
    const half = Math.floor(body.length / 2);
    const first = upload(a.liveKey, forA, body, half); // holds A's one slot, half sent
    await until({ reading: 1, waiting: 0 });
    const second = upload(a.liveKey, forA, body);
    await until({ reading: 1, waiting: 1 });

    // B's upload is read and stored while A's second waits behind A's first.
    expect((await upload(b.liveKey, forB, body).answer).status).toBe(201);
    expect(await uploads()).toEqual({ reading: 1, waiting: 1 });

    first.req.end(body.subarray(half));
    expect((await first.answer).status).toBe(201);
    expect((await second.answer).status).toBe(201);
    await until({ reading: 0, waiting: 0 });
    const gallery = (await as(t, a.liveKey).get(`/v1/listings/${forA}`).expect(200)).body.data
      .images as unknown[];
    expect(gallery).toHaveLength(2);
  });

  it('an upload refused while it is read gives its slot back', async () => {
    const listingId = await listingOf(a);
    const broken = Buffer.concat([body.subarray(0, body.length - 2), Buffer.from('!!')]);
    const refused = await upload(a.liveKey, listingId, broken).answer;
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.details[0].field).toBe('body');
    // A's one slot is free again: the next upload is read at once.
    expect((await upload(a.liveKey, listingId, body).answer).status).toBe(201);
    await until({ reading: 0, waiting: 0 });
  });

  it('a gzip body waits for a slot whatever its size as sent; one that does not inflate is a 400 on body', async () => {
    const listingId = await listingOf(a);
    const first = upload(a.liveKey, listingId, body, 100); // holds A's slot
    await until({ reading: 1, waiting: 0 });
    // 200 KB inflated, a few hundred bytes as sent.
    const small = gzipSync(Buffer.from(JSON.stringify({ base64: 'x'.repeat(200_000) })));
    expect(small.length).toBeLessThan(64 * 1024);
    const inflating = upload(a.liveKey, listingId, small, small.length, {
      'content-encoding': 'gzip',
    });
    await until({ reading: 1, waiting: 1 });
    first.req.end(body.subarray(100));
    expect((await first.answer).status).toBe(201);
    expect((await inflating.answer).status).toBe(400); // not an image, refused after it was read

    const broken = Buffer.from('not gzip at all');
    const refused = await upload(a.liveKey, listingId, broken, broken.length, {
      'content-encoding': 'gzip',
    }).answer;
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.details).toEqual([
      { field: 'body', message: 'The body could not be decoded as its Content-Encoding says.' },
    ]);
    await until({ reading: 0, waiting: 0 });
  });

  it('a body still incomplete at IMAGE_UPLOAD_BODY_TIMEOUT loses its connection and its slot', async () => {
    const listingId = await listingOf(a);
    const stalled = upload(a.liveKey, listingId, body, 100);
    await until({ reading: 1, waiting: 0 });
    const next = upload(a.liveKey, listingId, body);
    await until({ reading: 1, waiting: 1 });
    await expect(stalled.answer).rejects.toThrow(); // the connection closed, no answer
    expect((await next.answer).status).toBe(201);
    await until({ reading: 0, waiting: 0 });
  });
});
