import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createListingsClient } from './client';
import { importFeed, type ImportFeedOptions, ImportStatusUnreadableError } from './imports';
import { ListingsApiError } from './wire';

const FEED = '{"externalId":"a"}\n{"externalId":"b"}\n';
const meta = { requestId: 'r', timestamp: '' };

interface Upload {
  url: URL;
  headers: Headers;
  bytes: Buffer;
}

/**
 * A service stand-in: takes the upload, then answers the status reads with `statuses` in turn
 * (`lost`: the connection drops; a number: that HTTP status in the error envelope). The first
 * uploads are refused with the statuses in `refusals` (each with `Retry-After: 0`).
 */
function service(statuses: (string | number)[], refusals: number[] = []) {
  const uploads: Upload[] = [];
  let reads = 0;
  const client = createListingsClient({
    baseUrl: 'http://api.test',
    apiKey: 'svc_live_x',
    fetch: async (request) => {
      const url = new URL(request.url);
      let status = 'queued';
      if (request.method === 'POST') {
        uploads.push({
          url,
          headers: request.headers,
          bytes: Buffer.from(await request.arrayBuffer()),
        });
        const refusal = refusals[uploads.length - 1];
        if (refusal !== undefined) {
          const error = { success: false, error: { code: 'X', message: 'not now' }, meta };
          return new Response(JSON.stringify(error), {
            status: refusal,
            headers: { 'Content-Type': 'application/json', 'Retry-After': '0' },
          });
        }
      } else {
        const next = statuses[reads++];
        if (next === 'lost') throw new TypeError('fetch failed');
        if (typeof next === 'number') {
          const error = { success: false, error: { code: 'X', message: 'no' }, meta };
          return new Response(JSON.stringify(error), {
            status: next,
            headers: { 'Content-Type': 'application/json' },
          });
        }
        status = next;
      }
      const body = { success: true, data: { id: 'imp-1', status }, meta };
      return new Response(JSON.stringify(body), {
        status: request.method === 'POST' ? 202 : 200,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  });
  return { client, uploads, reads: () => reads };
}

describe('importFeed', () => {
  it('uploads, then reads the import until it stops, and returns it as it stopped', async () => {
    const { client, uploads, reads } = service(['running', 'running', 'held']);
    const result = await importFeed(client, {
      body: FEED,
      format: 'ndjson',
      mode: 'mirror',
      maxRemovals: 3,
      idempotencyKey: 'night-1',
      pollIntervalMs: 0,
    });
    expect(result).toEqual({ id: 'imp-1', status: 'held' });
    expect(reads()).toBe(3);
    const [upload] = uploads;
    expect(upload.url.pathname + upload.url.search).toBe(
      '/v1/imports?mode=mirror&dryRun=false&maxRemovals=3',
    );
    expect(upload.headers.get('content-type')).toBe('application/x-ndjson');
    expect(upload.headers.get('content-encoding')).toBeNull();
    expect(upload.headers.get('idempotency-key')).toBe('night-1');
    expect(upload.bytes.toString()).toBe(FEED);
  });

  const dir = mkdtempSync(join(tmpdir(), 'listings-client-'));
  writeFileSync(join(dir, 'feed.csv'), FEED);
  writeFileSync(join(dir, 'feed.csv.gz'), gzipSync(FEED));
  afterAll(() => rmSync(dir, { recursive: true }));
  const sources: [string, () => ImportFeedOptions, boolean][] = [
    ['a string, compressed here', () => ({ body: FEED, format: 'csv', compress: true }), true],
    ['bytes', () => ({ body: new TextEncoder().encode(FEED), format: 'csv' }), false],
    ['a file', () => ({ file: join(dir, 'feed.csv'), format: 'csv' }), false],
    ['a .gz file, sent as it is', () => ({ file: join(dir, 'feed.csv.gz'), format: 'csv' }), true],
    [
      'gzip bytes, not compressed twice',
      () => ({ body: gzipSync(FEED), gzipped: true, compress: true, format: 'csv' }),
      true,
    ],
    [
      'a Node stream, compressed here',
      () => ({
        stream: Readable.from([FEED.slice(0, 5), FEED.slice(5)]),
        format: 'csv',
        compress: true,
      }),
      true,
    ],
    ['a web stream', () => ({ stream: new Blob([FEED]).stream(), format: 'csv' }), false],
  ];

  it.each(sources)('sends %s byte for byte', async (_name, options, gzipped) => {
    const { client, uploads } = service(['succeeded']);
    await importFeed(client, { ...options(), pollIntervalMs: 0 });
    const [upload] = uploads;
    expect(upload.headers.get('content-type')).toBe('text/csv');
    expect(upload.headers.get('content-encoding')).toBe(gzipped ? 'gzip' : null);
    expect((gzipped ? gunzipSync(upload.bytes) : upload.bytes).toString()).toBe(FEED);
  });

  it('names a feed URL as JSON for the service to fetch, then waits the same way', async () => {
    const { client, uploads, reads } = service(['running', 'succeeded']);
    const result = await importFeed(client, {
      sourceUrl: 'https://dealer.example/feed.csv',
      format: 'csv',
      mode: 'mirror',
      idempotencyKey: 'night-2',
      pollIntervalMs: 0,
    });
    expect(result).toEqual({ id: 'imp-1', status: 'succeeded' });
    expect(reads()).toBe(2);
    const [upload] = uploads;
    expect(upload.url.pathname + upload.url.search).toBe('/v1/imports?mode=mirror&dryRun=false');
    expect(upload.headers.get('content-type')).toBe('application/json');
    expect(upload.headers.get('idempotency-key')).toBe('night-2');
    expect(JSON.parse(upload.bytes.toString())).toEqual({
      sourceUrl: 'https://dealer.example/feed.csv',
      format: 'csv',
    });
  });

  it('reads the status again after a lost connection, a 5xx or a 429', async () => {
    const { client, reads } = service(['running', 'lost', 503, 'lost', 429, 'lost', 'succeeded']);
    const result = await importFeed(client, { body: FEED, format: 'ndjson', pollIntervalMs: 0 });
    expect(result).toEqual({ id: 'imp-1', status: 'succeeded' });
    expect(reads()).toBe(7);
  });

  it('gives up after six failed reads in a row, or a refused one, naming the import', async () => {
    for (const statuses of [
      ['running', ...Array(6).fill('lost')],
      ['running', 404],
    ]) {
      const { client, reads } = service(statuses);
      const waiting = importFeed(client, { body: FEED, format: 'ndjson', pollIntervalMs: 0 });
      await expect(waiting).rejects.toBeInstanceOf(ImportStatusUnreadableError);
      await expect(waiting).rejects.toMatchObject({ importId: 'imp-1' });
      expect(reads()).toBe(statuses.length);
    }
  });

  it('gives the import to onCreated before the first status read, and each read to onProgress', async () => {
    const { client, reads } = service(['running', 'running', 'succeeded']);
    const seen: string[] = [];
    const result = await importFeed(client, {
      body: FEED,
      format: 'ndjson',
      pollIntervalMs: 0,
      onCreated: (created) => seen.push(`created ${created.id} ${created.status} ${reads()}`),
      onProgress: (current) => seen.push(`progress ${current.status}`),
    });
    expect(seen).toEqual([
      'created imp-1 queued 0',
      'progress running',
      'progress running',
      'progress succeeded',
    ]);
    expect(result.status).toBe('succeeded');
  });

  it('sends bytes and files again after a 429 with Retry-After, a stream not', async () => {
    const again = service(['succeeded'], [429, 429]);
    await importFeed(again.client, { body: FEED, format: 'ndjson', pollIntervalMs: 0 });
    expect(again.uploads.map((u) => u.bytes.toString())).toEqual([FEED, FEED, FEED]);

    const file = service(['succeeded'], [429]);
    await importFeed(file.client, {
      file: join(dir, 'feed.csv'),
      format: 'csv',
      pollIntervalMs: 0,
    });
    expect(file.uploads.map((u) => u.bytes.toString())).toEqual([FEED, FEED]);

    // a 503 may have passed a proxy: without an Idempotency-Key the upload is not repeated
    const unkeyed = service(['succeeded'], [503]);
    await expect(
      importFeed(unkeyed.client, { body: FEED, format: 'ndjson', pollIntervalMs: 0 }),
    ).rejects.toMatchObject({ status: 503 });
    expect(unkeyed.uploads).toHaveLength(1);

    const once = service(['succeeded'], [429]);
    await expect(
      importFeed(once.client, {
        stream: Readable.from([Buffer.from(FEED)]),
        format: 'ndjson',
        pollIntervalMs: 0,
      }),
    ).rejects.toBeInstanceOf(ListingsApiError);
    expect(once.uploads).toHaveLength(1);
  });

  it('stops waiting when its signal aborts', async () => {
    const { client } = service(Array(1000).fill('running'));
    const controller = new AbortController();
    const waiting = importFeed(client, {
      body: FEED,
      format: 'ndjson',
      pollIntervalMs: 5,
      signal: controller.signal,
    });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });
});
